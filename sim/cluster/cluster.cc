// SPDX-License-Identifier: Apache-2.0
// Cluster assembly: the only place that picks concrete hardware and wires it together.
// One job spans the cluster; its protection key is drawn from the scenario seed.
#include "sim/cluster/cluster.h"

#include <algorithm>
#include <string>

#include "abi/limits.h"
#include "base/check.h"
#include "base/packed_region.h"
#include "base/rng.h"
#include "sim/cluster/node_memory.h"
#include "sim/distrib/partition_map.h"
#include "sim/distrib/solo_world.h"
#include "sim/distrib/split_run.h"

namespace nicsim::sim {

Cluster::Cluster(const ClusterConfig& config)
    : config_(config), tce_key_seeds_(config.seed, "tce_key_seed") {}
Cluster::~Cluster() {
  if (backend_ != nullptr && started_) backend_->Finish();
  StopClearingFreedMemory();
  rdma_.clear();
  // Endpoints unwatch host memory and windows close before the hardware goes away.
  for (auto& slot : adapters_) {
    slot->endpoints.clear();
    slot->windows.clear();
    slot->driver.reset();
  }
}

Result<std::unique_ptr<Cluster>> Cluster::Create(const ClusterConfig& config) {
  if (config.nodes == 0 || config.adapters_per_node == 0 || config.windows_per_adapter == 0) {
    return Status::Error("a cluster needs at least one node, adapter and window");
  }
  if (config.windows_per_adapter > abi::kMaxWindows) {
    return Status::Error("windows_per_adapter must be at most " + std::to_string(abi::kMaxWindows));
  }
  const uint64_t adapters = uint64_t{config.nodes} * config.adapters_per_node;
  if (adapters > 0xFFFF) return Status::Error("at most 65535 adapters in a cluster");
  std::unique_ptr<Cluster> c(new Cluster(config));
  Result<std::unique_ptr<Backend>> backend = MakeBackend(c->config_);
  if (!backend.ok()) return backend.status();
  c->backend_ = std::move(*backend);
  FabricConfig fabric = config.fabric;
  fabric.seed = config.seed;
  fabric.link_ps_per_byte = config.timing.link_ps_per_byte;
  c->fabric_ = std::make_unique<SwitchFabric>(c->events_, fabric);
  if (config.split != nullptr) {
    // Before any set-up: other partitions' nodes are built here but their events never run.
    c->events_.KeepOnly(&config.split->local_nodes());
    c->fabric_->SetPartition(&config.split->local_nodes(), config.split->outbox());
    c->LimitTouchedAtWindowEnds(*config.split);
  }

  NodeMemory memory;
  memory.line_bytes = config.line_bytes;
  memory.recv_frames = config.recv_frames;
  memory.send_slots = config.send_slots;
  memory.windows = config.windows_per_adapter * config.adapters_per_node;
  memory.rdma_host_bytes = config.rdma_host_bytes;
  memory.tce = config.tce;
  // Reserved, not spent: a node's memory costs what is written into it (touched_limit_bytes
  // bounds that, checked as the run goes).
  const uint64_t node_bytes = NodeHostBytes(memory);
  Rng keys(config.seed, "job_keys");
  c->job_key_ = static_cast<uint32_t>(keys.Next() | 1);

  for (uint32_t n = 0; n < config.nodes; ++n) {
    // A node's set-up (driver initialisation, windows opening) schedules as the node.
    kernel::EventQueue::OwnerScope as_node(c->events_, n);
    // Its objects lie together (an event of a large cluster finds them cold).
    base::PackNodeState packed;
    c->hosts_.push_back(std::make_unique<host::HostMemory>(node_bytes));
    c->host_use_.push_back(HostMemoryUse{node_bytes, 0, 0});
    for (uint32_t a = 0; a < config.adapters_per_node; ++a) {
      if (Status s = c->AddAdapter(n, a); !s.ok()) return s;
    }
    if (config.rdma_host_bytes > 0) {
      c->rdma_.push_back(std::make_unique<NodeRdma>());
      c->rdma_.back()->space =
          std::make_unique<host::AddressSpace>(*c->hosts_.back(), config.seed + n);
      if (Status s = c->SetUpTces(n); !s.ok()) return s;
    }
  }
  if (Status s = c->backend_->Start(c->events_); !s.ok()) return s;
  c->started_ = true;
  // Every node's first measure is its set-up's; from then on each is measured after its
  // own events.
  c->SampleHostMemory();
  Cluster* cluster = c.get();
  c->events_.SetOwnerTick(kNodeEventsPerSample, config.nodes,
                          [cluster](kernel::EventQueue::Owner n) { cluster->SampleNode(n); });
  return Result<std::unique_ptr<Cluster>>(std::move(c));
}

Status Cluster::AddAdapter(uint32_t n, uint32_t a) {
  const auto id = static_cast<uint16_t>(n * config_.adapters_per_node + a);
  auto slot = std::make_unique<AdapterSlot>();
  slot->node = n;
  slot->hw = backend_->MakeAdapter(events_, *hosts_.back(), id);
  slot->hw->SetTraceSink(config_.trace);
  slot->hw->ConnectFabric(fabric_->Attach(id, slot->hw.get(), n));
  slot->access = std::make_unique<hw::func::FuncDeviceAccess>(*slot->hw);
  slot->driver = std::make_unique<driver::AdapterDriver>(*slot->access);
  slot->driver->SetInterruptServiceTime(config_.interrupt_service_ps);
  if (config_.rdma_host_bytes > 0) {
    slot->rcxts =
        driver::RcxtPool::ForDriver(*slot->access, config_.microcode.rcxts, *slot->driver);
  }
  slot->windows.resize(config_.windows_per_adapter);
  slot->endpoints.resize(config_.windows_per_adapter);
  if (Status s = slot->driver->Init(); !s.ok()) return s;
  adapters_.push_back(std::move(slot));
  for (uint32_t w = 0; w < config_.windows_per_adapter; ++w) {
    if (Status s = OpenWindow(id, w); !s.ok()) return s;
  }
  return Status();
}

distrib::SplitRun& Cluster::windows() {
  if (config_.split != nullptr) return *config_.split;
  if (solo_windows_ == nullptr) {
    solo_world_ = std::make_unique<distrib::SoloWorld>();
    solo_windows_ = std::make_unique<distrib::SplitRun>(
        *solo_world_, *distrib::PartitionMap::Contiguous(config_.nodes, 1));
    LimitTouchedAtWindowEnds(*solo_windows_);
  }
  return *solo_windows_;
}

void Cluster::LimitTouchedAtWindowEnds(distrib::SplitRun& windows) {
  // host.touched_limit bounds every node's memory together: the processes sum their nodes'
  // latest measures after every window, and all stop at the window it is over.
  windowed_limit_ = true;
  windows.SetWindowLimit(
      distrib::WindowLimit{[this] { return touched_bytes_; },
                           [this](uint64_t total) { return !CheckTouchedTotal(total); },
                           [this] { return !touched_limit_error_.ok(); }});
}

void Cluster::MeasureNode(uint32_t node) {
  // Another process's node: set-up wrote its memory here too, but that process measures it.
  if (config_.split != nullptr && !config_.split->IsLocalNode(node)) return;
  HostMemoryUse& use = host_use_[node];
  const uint64_t now = hosts_[node]->TouchedBytes();
  touched_bytes_ = touched_bytes_ - use.touched_bytes + now;
  use.touched_bytes = now;
  use.touched_peak_bytes = std::max(use.touched_peak_bytes, now);
}

bool Cluster::SampleNode(uint32_t node) {
  MeasureNode(node);
  return CheckTouchedLimit();
}

bool Cluster::CheckTouchedLimit() {
  // A run in windows decides on the sum over its processes at window ends (the window limit).
  if (windowed_limit_) return touched_limit_error_.ok();
  return CheckTouchedTotal(touched_bytes_);
}

bool Cluster::CheckTouchedTotal(uint64_t total) {
  if (total > config_.touched_limit_bytes && touched_limit_error_.ok()) {
    touched_limit_error_ =
        Status::Error("the nodes had touched " + std::to_string(total) +
                      " bytes of simulated host memory, more than host.touched_limit (" +
                      std::to_string(config_.touched_limit_bytes) +
                      " bytes): raise it, or lower the sizes, counts or nodes");
  }
  return touched_limit_error_.ok();
}

bool Cluster::SampleHostMemory() {
  for (uint32_t n = 0; n < hosts_.size(); ++n) MeasureNode(n);
  // Checked here whether or not the run was in windows: the final measures come after the
  // last window's check.
  return CheckTouchedTotal(config_.split != nullptr ? config_.split->world().Sum(touched_bytes_)
                                                    : touched_bytes_);
}

uint64_t Cluster::touched_peak_bytes() const {
  uint64_t sum = 0;
  for (const HostMemoryUse& use : host_use_) sum += use.touched_peak_bytes;
  return sum;
}

void Cluster::Attach(uint32_t adapter_id, const driver::WindowInfo& info) {
  AdapterSlot& slot = *adapters_[adapter_id];
  slot.windows[info.window] =
      std::make_unique<hal::Window>(info, *slot.access, config_.return_batch);
  slot.endpoints[info.window] = std::make_unique<WindowProcess>(
      *slot.windows[info.window], *slot.driver, events_, *hosts_[slot.node],
      config_.poll_latency_ps, config_.wait_mode,
      config_.host_cpu ? config_.host_cpu(adapter_id, info.window) : HostCpu{});
  slot.endpoints[info.window]->SetHostTrace(config_.host_trace);
  slot.endpoints[info.window]->OnWindowFatal([this, key = std::make_pair(adapter_id, info.window)] {
    auto owner = fatal_owners_.find(key);
    if (owner != fatal_owners_.end()) owner->second();
  });
  endpoints_stale_ = true;
}

void Cluster::OnWindowFatal(uint32_t adapter_id, uint32_t window, std::function<void()> fn) {
  fatal_owners_[{adapter_id, window}] = std::move(fn);
}

Status Cluster::CloseAndReopenWindow(uint32_t adapter_id, uint32_t window,
                                     std::function<void()> reopened) {
  return CloseWindow(adapter_id, window,
                     [this, adapter_id, window, reopened = std::move(reopened)] {
                       const Status opened = OpenWindow(adapter_id, window);
                       NICSIM_CHECK(opened.ok(), "reopening window %u of adapter %u: %s", window,
                                    adapter_id, opened.message().c_str());
                       if (reopened) reopened();
                     });
}

const std::vector<WindowProcess*>& Cluster::endpoints() const {
  if (endpoints_stale_) {
    endpoints_.clear();
    for (const auto& slot : adapters_) {
      for (const auto& ep : slot->endpoints) {
        if (ep) endpoints_.push_back(ep.get());
      }
    }
    endpoints_stale_ = false;
  }
  return endpoints_;
}

Status Cluster::OpenWindow(uint32_t adapter_id, uint32_t window) {
  if (adapter_id >= adapters_.size() || window >= config_.windows_per_adapter) {
    return Status::Error("open window: no window " + std::to_string(window) + " on adapter " +
                         std::to_string(adapter_id));
  }
  driver::WindowRequest req;
  req.job_key = job_key_;
  req.recv_frames = config_.recv_frames;
  req.send_slots = config_.send_slots;
  Result<driver::WindowInfo> info = adapters_[adapter_id]->driver->OpenWindow(window, req);
  if (!info.ok()) return info.status();
  Attach(adapter_id, *info);
  return Status();
}

Status Cluster::CloseWindow(uint32_t adapter_id, uint32_t window, std::function<void()> done) {
  if (!HasEndpoint(adapter_id, window)) {
    return Status::Error("close window: window " + std::to_string(window) + " on adapter " +
                         std::to_string(adapter_id) + " is not open");
  }
  AdapterSlot& slot = *adapters_[adapter_id];
  slot.endpoints[window].reset();
  slot.windows[window].reset();
  endpoints_stale_ = true;
  return slot.driver->CloseWindow(window, std::move(done));
}

Status Cluster::RecoverAdapter(uint32_t adapter_id) {
  if (adapter_id >= adapters_.size()) return Status::Error("recover: no such adapter");
  AdapterSlot& slot = *adapters_[adapter_id];
  slot.driver->RecoverAdapter();
  // Recovery cleared SRAM: the TCE descriptors go back in; every rCxt is free again.
  if (slot.rcxts) slot.rcxts->OnRecovery();
  if (rdma_enabled() && rdma_[slot.node]->tables) {
    rdma_[slot.node]->tables->AttachAdapter(*slot.access);
  }
  for (uint32_t w = 0; w < slot.endpoints.size(); ++w) {
    if (!slot.endpoints[w]) continue;
    slot.endpoints[w].reset();
    slot.windows[w].reset();
    Result<driver::WindowInfo> info = slot.driver->ReopenWindow(w);
    if (!info.ok()) return info.status();
    Attach(adapter_id, *info);
  }
  endpoints_stale_ = true;
  return Status();
}

Status Cluster::SetUpTces(uint32_t node) {
  NodeRdma& rdma = *rdma_[node];
  rdma.tables.reset();
  driver::TceConfig tce = config_.tce;
  // Keys are seeded per node and per boot: the same buffer gets new keys after a reboot.
  tce.key_seed = tce_key_seeds_.At(uint64_t{node} * 64 + rdma.boots);
  std::vector<driver::DeviceAccess*> adapters;
  for (uint32_t a = 0; a < config_.adapters_per_node; ++a) {
    adapters.push_back(adapters_[node * config_.adapters_per_node + a]->access.get());
  }
  Result<std::unique_ptr<driver::TceTables>> tables =
      driver::TceTables::CreateForJob(adapters, tce, job_key_);
  if (!tables.ok()) return tables.status();
  rdma.tables = std::move(*tables);
  return Status();
}

Status Cluster::RebootNode(uint32_t node) {
  if (node >= config_.nodes || !rdma_enabled()) return Status::Error("reboot: no such RDMA node");
  ++rdma_[node]->boots;
  rdma_[node]->tables.reset();
  for (uint32_t a = 0; a < config_.adapters_per_node; ++a) {
    if (Status s = RecoverAdapter(node * config_.adapters_per_node + a); !s.ok()) return s;
  }
  return SetUpTces(node);
}

std::unique_ptr<hal::Port> Cluster::MakePort(uint32_t adapter_id, uint32_t window) {
  return std::make_unique<hal::Port>(
      hal::Peer{static_cast<uint16_t>(adapter_id), static_cast<uint16_t>(window)},
      [this, adapter_id, window]() -> hal::Endpoint* {
        return HasEndpoint(adapter_id, window) ? &endpoint(adapter_id, window) : nullptr;
      },
      [this, adapter_id] { return &rcxts(adapter_id); });
}

std::unique_ptr<hal::TaskHost> Cluster::MakeTaskHost(uint32_t node, kernel::Clock* clock) {
  return std::make_unique<hal::TaskHost>(
      clock != nullptr ? *clock : clock_, address_space(node),
      [this, node]() -> driver::TceTables& { return tce_tables(node); }, job_key_);
}

bool Cluster::HasEndpoint(uint32_t adapter_id, uint32_t window) const {
  return adapter_id < adapters_.size() && window < adapters_[adapter_id]->endpoints.size() &&
         adapters_[adapter_id]->endpoints[window] != nullptr;
}

WindowProcess& Cluster::endpoint(uint32_t adapter_id, uint32_t window) {
  NICSIM_CHECK(HasEndpoint(adapter_id, window), "no endpoint at adapter %u window %u", adapter_id,
               window);
  return *adapters_[adapter_id]->endpoints[window];
}

}  // namespace nicsim::sim
