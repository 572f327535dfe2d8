// SPDX-License-Identifier: Apache-2.0
// One adapter behind a real port, DPDK or verbs (host memory, FuncAdapter, driver, window 0, HAL
// and WindowProcess, as sim/cluster/cluster.cc builds them), and a run-to-completion loop of events
// and polls.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/status.h"
#include "host/address_space.h"
#include "driver/rcxt_pool.h"
#include "driver/adapter_driver.h"
#include "driver/tce_tables.h"
#include "hal/window.h"
#include "hw/common/core_launcher.h"
#include "hw/common/link.h"
#include "kernel/event_queue.h"
#include "hw/func/func_adapter.h"
#include "hw/func/func_device_access.h"
#include "host/host_memory.h"
#include "hw/func/ringed_device_access.h"
#include "sim/cluster/window_process.h"

namespace nicsim::sim {

/**
 * Frames a real port takes or sends per burst (DpdkPortConfig's rx_burst and tx_burst); the
 * node's adapter has tasks and buffers for one burst in flight each way.
 */
inline constexpr uint32_t kRealPortBurstFrames = 32;

/** Sizes of a WireNode's window, as in sim::ClusterConfig. */
struct WireNodeConfig {
  uint32_t line_bytes = 128;
  uint32_t recv_frames = 256;
  uint32_t send_slots = 64;
  uint32_t return_batch = 16;
  uint64_t poll_latency_ps = 50'000;
  uint32_t job_key = 0x5eed'0001;
  /** Host memory for RDMA (TCE tables and the task's buffers) on top of the window's; 0: none. */
  uint64_t rdma_host_bytes = 0;
  /** TCE table geometry, counted in the host memory when rdma_host_bytes > 0. */
  driver::TceConfig tce;
  /**
   * The adapter's poll loop runs on a core of its own (StartAdapterLoop) and the host's
   * process spins on its FIFOs on the caller's core: MMIO from the HAL goes through a
   * lock-free ring. Set-up (driver, window) still runs on one thread before the loop starts.
   */
  bool adapter_core = false;
};

/**
 * A real port and the adapter its received frames go to. Any port with
 * `uint32_t Poll(hw::LinkSink&)` (hw::dpdk::DpdkPort, hw::verbs::VerbsPort) fits, so this
 * header needs neither backend: `PolledPort{&dpdk_port, &adapter}`.
 */
class PolledPort {
 public:
  template <typename Port>
  PolledPort(Port* port, hw::LinkSink* sink)
      : port_(port),
        sink_(sink),
        poll_([](void* p, hw::LinkSink& s) { return static_cast<Port*>(p)->Poll(s); }) {}

  /** Takes one burst off the port into the sink; returns the frames taken. */
  uint32_t Poll() const { return poll_(port_, *sink_); }

 private:
  void* port_;
  hw::LinkSink* sink_;
  uint32_t (*poll_)(void*, hw::LinkSink&);
};

/**
 * A simulated node on a real wire: one adapter with its own host memory, driver and window
 * 0, whose link is `port` (a DPDK ethdev or a verbs UD QP), not the simulated fabric.
 */
class WireNode {
 public:
  WireNode(kernel::EventQueue& events, uint16_t adapter_id, hw::FabricLink& port,
           const WireNodeConfig& config = {});
  /** The process goes before its window, the window before the hardware. */
  ~WireNode();
  WireNode(const WireNode&) = delete;
  WireNode& operator=(const WireNode&) = delete;

  /** Initialises the driver and opens window 0 with a HAL and an WindowProcess. */
  Status Open();

  /**
   * Starts the adapter's loop on `core`: it serves the MMIO ring, runs the adapter's events
   * and polls `ports` until StopAdapterLoop. Needs config().adapter_core and an opened window
   * whose set-up has settled (SettleEvents).
   */
  Status StartAdapterLoop(std::vector<PolledPort> ports, hw::CoreLauncher& core);
  /** Stops the loop (after it has served every MMIO command) and joins it; idempotent. */
  void StopAdapterLoop();
  /**
   * One turn of the caller's run loop. With the adapter on a core of its own: the host's
   * timers and one Spin of the endpoint; true if the endpoint received anything. Otherwise
   * Step(events, ports): the adapter and the host on this thread.
   */
  bool Turn(const std::vector<PolledPort>& ports);

