// SPDX-License-Identifier: Apache-2.0
// Scenario execution and the stats.json builder. Only wall_* fields depend on the wall
// clock; everything else is a function of the scenario and its seed.
#include "sim/run/run_scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "abi/rdma.h"
#include "firmware/counters.h"
#include "sim/cluster/cluster_params.h"
#include "sim/cluster/mpi_job_params.h"
#include "sim/distrib/merge_stats.h"
#include "sim/distrib/partition_map.h"
#include "sim/distrib/split_records.h"
#include "sim/distrib/split_run.h"
#include "sim/distrib/split_support.h"
#include "sim/fabric/pcap_writer.h"
#include "sim/mpirun/mpi_program.h"
#include "sim/mpirun/mpi_program_params.h"
#include "sim/observe/timeline_writer.h"
#include "sim/observe/trace_writer.h"
#include "sim/run/run_outputs.h"
#include "sim/run/workload_checks.h"
#include "sim/workloads/mpi_workloads.h"
#include "sim/workloads/workload_params.h"

namespace nicsim::sim {

namespace {

/** A workload's config from the run's values, which the parameter table has checked: its
 *  declarations have no other way to fail. */
template <class Config>
Config Read(const ParamDecls<Config>& decls, const ParamValues& p) {
  Config c;
  const Status st = decls.Read(p, &c);
  NICSIM_CHECK(st.ok(), "%s", st.message().c_str());
  return c;
}

}  // namespace

Result<ClusterConfig> ClusterConfigFromParams(const ParamValues& p) {
  ClusterConfig c;
  if (Status st = ClusterParams().Read(p, &c); !st.ok()) return st;
  if (uint64_t{c.nodes} * c.adapters_per_node > 0xFFFF) {
    return Status::Error("nodes * adapters_per_node must be at most 65535");
  }
  // The SystemC host bus is the DMA path: same latency and bandwidth as the functional model.
  c.systemc.bus_latency_ps = c.timing.dma_latency_ps;
  c.systemc.bus_ps_per_byte = c.timing.dma_ps_per_byte;
  if (!c.rtl_vcd_prefix.empty() && c.backend != BackendKind::kRtl) {
    return Status::Error(
        "rtl.vcd: only the rtl backend has Verilated blocks to trace (backend is '" +
        p.String("backend") + "')");
  }
  // Each its own message, naming the parameter at fault (LocateParamError adds where it was set).
  const std::string tasks = "adapter.tasks (" + std::to_string(c.microcode.tasks) + "), got ";
  if (c.microcode.rx_tasks > c.microcode.tasks) {
    return Status::Error("adapter.rx_tasks must be at most " + tasks +
                         std::to_string(c.microcode.rx_tasks));
  }
  if (c.microcode.tx_tasks > c.microcode.tasks) {
    return Status::Error("adapter.tx_tasks must be at most " + tasks +
                         std::to_string(c.microcode.tx_tasks));
  }
  const Status scopes =
      CheckFaultRuleScopes(c.fabric.fault_rules, c.fabric.paths, c.nodes * c.adapters_per_node);
  if (!scopes.ok()) return Status::Error("fabric.faults: " + scopes.message());
  // The RDMA workload turns RDMA on with room for its buffers.
  if (p.String("workload") == "rdma_sweep") {
    c.rdma_host_bytes = RdmaSweepHostBytes(Read(RdmaSweepParams(), p));
  }
  if (p.String("workload") == "ip_exchange") c.rdma_host_bytes = IpExchangeHostBytes();
  if (p.String("workload") == "dlm_blocks") {
    c.rdma_host_bytes = DlmBlocksHostBytes(Read(DlmBlocksParams(), p), c.nodes);
  }
  return c;
}

namespace {

bool IsMpiWorkload(const ParamValues& p) { return p.String("workload").rfind("mpi_", 0) == 0; }

Result<WorkloadResult> RunMpiWorkload(MpiJob& job, const ParamValues& p,
                                      const std::vector<std::string>& program) {
  const std::string& workload = p.String("workload");
  if (workload == "mpi_program") {
    if (program.empty()) {
      return Status::Error(
          "workload mpi_program runs a program of yours: start it with "
          "`nicsim mpirun -n N [SCENARIO] PROGRAM [ARGS]`");
    }
    MpiProgramConfig c = Read(MpiProgramParams(), p);
    c.argv = program;
    return RunMpiProgram(job, c);
  }
  if (workload == "mpi_pingpong") return RunMpiPingPong(job, Read(MpiPingPongParams(), p));
  if (workload == "mpi_collectives") {
    // Sizes and calls per size are mpi_pingpong's parameters.
    const MpiPingPongConfig pingpong = Read(MpiPingPongParams(), p);
    MpiCollectivesConfig c = Read(MpiCollectivesParams(), p);
    c.sizes = pingpong.sizes;
    c.iterations = pingpong.iterations;
    return RunMpiCollectives(job, c);
  }
  if (workload == "mpi_one_sided") {
    // Sizes and rounds per size are mpi_pingpong's parameters.
    const MpiPingPongConfig pingpong = Read(MpiPingPongParams(), p);
    return RunMpiOneSided(job, MpiOneSidedConfig{pingpong.sizes, pingpong.iterations});
  }
  return RunMpiRandomAlltoall(job, Read(MpiAlltoallParams(), p));
}

Result<WorkloadResult> RunWorkload(Cluster& cluster, const ParamValues& p) {
  const std::string& workload = p.String("workload");
  if (workload == "pingpong_sweep") return RunPingPongSweep(cluster, Read(PingPongParams(), p));
  if (workload == "rdma_sweep") return RunRdmaSweep(cluster, Read(RdmaSweepParams(), p));
  if (workload == "dlm_blocks") return RunDlmBlocks(cluster, Read(DlmBlocksParams(), p));
  if (workload == "ip_exchange") return RunIpExchange(cluster, Read(IpExchangeParams(), p));
  if (workload == "close_under_load") return RunCloseUnderLoad(cluster, Read(LifecycleParams(), p));
  if (workload == "recovery_under_load") {
    return RunRecoveryUnderLoad(cluster, Read(LifecycleParams(), p));
  }
  if (workload == "stream") return RunStream(cluster, Read(StreamParams(), p));
  return RunRandomExchange(cluster, Read(ExchangeParams(), p));
}

/** Host memory reserved per rank of a program run, and for all its ranks at most. */
constexpr uint64_t kProgramRankBytes = uint64_t{8} << 30;
constexpr uint64_t kProgramJobBytes = uint64_t{16} << 40;

}  // namespace

Result<MpiJobConfig> MpiJobConfigFromParams(const ParamValues& p) {
  Result<ClusterConfig> cluster = ClusterConfigFromParams(p);
  if (!cluster.ok()) return cluster.status();
  MpiJobConfig c;
  c.cluster = *cluster;
  if (Status st = MpiJobParams().Read(p, &c); !st.ok()) return st;
  // Room for the ranks' staging and landing areas and the workloads' buffers.
  const uint64_t largest = static_cast<uint64_t>(std::max<int64_t>(
      1, *std::max_element(p.IntList("mpi.sizes").begin(), p.IntList("mpi.sizes").end())));
  // Sends staged and receives landed for a window of messages each way, at power-of-two
  // sizes, plus room for the registration cache's granularity.
  uint64_t message = std::max<uint64_t>(largest, p.SizeBytes("mpi.alltoall_max_size"));
  uint64_t pow2 = 4096;
  while (pow2 < message) pow2 *= 2;
  uint64_t per_rank =
      (4 * static_cast<uint64_t>(p.Int("mpi.window")) + 8) * pow2 + (uint64_t{64} << 20);
  if (p.String("workload") == "mpi_alltoall") {
    // Every message of a rank is sent at once: each is staged at the sender and, once its
    // request to send arrives, given a landing area at the receiver. Room for all of them
    // (host memory is only touched where it is used), so no pull falls back to packet mode
    // for want of memory.
    uint64_t area = 4096;
    while (area < p.SizeBytes("mpi.alltoall_max_size")) area *= 2;
    // A complete exchange has at most its window of steps in flight (0: all n - 1).
    const uint64_t window = static_cast<uint64_t>(p.Int("mpi.alltoall_window"));
    const uint64_t in_flight = p.Probability("mpi.alltoall_large_pairs") == 0
                                   ? static_cast<uint64_t>(p.Int("mpi.alltoall_messages"))
                               : window == 0 || window >= c.ranks ? c.ranks - 1
                                                                  : window;
    per_rank += 2 * in_flight * area;
  }
  if (p.String("workload") == "mpi_one_sided") {
    // A window, a send and a receive buffer per rank, each an AllocMem area (a 16 MiB page).
    per_rank += 3 * uint64_t{mpi::Mpi::kAllocMemMaxBytes};
  }
  uint64_t ring_pages = 0;  // 64 KiB pages of eager RDMA rings per rank
  if (p.Bool("ulp.eager_rdma")) {
    // Eager RDMA rings: per peer, the ring it writes here and this rank's staging copy of the
    // one it writes there, at the larger ring size, and one more generation of each while a
    // ring is replaced or lingers; mapped on 64 KiB pages. Reserved room costs only what is
    // written, so no ring is refused for want of it (always-large rings at 1,024 ranks need
    // 2 x 1,023 x 320 KiB).
    const auto slots = static_cast<uint64_t>(p.Int("ulp.eager_slots"));
    const auto large_slots = static_cast<uint64_t>(p.Int("ulp.eager_large_slots"));
    const uint64_t ring =
        std::max(p.SizeBytes("ulp.eager_small_slot") * slots,
                 p.SizeBytes("ulp.eager_large_slot") * (large_slots > 0 ? large_slots : slots));
    const uint64_t page = uint64_t{64} << 10;
    ring_pages = 4 * (c.ranks - 1) * ((ring + page - 1) / page);
    per_rank += ring_pages * page;
  }
  if (p.String("workload") == "mpi_program") {
    // A program's message sizes are its own: room for the largest an MPI count of bytes can
    // name, staged at the sender and landed at the receiver (reserved, not spent; what is
    // written counts against host.touched_limit), within 16 TiB of address space in all.
    const uint64_t ranks = std::max<uint64_t>(c.ranks, 1);
    per_rank = std::max(per_rank, std::min(kProgramRankBytes, kProgramJobBytes / ranks));
  }
  const uint64_t ranks_per_node = (c.ranks + c.cluster.nodes - 1) / c.cluster.nodes;
  c.cluster.rdma_host_bytes =
      std::max<uint64_t>(c.cluster.rdma_host_bytes, per_rank * ranks_per_node);
  // Every ring is registered on its own in the job's one 64 KiB TCE table, which must hold
  // them all besides the TCEs the table has for landing areas (always-large rings at 1,024
  // ranks take 4 x 1,023 x 5 TCEs; a table of 4,096 held 819 of them). TCEs cost host
  // memory only where written.
  const uint64_t entries = c.cluster.tce.entries_64k + ring_pages * ranks_per_node;
  const uint64_t most = (abi::kPvoOffsetMask + 1) >> abi::kPageShift64K;
  if (entries > most) {
    return Status::Error(fmt::format(
        "ulp.eager_rdma: the rings of {} ranks per node need {} TCEs of 64 KiB, a table "
        "holds at most {}; use smaller ulp.eager_large_slot or fewer ranks",
        ranks_per_node, entries, most));
  }
  c.cluster.tce.entries_64k = static_cast<uint32_t>(entries);
  return c;
}

namespace {

/** This process's partition of the nodes in a split run (run.partition); null if not split. */
Result<std::unique_ptr<distrib::SplitRun>> MakeSplit(const Scenario& scenario,
                                                     const ClusterConfig& config,
                                                     const RunOptions& options) {
  if (options.world == nullptr) return std::unique_ptr<distrib::SplitRun>();
  if (Status s = distrib::CheckSplitSupported(scenario.params); !s.ok()) return s;
  Result<distrib::PartitionMap> map =
      config.partition == ClusterConfig::Partition::kRoundRobin
          ? distrib::PartitionMap::RoundRobin(config.nodes, options.world->size())
          : distrib::PartitionMap::Contiguous(config.nodes, options.world->size());
  if (!map.ok()) return map.status();
  return std::make_unique<distrib::SplitRun>(*options.world, std::move(*map));
}

/** The model a run drives: an MPI workload's job (its own cluster, a transport and MPI per
 *  rank) or a bare cluster. */
struct RunModel {
  std::unique_ptr<MpiJob> job;
  std::unique_ptr<Cluster> owned;
  Cluster* cluster = nullptr;
};

Status BuildModel(const Scenario& scenario, const ClusterConfig& config, RunModel* model) {
  if (IsMpiWorkload(scenario.params)) {
    Result<MpiJobConfig> jc = MpiJobConfigFromParams(scenario.params);
    if (!jc.ok()) return LocateParamError(scenario, jc.status());
    jc->cluster.trace = config.trace;
    jc->cluster.host_trace = config.host_trace;
    jc->cluster.split = config.split;
    Result<std::unique_ptr<MpiJob>> made = MpiJob::Create(*jc);
    if (!made.ok()) return made.status();
    model->job = std::move(*made);
    model->cluster = &model->job->cluster();
  } else {
    Result<std::unique_ptr<Cluster>> made = Cluster::Create(config);
    if (!made.ok()) return made.status();
    model->owned = std::move(*made);
    model->cluster = model->owned.get();
  }
  return Status();
}

/** A split run's stats, gathered and merged on rank 0, and its summary line. */
RunOutcome SplitOutcome(distrib::SplitRun& split, Cluster& cluster, const Scenario& scenario,
                        const WorkloadResult& result, double wall_s) {
  RunOutcome outcome;
  distrib::Collectives& world = split.world();
  StatsScope scope;
  scope.local_nodes = &split.local_nodes();
  scope.now_ps = world.Max(cluster.events().now_ps());
  const nlohmann::json mine = BuildStats(cluster, scenario, result, wall_s, scope);
  std::vector<nlohmann::json> parts;
  for (const std::string& text : world.GatherToRoot(mine.dump())) {
    parts.push_back(nlohmann::json::parse(text));
  }
  const uint64_t crossed = world.Sum(split.frames_sent());
  // Microseconds summed over the processes, reported as the mean per process.
  const auto mean_s = [&](double s) {
    return static_cast<double>(world.Sum(static_cast<uint64_t>(s * 1e6))) / 1e6 / world.size();
  };
  const double run_s = mean_s(split.run_s());
  const double sync_s = mean_s(split.sync_s());
  outcome.writes_outputs = world.rank() == 0;
  outcome.split_summary = fmt::format(
      "split over {} {}: {} windows of {} ns lookahead, {} frames between partitions; "
      "per partition {:.3f} s running events, {:.3f} s synchronising\n",
      world.size(), world.members(), split.windows(), split.lookahead_ps() / 1000, crossed, run_s,
      sync_s);
  outcome.stats = outcome.writes_outputs ? distrib::MergeStats(parts) : mine;
  return outcome;
}

}  // namespace

Result<RunOutcome> RunScenario(const Scenario& scenario, const RunOptions& options) {
  Result<ClusterConfig> config = ClusterConfigFromParams(scenario.params);
  if (!config.ok()) return LocateParamError(scenario, config.status());
  const Status workload = CheckWorkloadParams(scenario);
  if (!workload.ok()) return LocateParamError(scenario, workload);
  Result<std::unique_ptr<distrib::SplitRun>> made_split = MakeSplit(scenario, *config, options);
  if (!made_split.ok()) return made_split.status();
  std::unique_ptr<distrib::SplitRun> split = std::move(*made_split);
  config->split = split.get();
  // Checked before any output file is opened.
  const uint32_t adapters = config->nodes * config->adapters_per_node;
  if (options.selection.max_listed_adapter() >= static_cast<int32_t>(adapters)) {
    return Status::Error(
        fmt::format("--trace-adapters: adapter {} is not in this run ({} adapters: 0-{})",
                    options.selection.max_listed_adapter(), adapters, adapters - 1));
  }
  RunOutputs outputs;
  if (Status s = OpenOutputs(options, split.get(), &outputs); !s.ok()) return s;
  // The cluster takes one sink: both outputs share the events through a fan-out.
  TraceFanOut sinks;
  if (split != nullptr) {
    sinks.Add(outputs.split_records.trace.get());
    sinks.Add(outputs.split_records.timeline.get());
  } else {
    sinks.Add(outputs.trace.get());
    sinks.Add(outputs.timeline.get());
  }
  config->trace = sinks.Sink();
  // Host events (frames consumed) go to the text trace only.
  config->host_trace = split != nullptr
                           ? static_cast<HostTraceSink*>(outputs.split_records.trace.get())
                           : outputs.trace.get();
  const auto wall_start = std::chrono::steady_clock::now();
  RunModel model;
  if (Status s = BuildModel(scenario, *config, &model); !s.ok()) return s;
  Cluster* cluster = model.cluster;
  outputs.split_records.Bind(&cluster->events());
  if (split != nullptr) {
    cluster->fabric().SetCapture(outputs.split_records.capture.get());
  } else {
    cluster->fabric().SetCapture(outputs.pcap.get());
  }
  Result<WorkloadResult> result = model.job
                                      ? RunMpiWorkload(*model.job, scenario.params, options.program)
                                      : RunWorkload(*cluster, scenario.params);
  if (!result.ok()) return result.status();
  // Let the adapters finish what they started (completion steps after the last delivery).
  RunToQuiet(*cluster);
  // The last sample of host memory: a run over host.touched_limit fails however short it was.
  if (!cluster->SampleHostMemory() && !result->stalled) {
    result->Stall(Status::Error(fmt::format("at the end of the run (t={}ns): {}",
                                            cluster->events().now_ps() / 1000,
                                            cluster->touched_limit_error().message())));
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (Status s = CloseOutputs(options, split.get(), outputs); !s.ok()) return s;
  RunOutcome outcome;
  if (split != nullptr) {
    outcome = SplitOutcome(*split, *cluster, scenario, *result, wall_s);
  } else {
    outcome.stats = BuildStats(*cluster, scenario, *result, wall_s);
  }
  outcome.workload = std::move(*result);
  // The func backend only: the SystemC backends close their waveform files on destruction.
  if (options.leave_model_to_exit && config->backend == BackendKind::kFunc) {
    // Not destroyed: the process ends next, and the memory goes with it.
    static_cast<void>(model.job.release());
    static_cast<void>(model.owned.release());
  }
  return outcome;
}

nlohmann::json BuildStats(Cluster& cluster, const Scenario& scenario, const WorkloadResult& result,
                          double wall_time_s, const StatsScope& scope) {
  auto counted_node = [&](uint32_t node) {
    return scope.local_nodes == nullptr || (*scope.local_nodes)[node] != 0;
  };
  const uint64_t now_ps = scope.now_ps != UINT64_MAX ? scope.now_ps : cluster.events().now_ps();
  nlohmann::json drops = nlohmann::json::object();
  for (std::string_view name : fw::kDropReasonNames) drops[std::string(name)] = 0;
  for (std::string_view name : kFabricDropNames) drops[std::string(name)] = 0;
  // Copies of a message already delivered, discarded by the workload that received them.
  drops["duplicate_delivery"] = result.messages_duplicated;
  uint64_t packets_delivered = 0;
  nlohmann::json adapters = nlohmann::json::array();
  for (uint32_t id = 0; id < cluster.adapter_count(); ++id) {
    if (!counted_node(cluster.NodeOf(id))) continue;
    const hw::func::AdapterModel& a = cluster.adapter(id);
    const fw::Counters& fc = a.firmware_counters();
    const hw::func::AdapterCounters& hc = a.counters();
    packets_delivered += fc.rx_packets + fc.rdma_packets_in;
    for (size_t r = 0; r < fc.drops.size(); ++r) {
      drops[std::string(fw::kDropReasonNames[r])] =
          drops[std::string(fw::kDropReasonNames[r])].get<uint64_t>() + fc.drops[r];
    }
    nlohmann::json waits = nlohmann::json::object();
    for (size_t r = 1; r < fc.waits.size(); ++r)
      waits[std::string(fw::kResourceNames[r])] = fc.waits[r];
    nlohmann::json entry = {{"adapter", id}, {"waits", waits}};
    for (const auto& field : fw::kCounterFields) entry[std::string(field.name)] = fc.*field.member;
    for (const auto& field : hw::func::kAdapterCounterFields) {
      entry[std::string(field.name)] = hc.*field.member;
    }
    adapters.push_back(std::move(entry));
    // Backend-specific counters (the rtl backend's rtl_ops and rtl_mismatches).
    for (const auto& [name, value] : a.ExtraCounters()) adapters.back()[std::string(name)] = value;
  }
  const FabricCounters& fab = cluster.fabric().counters();
  for (const auto& [reason, count] : fab.drops)
    drops[reason] = drops[reason].get<uint64_t>() + count;

  // Reserved is what each node was given, touched what it had written (HostMemory), at the
  // end and at most, each node measured after every 4,096 of its events.
  nlohmann::json host_nodes = nlohmann::json::array();
  uint64_t reserved_bytes = 0;
  uint64_t touched_bytes = 0;
  // The nodes' peaks summed (Cluster::touched_peak_bytes); split: this partition's share,
  // which rank 0 sums.
  uint64_t touched_peak_bytes = 0;
  for (uint32_t node = 0; node < cluster.host_memory_use().size(); ++node) {
    if (!counted_node(node)) continue;
    const HostMemoryUse& use = cluster.host_memory_use()[node];
    touched_peak_bytes += use.touched_peak_bytes;
    host_nodes.push_back({{"node", node},
                          {"reserved_bytes", use.reserved_bytes},
                          {"touched_bytes", use.touched_bytes},
                          {"touched_peak_bytes", use.touched_peak_bytes}});
    reserved_bytes += use.reserved_bytes;
    touched_bytes += use.touched_bytes;
  }
  const nlohmann::json host_memory = {{"reserved_bytes", reserved_bytes},
                                      {"touched_bytes", touched_bytes},
                                      {"touched_peak_bytes", touched_peak_bytes},
                                      {"nodes", host_nodes}};

  nlohmann::json params = nlohmann::json::object();
  for (std::string_view name : ParamValues::Names()) {
    params[std::string(name)] = scenario.params.ToText(name);
  }
  const double sim_s = static_cast<double>(now_ps) * 1e-12;
  nlohmann::json stats = {
      {"scenario", scenario.name},
      {"seed", scenario.params.Int("seed")},
      {"backend", scenario.params.String("backend")},
      {"backend_model", cluster.DescribeBackend()},
      {"quantum_ns", cluster.DescribeBackend()["quantum_ns"]},
      {"sim_time_ns", now_ps / 1000},
      {"wall_time_s", wall_time_s},
      {"wall_events_per_second", wall_time_s > 0 ? cluster.events().events_run() / wall_time_s : 0},
      {"events", cluster.events().events_run()},
      {"packets_delivered", packets_delivered},
      {"messages_sent", result.messages_sent},
      {"messages_delivered", result.messages_delivered},
      {"messages_lost", result.messages_lost},
      {"messages_duplicated", result.messages_duplicated},
      {"messages_damaged", result.messages_damaged},
      {"stalled", result.stalled},
      {"verdict", result.passed() ? "pass" : "fail"},
      {"bytes_delivered", result.bytes_delivered},
      {"sim_bandwidth_mbps", sim_s > 0 ? result.bytes_delivered / sim_s / 1e6 : 0},
      {"drops", drops},
      {"errors", result.error_count},
      {"error_messages", result.errors},
      {"fabric",
       {{"frames_routed", fab.frames_routed},
        {"frames_duplicated", fab.frames_duplicated},
        {"frames_reordered", fab.frames_reordered},
        {"frames_corrupted", fab.frames_corrupted},
        {"frames_per_path", fab.frames_per_path},
        {"port_buffer_peak_bytes", fab.port_buffer_peak_bytes}}},
      {"adapters", adapters},
      {"host_memory", host_memory},
      {"workload", result.results},
      {"params", params},
  };
  return stats;
}

}  // namespace nicsim::sim
