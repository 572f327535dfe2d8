// SPDX-License-Identifier: Apache-2.0
// A simulated cluster: N nodes with A adapters each, every adapter running the microcode on
// the functional hardware model, wired through the switch fabric, with a driver per adapter
// and an WindowProcess (process + HAL window) per open window.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/rng.h"
#include "base/status.h"
#include "driver/adapter_driver.h"
#include "driver/rcxt_pool.h"
#include "driver/tce_tables.h"
#include "firmware/microcode.h"
#include "hal/port.h"
#include "hal/task_host.h"
#include "hal/window.h"
#include "kernel/clock.h"
#include "kernel/event_queue.h"
#include "hw/func/adapter_model.h"
#include "host/address_space.h"
#include "hw/func/func_device_access.h"
#include "host/host_memory.h"
#include "hw/systemc/systemc_timing.h"
#include "sim/cluster/backend.h"
#include "sim/cluster/window_process.h"
#include "sim/fabric/switch_fabric.h"
#include "sim/observe/host_trace.h"

namespace nicsim::sim {
namespace distrib {
class SoloWorld;
class SplitRun;
}  // namespace distrib

/** Everything needed to build a cluster. */
struct ClusterConfig {
  uint32_t nodes = 2;
  uint32_t adapters_per_node = 1;
  uint32_t windows_per_adapter = 1;
  uint32_t line_bytes = 128;
  uint32_t recv_frames = 256;
  uint32_t send_slots = 64;
  uint32_t return_batch = 16;
  uint64_t poll_latency_ps = 50'000;
  /** Host CPU time an interrupt handler spends per event (AdapterDriver::SetInterruptServiceTime).
   */
  uint64_t interrupt_service_ps = 0;
  uint64_t seed = 1;
  /** Simulated time after which a workload that is not done has stalled (run.time_limit). */
  uint64_t time_limit_ps = UINT64_MAX;
  /** The hardware model that runs the microcode (`backend`): the SystemC model unless a run or
   *  the code that builds the config says otherwise. */
  BackendKind backend = BackendKind::kSystemc;
  hw::func::AdapterTiming timing;
  /** Costs of the SystemC backend (ignored by the functional one). */
  hw::systemc::SystemcTiming systemc;
  /** rtl backend: write each Verilated block's VCD to PREFIX.aN.BLOCK.vcd; empty: none. */
  std::string rtl_vcd_prefix;
  hw::func::AdapterResources resources;
  WaitMode wait_mode = WaitMode::kPoll;
  /**
   * The CPU of the process on (adapter, window): whether it has nothing else to run (wait_mode
   * kEarlyWhenIdle arms early interrupts only then), and how to take time from its work. Unset:
   * every CPU counts as idle (a process runs only when woken and has its CPU to itself).
   */
  std::function<HostCpu(uint32_t adapter_id, uint32_t window)> host_cpu;
  /** Receives every adapter's firmware trace events, if set. */
  hw::func::TraceSink* trace = nullptr;
  /** Receives host trace events (receive frames consumed by each endpoint), if set. */
  HostTraceSink* host_trace = nullptr;
  /**
   * A split run (mpirun -n K): this process builds every node but runs only its partition's
   * events, and hands frames for other partitions to the split's outbox. Not owned; nullptr
   * for an ordinary run.
   */
  distrib::SplitRun* split = nullptr;
  /** How a split run assigns nodes to processes (run.partition); results never depend on it. */
  enum class Partition : uint8_t { kContiguous, kRoundRobin };
  Partition partition = Partition::kContiguous;
  /**
   * Threads of `nicsim run` that split the run among them as mpirun's processes do
   * (run.threads; 0: the cores it may run on, for a large enough run). Read by the command
   * line (sim/distrib/run_threads.h), not by the cluster.
   */
  uint32_t threads = 1;
  fw::MicrocodeConfig microcode;
  FabricConfig fabric;
  /**
   * Host memory per node for the job's RDMA buffers (its address space); 0 turns RDMA off.
   * With RDMA on, every node gets TCE tables (reserved for the job) and every adapter an
   * rCxt pool.
   */
  uint64_t rdma_host_bytes = 0;
  driver::TceConfig tce;
  /**
   * Simulated host memory the nodes may touch together (host.touched_limit): past it,
   * SampleHostMemory fails and the run stops. UINT64_MAX: no limit.
   */
  uint64_t touched_limit_bytes = UINT64_MAX;
};

/** A node's simulated host memory: reserved, and touched (see Cluster::SampleHostMemory). */
struct HostMemoryUse {
  uint64_t reserved_bytes = 0;
  /** At the last sample. */
  uint64_t touched_bytes = 0;
  /** The most at any sample. */
  uint64_t touched_peak_bytes = 0;
};

/** The assembled cluster. Adapter ids are node * adapters_per_node + index. */
class Cluster {
 public:
  /** Builds and initialises every node, adapter, driver and window. */
  static Result<std::unique_ptr<Cluster>> Create(const ClusterConfig& config);
  ~Cluster();