  hw::func::FuncAdapter& adapter() { return adapter_; }
  /** Window 0's process; valid after Open. */
  WindowProcess& endpoint() { return *endpoint_; }
  const WireNodeConfig& config() const { return config_; }
  host::HostMemory& host() { return host_; }
  /** The device as the driver and the HAL reach it (through the MMIO ring when split). */
  driver::DeviceAccess& access() { return ringed_; }
  /** The MMIO ring's end points and counters. */
  const hw::func::RingedDeviceAccess& mmio_ring() const { return ringed_; }
  driver::AdapterDriver& driver() { return driver_; }

 private:
  /** Room for one window's FIFOs plus a margin, like Cluster's per-node sizing. */
  static uint64_t HostBytes(const WireNodeConfig& c);

  WireNodeConfig config_;
  host::HostMemory host_;
  hw::func::FuncAdapter adapter_;
  hw::func::FuncDeviceAccess direct_;
  /** The host side's own timers when the adapter runs on another core. */
  kernel::EventQueue host_events_;
  hw::func::RingedDeviceAccess ringed_;
  driver::AdapterDriver driver_;
  /** The adapter loop's core while it runs; null otherwise. */
  hw::CoreLauncher* core_ = nullptr;
  std::vector<PolledPort> loop_ports_;
  std::atomic<bool> stop_loop_{false};
  std::unique_ptr<hal::Window> window_;
  std::unique_ptr<WindowProcess> endpoint_;
};

/**
 * Events run between two polls of the ports at most. A packet's trip through the microcode is
 * a few dozen events, so polling after every one spends most of the time on empty polls.
 */
inline constexpr int kEventsPerPoll = 16;

/**
 * PAUSE instructions a host turn waits after a Spin that received nothing, with the adapter on
 * a core of its own (WireNode::Turn). Polling at once reads the slot the adapter writes next,
 * pulling its line to the host's core on every look, and the adapter pays for each. Forwarding
 * on net_null (bench/run dpdk_vs_testpmd, null_fwd_split): 0.85 M frames/s with none, 0.97 M
 * with 32, 0.93 M with 128 (three runs each).
 */
inline constexpr int kIdlePauses = 32;

/**
 * Up to kEventsPerPoll events (fewer if the queue empties), then one poll of every port; false
 * if neither found anything to do.
 */
bool Step(kernel::EventQueue& events, const std::vector<PolledPort>& ports);

/**
 * Run to completion: Step until `done()`. A step that runs no event and takes no frame means
 * nothing can ever happen again when every port's peer lives on this thread: a stall. (With a
 * peer in another process, loop on Step with a wall-clock deadline instead.)
 */
Status RunWithPorts(kernel::EventQueue& events, const std::vector<PolledPort>& ports,
                    const std::function<bool()>& done);

/** Runs until no event is left and no port has a frame waiting. */
void Settle(kernel::EventQueue& events, const std::vector<PolledPort>& ports);

/**
 * Runs until no simulated event is left (the ports are polled meanwhile), or until
 * `deadline`: the node's own work (opening a window, loading TCEs) finishes, and a port that
 * never goes quiet (a flood of frames it drops) cannot hold it up.
 */
void SettleEvents(kernel::EventQueue& events, const std::vector<PolledPort>& ports,
                  std::chrono::steady_clock::time_point deadline);

/** RDMA state of a WireNode (its config's rdma_host_bytes must be non-zero). */
class WireNodeRdma {
 public:
  /** Sets up the address space, TCE tables (job reserved) and rCxt pool of an opened node. */
  static Result<std::unique_ptr<WireNodeRdma>> Create(WireNode& node, uint64_t seed);

  host::AddressSpace& space() { return *space_; }
  driver::TceTables& tables() { return *tables_; }
  driver::RcxtPool& rcxts() { return *rcxts_; }
  uint32_t job_key() const { return job_key_; }

 private:
  WireNodeRdma() = default;
  std::unique_ptr<host::AddressSpace> space_;
  std::unique_ptr<driver::TceTables> tables_;
  std::unique_ptr<driver::RcxtPool> rcxts_;
  uint32_t job_key_ = 0;
};

}  // namespace nicsim::sim
