// SPDX-License-Identifier: Apache-2.0
// One adapter behind a real port for the DPDK tests (host memory, FuncAdapter, driver, window 0,
// HAL and Endpoint, as sim/cluster.cc builds them) and a loop of events and port polls.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi/limits.h"
#include "base/status.h"
#include "driver/adapter_driver.h"
#include "hal/window.h"
#include "hw/dpdk/dpdk_port.h"
#include "hw/func/event_queue.h"
#include "hw/func/func_adapter.h"
#include "hw/func/func_device_access.h"
#include "hw/func/host_memory.h"
#include "sim/endpoint.h"

namespace nicsim::testing {

/** Sizes of a PortNode's window, as in sim::ClusterConfig. */
struct PortNodeConfig {
  uint32_t line_bytes = 128;
  uint32_t recv_frames = 256;
  uint32_t send_slots = 64;
  uint32_t return_batch = 16;
  uint64_t poll_latency_ps = 50'000;
  uint32_t job_key = 0x5eed'0001;
};

/** An adapter with its own host memory, driver and window 0, sending through `port`. */
class PortNode {
 public:
  PortNode(hw::func::EventQueue& events, uint16_t adapter_id, hw::FabricPort& port,
           const PortNodeConfig& config = {})
      : config_(config),
        host_(HostBytes(config)),
        adapter_(events, host_, adapter_id, config.line_bytes, hw::func::AdapterTiming{},
                 fw::MicrocodeConfig{}, hw::func::AdapterResources{}),
        access_(adapter_),
        driver_(access_) {
    adapter_.ConnectFabric(&port);
  }
  ~PortNode() {
    // The process goes before its window, the window before the hardware.
    endpoint_.reset();
    window_.reset();
  }
  PortNode(const PortNode&) = delete;
  PortNode& operator=(const PortNode&) = delete;

  /** Initialises the driver and opens window 0 with a HAL and an Endpoint. */
  Status Open() {
    if (Status s = driver_.Init(); !s.ok()) return s;
    driver::WindowRequest req;
    req.job_key = config_.job_key;
    req.recv_frames = config_.recv_frames;
    req.send_slots = config_.send_slots;
    Result<driver::WindowInfo> info = driver_.OpenWindow(0, req);
    if (!info.ok()) return info.status();
    window_ = std::make_unique<hal::Window>(*info, access_, config_.return_batch);
    endpoint_ = std::make_unique<sim::Endpoint>(*window_, driver_, adapter_.events(), host_,
                                                config_.poll_latency_ps, sim::WaitMode::kPoll);
    return Status();
  }

  hw::func::FuncAdapter& adapter() { return adapter_; }
  sim::Endpoint& endpoint() { return *endpoint_; }
  const PortNodeConfig& config() const { return config_; }

 private:
  /** Room for one window's FIFOs plus a margin, like Cluster's per-node sizing. */
  static uint64_t HostBytes(const PortNodeConfig& c) {
    return uint64_t{c.recv_frames} * abi::kRecvFrameBytes +
           uint64_t{c.send_slots} * abi::SendSlotBytes(c.line_bytes) + 2 * 4096 + (1u << 20);
  }

  PortNodeConfig config_;
  hw::func::HostMemory host_;
  hw::func::FuncAdapter adapter_;
  hw::func::FuncDeviceAccess access_;
  driver::AdapterDriver driver_;
  std::unique_ptr<hal::Window> window_;
  std::unique_ptr<sim::Endpoint> endpoint_;
};

/** A port and the adapter its received frames go to. */
struct PolledPort {
  hw::dpdk::DpdkPort* port;
  hw::LinkSink* sink;
};

/** One event, then one poll of every port; false if neither found anything to do. */
inline bool Step(hw::func::EventQueue& events, const std::vector<PolledPort>& ports) {
  const bool ran = events.RunOne();
  uint32_t taken = 0;
  for (const PolledPort& p : ports) taken += p.port->Poll(*p.sink);
  return ran || taken > 0;
}

/**
 * Run to completion: Step until `done()`. A step that runs no event and takes no frame means
 * nothing can ever happen again (everything is on one thread): a stall.
 */
inline Status RunWithPorts(hw::func::EventQueue& events, const std::vector<PolledPort>& ports,
                           const std::function<bool()>& done) {
  while (!done()) {
    if (!Step(events, ports)) {
      return Status::Error("stalled at t=" + std::to_string(events.now_ps() / 1000) +
                           "ns: no events left and no frames on the ports");
    }
  }
  return Status();
}

/** Runs until no event is left and no port has a frame waiting. */
inline void Settle(hw::func::EventQueue& events, const std::vector<PolledPort>& ports) {
  while (Step(events, ports)) {
  }
}

}  // namespace nicsim::testing