  kernel::EventQueue& events() { return events_; }
  /** Simulated time and timers on the event queue. */
  kernel::Clock& clock() { return clock_; }
  const kernel::EventQueue& events() const { return events_; }
  SwitchFabric& fabric() { return *fabric_; }
  const ClusterConfig& config() const { return config_; }
  /** Facts about the backend for stats.json (kernel, quantum). */
  nlohmann::json DescribeBackend() const { return backend_->Describe(); }

  uint32_t adapter_count() const { return static_cast<uint32_t>(adapters_.size()); }
  hw::func::AdapterModel& adapter(uint32_t id) { return *adapters_[id]->hw; }
  driver::AdapterDriver& driver(uint32_t id) { return *adapters_[id]->driver; }
  /** Host memory of a node. */
  host::HostMemory& host(uint32_t node) { return *hosts_[node]; }
  /** The cluster is being taken down: memory freed from now on is not cleared first (the
   *  nodes' memory is unmapped whole at the end; HostMemory::StopClearingOnFree). */
  void StopClearingFreedMemory() {
    for (auto& h : hosts_) h->StopClearingOnFree();
  }
  /** Node that holds an adapter. */
  uint32_t NodeOf(uint32_t adapter_id) const { return adapter_id / config_.adapters_per_node; }

  /**
   * Measures node `node`'s touched host memory (HostMemory::TouchedBytes: it walks the
   * node's allocated pages), keeps the node's peak, and checks the sum of every node's latest
   * measure against ClusterConfig::touched_limit_bytes: false once it is over
   * (touched_limit_error() then says by how much, from now on). The event queue calls it for
   * a node after every kNodeEventsPerSample events that ran as the node, so a node is
   * measured after the same events however the run is split over processes, and a run stops
   * at the same event every time it is run with the same seed. A split run measures only its
   * own nodes; it and an MPI job check the sum (over every process) at window ends
   * (LimitTouchedAtWindowEnds), so they stop at the end of a window rather than at an event.
   */
  bool SampleNode(uint32_t node);
  /** SampleNode for every node (at a run's end, so the last measures are the final ones);
   *  split: every process calls it, and it checks the sum over them. */
  bool SampleHostMemory();
  static constexpr uint32_t kNodeEventsPerSample = 4096;
  /**
   * The windows a workload runs the cluster's events in: the split run's
   * (ClusterConfig::split), or in one process windows of its own over a world of this
   * process alone, made on first use. A workload that runs in them stops where every process
   * of a split run stops (a limit, a failure, at a window's end), so its results do not
   * depend on the split, K = 1 included. From the first use in one process, the
   * touched-memory limit is checked at window ends (as split, from the start).
   */
  distrib::SplitRun& windows();
  /** Each node's host memory as of its last measure. */
  const std::vector<HostMemoryUse>& host_memory_use() const { return host_use_; }
  /** The nodes' peaks summed: the host memory a cluster of them needs (each node's own, at
   *  its own most). */
  uint64_t touched_peak_bytes() const;
  /** Why the nodes are over touched_limit_bytes; ok while they have not been. */
  const Status& touched_limit_error() const { return touched_limit_error_; }

  /** Every endpoint, ordered by adapter then window (closed windows left out). */
  const std::vector<WindowProcess*>& endpoints() const;
  WindowProcess& endpoint(uint32_t adapter_id, uint32_t window);
  /** True if the window has an endpoint (it is open and not being closed). */
  bool HasEndpoint(uint32_t adapter_id, uint32_t window) const;

  /**
   * The process on a window exits and the driver closes the window: its endpoint and HAL
   * go at once; `done` runs when the driver has released the window's memory.
   */
  Status CloseWindow(uint32_t adapter_id, uint32_t window, std::function<void()> done = nullptr);
  /** Opens a closed window again for the job, with a fresh HAL and endpoint. */
  Status OpenWindow(uint32_t adapter_id, uint32_t window);
  /** Adapter recovery: resets the adapter and reopens every window it had open. */
  Status RecoverAdapter(uint32_t adapter_id);
  /**
   * Runs `fn` whenever the window becomes fatal (an RDMA protection failure stopped it), on
   * this and every later endpoint of the window: the window's owner is told.
   */
  void OnWindowFatal(uint32_t adapter_id, uint32_t window, std::function<void()> fn);
  /**
   * The owner's answer to a fatal window: closes it and, once the driver has released it,
   * opens it again (fresh FIFOs, state open) and runs `reopened`.
   */
  Status CloseAndReopenWindow(uint32_t adapter_id, uint32_t window, std::function<void()> reopened);
  uint32_t job_key() const { return job_key_; }

