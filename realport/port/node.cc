// SPDX-License-Identifier: Apache-2.0
// WireNode assembly (driver init, window 0, HAL, WindowProcess) and the loop that alternates
// simulated events with polls of real ports.
#include "realport/port/node.h"

#include <immintrin.h>

#include <string>

#include "abi/limits.h"
#include "abi/rdma.h"
#include "base/rng.h"
#include "firmware/microcode.h"
#include "sim/cluster/node_memory.h"

namespace nicsim::sim {
namespace {

/**
 * The microcode of a real-port node: the same image, with tasks for a whole port burst
 * (kRealPortBurstFrames) in flight each way instead of the simulated adapter's four. The
 * pool's 64 tasks hold 63 besides the work manager's, so with both directions full at once
 * one transmit waits.
 */
fw::MicrocodeConfig RealPortMicrocode() {
  fw::MicrocodeConfig c;
  c.tasks = abi::kMaxTasks;
  c.rx_tasks = kRealPortBurstFrames;
  c.tx_tasks = kRealPortBurstFrames;
  return c;
}

/**
 * Buffers for a burst in flight each way: DTBs and header buffers. (The simulated link output
 * queue is not used behind a real port: AdapterContext::bursts.)
 */
hw::func::AdapterResources RealPortResources() {
  hw::func::AdapterResources r;
  r.dtbs = 2 * kRealPortBurstFrames;
  r.header_buffers = 2 * kRealPortBurstFrames;
  return r;
}

}  // namespace

WireNode::WireNode(kernel::EventQueue& events, uint16_t adapter_id, hw::FabricLink& port,
                   const WireNodeConfig& config)
    : config_(config),
      host_(HostBytes(config)),
      adapter_(events, host_, adapter_id, config.line_bytes, hw::func::AdapterTiming{},
               RealPortMicrocode(), RealPortResources()),
      direct_(adapter_),
      ringed_(direct_, host_events_),
      driver_(ringed_) {
  adapter_.ConnectFabric(&port);
  // Frames come off the port in bursts and the wall clock paces the run.
  adapter_.SetRealPortBursts(true);
}

WireNode::~WireNode() {
  StopAdapterLoop();
  endpoint_.reset();
  window_.reset();
}

Status WireNode::Open() {
  if (Status s = driver_.Init(); !s.ok()) return s;
  driver::WindowRequest req;
  req.job_key = config_.job_key;
  req.recv_frames = config_.recv_frames;
  req.send_slots = config_.send_slots;
  Result<driver::WindowInfo> info = driver_.OpenWindow(0, req);
  if (!info.ok()) return info.status();
  window_ = std::make_unique<hal::Window>(*info, ringed_, config_.return_batch);
  if (config_.adapter_core) {
    endpoint_ = std::make_unique<WindowProcess>(*window_, driver_, host_events_, host_,
                                                config_.poll_latency_ps, WaitMode::kSpin);
  } else {
    endpoint_ = std::make_unique<WindowProcess>(*window_, driver_, adapter_.events(), host_,
                                                config_.poll_latency_ps, WaitMode::kPoll);
    // The replies to one burst, read by one poll, go to the adapter in one doorbell.
    endpoint_->SetRingOncePerRead(true);
  }
  return Status();
}

Status WireNode::StartAdapterLoop(std::vector<PolledPort> ports, hw::CoreLauncher& core) {
  if (!config_.adapter_core) {
    return Status::Error("this node was built to run its adapter on the caller's thread");
  }
  if (!endpoint_) return Status::Error("open the window before starting the adapter loop");
  if (core_ != nullptr) return Status::Error("the adapter loop is already running");
  loop_ports_ = std::move(ports);
  stop_loop_.store(false, std::memory_order_relaxed);
  ringed_.StartRing();
  host_.SetDeviceThread(true);
  kernel::EventQueue& events = adapter_.events();
  Status launched = core.Launch([this, &events] {
    // Run to completion: MMIO commands, the adapter's events, the port. The stop flag is read
    // only between turns, and every command posted before it is served before the loop ends.
    while (!stop_loop_.load(std::memory_order_acquire)) {
      ringed_.ServeCommands(kEventsPerPoll);
      Step(events, loop_ports_);
    }
    while (ringed_.ServeCommands(UINT32_MAX) > 0) {
    }
  });
  if (!launched.ok()) {
    host_.SetDeviceThread(false);
    ringed_.StopRing();
    return launched;
  }
  core_ = &core;
  return Status();
}

void WireNode::StopAdapterLoop() {
  if (core_ == nullptr) return;
  stop_loop_.store(true, std::memory_order_release);
  core_->Join();
  core_ = nullptr;
  host_.SetDeviceThread(false);
  ringed_.StopRing();
}

bool WireNode::Turn(const std::vector<PolledPort>& ports) {
  if (core_ == nullptr) return Step(adapter_.events(), ports);
  // The host's own timers (the driver's), then the CPU's look at its FIFOs.
  for (int i = 0; i < kEventsPerPoll && host_events_.RunOne(); ++i) {
  }
  const uint64_t before = endpoint_->received();
  endpoint_->Spin();
  if (endpoint_->received() != before) return true;
  // Nothing came: wait a little before looking again, as a DPDK poll loop does. Each look
  // reads the slot the adapter's core writes next, taking its line away from that core.
  for (int i = 0; i < kIdlePauses; ++i) _mm_pause();
  return false;
}

uint64_t WireNode::HostBytes(const WireNodeConfig& c) {
  NodeMemory memory;
  memory.line_bytes = c.line_bytes;
  memory.recv_frames = c.recv_frames;
  memory.send_slots = c.send_slots;
  memory.windows = 1;
  memory.rdma_host_bytes = c.rdma_host_bytes;
  memory.tce = c.tce;
  return NodeHostBytes(memory);
}

bool Step(kernel::EventQueue& events, const std::vector<PolledPort>& ports) {
  bool ran = false;
  for (int i = 0; i < kEventsPerPoll && events.RunOne(); ++i) ran = true;
  uint32_t taken = 0;
  for (const PolledPort& p : ports) taken += p.Poll();
  return ran || taken > 0;
}

Status RunWithPorts(kernel::EventQueue& events, const std::vector<PolledPort>& ports,
                    const std::function<bool()>& done) {
  while (!done()) {
    if (!Step(events, ports)) {
      return Status::Error("stalled at t=" + std::to_string(events.now_ps() / 1000) +
                           "ns: no events left and no frames on the ports");
    }
  }
  return Status();
}

void SettleEvents(kernel::EventQueue& events, const std::vector<PolledPort>& ports,
                  std::chrono::steady_clock::time_point deadline) {
  while (!events.empty() && std::chrono::steady_clock::now() < deadline) Step(events, ports);
}

void Settle(kernel::EventQueue& events, const std::vector<PolledPort>& ports) {
  while (Step(events, ports)) {
  }
}

Result<std::unique_ptr<WireNodeRdma>> WireNodeRdma::Create(WireNode& node, uint64_t seed) {
  if (node.config().rdma_host_bytes == 0) {
    return Status::Error("RDMA on a wire node needs rdma_host_bytes");
  }
  std::unique_ptr<WireNodeRdma> r(new WireNodeRdma());
  r->job_key_ = node.config().job_key;
  r->space_ = std::make_unique<host::AddressSpace>(node.host(), seed);
  driver::TceConfig tce = node.config().tce;
  Rng seeds(seed, "tce_key_seed");
  tce.key_seed = seeds.Next();
  Result<std::unique_ptr<driver::TceTables>> tables =
      driver::TceTables::CreateForJob({&node.access()}, tce, r->job_key_);
  if (!tables.ok()) return tables.status();
  r->tables_ = std::move(*tables);
  r->rcxts_ =
      driver::RcxtPool::ForDriver(node.access(), fw::MicrocodeConfig{}.rcxts, node.driver());
  return Result<std::unique_ptr<WireNodeRdma>>(std::move(r));
}

}  // namespace nicsim::sim