  // RDMA (only when ClusterConfig::rdma_host_bytes > 0).
  bool rdma_enabled() const { return !rdma_.empty(); }
  /** The job's virtual memory on a node. */
  host::AddressSpace& address_space(uint32_t node) { return *rdma_[node]->space; }
  /** The node-global TCE tables of a node. */
  driver::TceTables& tce_tables(uint32_t node) { return *rdma_[node]->tables; }
  /** The rCxt pool of an adapter. */
  driver::RcxtPool& rcxts(uint32_t adapter_id) { return *adapters_[adapter_id]->rcxts; }
  /**
   * The HAL port of a window for a task's transport: its endpoint and rCxt pool are looked up
   * on every use (a recovery reopens the window; a closed window loses what is sent).
   */
  std::unique_ptr<hal::Port> MakePort(uint32_t adapter_id, uint32_t window);
  /**
   * A task's host on `node`: simulated time, the job's address space and TCE tables. Its
   * timers run on `clock` when given (an MPI job's clock notes which rank they belong to), else
   * on the cluster's event queue.
   */
  std::unique_ptr<hal::TaskHost> MakeTaskHost(uint32_t node, kernel::Clock* clock = nullptr);
  /**
   * Reboots a node's operating system: its TCE tables are rebuilt with a new key seed (the
   * job's registrations are gone) and its adapters are recovered.
   */
  Status RebootNode(uint32_t node);

 private:
  explicit Cluster(const ClusterConfig& config);
  /** Builds the HAL window and endpoint for an open window. */
  void Attach(uint32_t adapter_id, const driver::WindowInfo& info);
  /** OnWindowFatal's owners, by (adapter, window). */
  std::map<std::pair<uint32_t, uint32_t>, std::function<void()>> fatal_owners_;
  struct AdapterSlot {
    std::unique_ptr<hw::func::AdapterModel> hw;
    std::unique_ptr<hw::func::FuncDeviceAccess> access;
    std::unique_ptr<driver::AdapterDriver> driver;
    /** Indexed by window number; null while the window is closed. */
    std::vector<std::unique_ptr<hal::Window>> windows;
    std::vector<std::unique_ptr<WindowProcess>> endpoints;
    std::unique_ptr<driver::RcxtPool> rcxts;
    uint32_t node = 0;
  };
  /** A node's RDMA host state. */
  struct NodeRdma {
    std::unique_ptr<host::AddressSpace> space;
    std::unique_ptr<driver::TceTables> tables;
    uint32_t boots = 0;
  };
  /** Builds (or, after a reboot, rebuilds) a node's TCE tables and attaches its adapters. */
  Status SetUpTces(uint32_t node);
  /** Adapter `a` of node `n` on the backend, attached to the fabric, its driver initialised
   *  and every window open. */
  Status AddAdapter(uint32_t n, uint32_t a);
  /** Measures `node` and updates its peak and the sum of the latest measures. */
  void MeasureNode(uint32_t node);
  /** From now on the sum of the nodes' measures is checked against touched_limit_bytes only
   *  at the ends of `windows`' windows (summed over its processes). */
  void LimitTouchedAtWindowEnds(distrib::SplitRun& windows);
  /** Sets touched_limit_error() if the sum of the latest measures is over the limit (one
   *  process; a split run decides at window ends, on every process's sum). */
  bool CheckTouchedLimit();
  /** Sets touched_limit_error() if `total` bytes touched is over the limit; false if it is. */
  bool CheckTouchedTotal(uint64_t total);

  ClusterConfig config_;
  std::unique_ptr<Backend> backend_;
  /** The backend has started (Create got that far): Finish is due at the end. */
  bool started_ = false;
  kernel::EventQueue events_;
  kernel::QueueClock clock_{events_};
  std::unique_ptr<SwitchFabric> fabric_;
  std::vector<std::unique_ptr<host::HostMemory>> hosts_;
  /** Indexed like hosts_. */
  std::vector<HostMemoryUse> host_use_;
  /** The sum of the nodes' latest measures. */
  uint64_t touched_bytes_ = 0;
  Status touched_limit_error_;
  /** The limit is checked at window ends (LimitTouchedAtWindowEnds), not at each measure. */
  bool windowed_limit_ = false;
  /** Unsplit, once windows() was asked for: a world of this process alone and its windows. */
  std::unique_ptr<distrib::SoloWorld> solo_world_;
  std::unique_ptr<distrib::SplitRun> solo_windows_;
  std::vector<std::unique_ptr<AdapterSlot>> adapters_;
  /** endpoints(): rebuilt when asked for after a window opened or closed (a cluster opens one
   *  per node: rebuilding at each would cost the square of the nodes). */
  mutable std::vector<WindowProcess*> endpoints_;
  mutable bool endpoints_stale_ = false;
  /** After adapters_: the TCE tables free their memory through an adapter. */
  std::vector<std::unique_ptr<NodeRdma>> rdma_;
  /** TCE key seeds: node n's boot b takes draw n * 64 + b (nodes are set up in order). */
  RngDraws tce_key_seeds_;
  uint32_t job_key_ = 0;
};

}  // namespace nicsim::sim
