// SPDX-License-Identifier: Apache-2.0
// Scenario execution and the stats.json builder. Only wall_* fields depend on the wall
// clock; everything else is a function of the scenario and its seed.
#include "sim/run_scenario.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "abi/rdma.h"
#include "firmware/counters.h"
#include "sim/fabric/pcap_writer.h"
#include "sim/observe/timeline_writer.h"
#include "sim/observe/trace_writer.h"
#include "sim/workload_params.h"
#include "sim/workloads/mpi_workloads.h"

namespace nicsim::sim {

namespace {

/** Copies a per-state cycle list into its array; an error names the parameter. */
template <size_t N>
Status CopyCycles(const ParamValues& p, const char* name, const char* what,
                  std::array<uint32_t, N>& out) {
  const std::vector<int64_t>& list = p.IntList(name);
  if (list.size() != N) {
    return Status::Error(std::string(name) + ": needs " + std::to_string(N) +
                         " entries (one per " + what + " state), got " +
                         std::to_string(list.size()));
  }
  std::copy(list.begin(), list.end(), out.begin());
  return Status();
}

/**
 * host.touched_limit's default: three quarters of the machine's physical memory, which leaves
 * the rest to the simulator's own structures and to the machine. No limit if it cannot be
 * read.
 */
uint64_t DefaultTouchedLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return UINT64_MAX;
  return static_cast<uint64_t>(pages) / 4 * 3 * static_cast<uint64_t>(page_bytes);
}

RdmaSweepConfig RdmaSweepFromParams(const ParamValues& p) {
  RdmaSweepConfig c;
  c.read = p.String("rdma.op") == "read";
  c.sizes = p.IntList("rdma.sizes");
  c.iterations = static_cast<uint32_t>(p.Int("rdma.iterations"));
  const std::string& page = p.String("rdma.page");
  c.page_shift = page == "4KiB" ? abi::kPageShift4K : page == "64KiB" ? abi::kPageShift64K
                                                                      : abi::kPageShift16M;
  return c;
}

}  // namespace

Result<ClusterConfig> ClusterConfigFromParams(const ParamValues& p) {
  ClusterConfig c;
  const std::string& backend = p.String("backend");
  if (backend == "dpdk") {
    return Status::Error("backend: 'dpdk' runs on a real port, not in a simulated cluster");
  }
  c.backend = backend == "func"      ? BackendKind::kFunc
              : backend == "systemc" ? BackendKind::kSystemc
                                     : BackendKind::kRtl;
  c.seed = static_cast<uint64_t>(p.Int("seed"));
  c.time_limit_ps = static_cast<uint64_t>(p.DurationPs("run.time_limit"));
  c.touched_limit_bytes = p.SizeBytes("host.touched_limit");
  if (c.touched_limit_bytes == 0) c.touched_limit_bytes = DefaultTouchedLimit();
  c.nodes = static_cast<uint32_t>(p.Int("nodes"));
  c.adapters_per_node = static_cast<uint32_t>(p.Int("adapters_per_node"));
  c.windows_per_adapter = static_cast<uint32_t>(p.Int("windows_per_adapter"));
  if (uint64_t{c.nodes} * c.adapters_per_node > 0xFFFF) {
    return Status::Error("nodes * adapters_per_node must be at most 65535");
  }
  c.line_bytes = static_cast<uint32_t>(p.Int("host.cache_line"));
  c.recv_frames = static_cast<uint32_t>(p.Int("window.recv_frames"));
  c.send_slots = static_cast<uint32_t>(p.Int("window.send_slots"));
  c.return_batch = static_cast<uint32_t>(p.Int("hal.return_batch"));
  c.poll_latency_ps = static_cast<uint64_t>(p.DurationPs("host.poll_latency"));
  c.timing.mmio_latency_ps = static_cast<uint64_t>(p.DurationPs("mmio.latency"));
  c.timing.dma_latency_ps = static_cast<uint64_t>(p.DurationPs("dma.latency"));
  c.timing.dma_ps_per_byte = 1e12 / p.RateBytesPerSec("dma.bandwidth");
  c.timing.link_ps_per_byte = 1e12 / p.RateBytesPerSec("link.bandwidth");
  c.timing.interrupt_latency_ps = static_cast<uint64_t>(p.DurationPs("host.interrupt_latency"));
  // The SystemC host bus is the DMA path: same latency and bandwidth as the functional model.
  c.systemc.bus_latency_ps = c.timing.dma_latency_ps;
  c.systemc.bus_ps_per_byte = c.timing.dma_ps_per_byte;
  c.systemc.quantum_ps = static_cast<uint64_t>(p.DurationPs("systemc.quantum"));
  c.rtl_vcd_prefix = p.String("rtl.vcd");
  if (!c.rtl_vcd_prefix.empty() && c.backend != BackendKind::kRtl) {
    return Status::Error(
        "rtl.vcd: only the rtl backend has Verilated blocks to trace (backend is '" + backend +
        "')");
  }
  c.systemc.cycle_ps = static_cast<uint64_t>(p.DurationPs("adapter.cycle"));
  c.systemc.sram_word_ps = static_cast<uint64_t>(p.DurationPs("adapter.sram_word"));
  if (Status st = CopyCycles(p, "adapter.rx_cycles", "receive", c.systemc.rx_cycles); !st.ok()) {
    return st;
  }
  if (Status st = CopyCycles(p, "adapter.tx_cycles", "transmit", c.systemc.tx_cycles); !st.ok()) {
    return st;
  }
  if (Status st = CopyCycles(p, "adapter.rdma_rx_cycles", "RDMA receive",
                             c.systemc.rdma_rx_cycles);
      !st.ok()) {
    return st;
  }
  if (Status st = CopyCycles(p, "adapter.rdma_tx_cycles", "RDMA transmit",
                             c.systemc.rdma_tx_cycles);
      !st.ok()) {
    return st;
  }
  c.microcode.tasks = static_cast<uint32_t>(p.Int("adapter.tasks"));
  c.microcode.rx_tasks = static_cast<uint32_t>(p.Int("adapter.rx_tasks"));
  c.microcode.tx_tasks = static_cast<uint32_t>(p.Int("adapter.tx_tasks"));
  c.microcode.tx_switch_every = static_cast<uint32_t>(p.Int("adapter.tx_switch_every"));
  c.microcode.channel_buffers = static_cast<uint32_t>(p.Int("adapter.channel_buffers"));
  c.microcode.interrupt_handlers = static_cast<uint32_t>(p.Int("adapter.interrupt_handlers"));
  c.resources.dtbs = static_cast<uint32_t>(p.Int("adapter.dtbs"));
  c.resources.header_buffers = static_cast<uint32_t>(p.Int("adapter.header_buffers"));
  c.resources.link_queue_frames = static_cast<uint32_t>(p.Int("adapter.link_queue_frames"));
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
  const std::string& wait = p.String("hal.wait_mode");
  c.wait_mode = wait == "poll"        ? WaitMode::kPoll
                : wait == "interrupt" ? WaitMode::kInterrupt
                                      : WaitMode::kEarlyInterrupt;
  c.fabric.hop_latency_ps = static_cast<uint64_t>(p.DurationPs("fabric.hop_latency"));
  c.fabric.reorder_delay_ps = static_cast<uint64_t>(p.DurationPs("fabric.reorder_delay"));
  c.fabric.loss = p.Probability("fabric.loss");
  c.fabric.duplicate = p.Probability("fabric.duplicate");
  c.fabric.reorder = p.Probability("fabric.reorder");
  c.fabric.corrupt = p.Probability("fabric.corrupt");
  c.fabric.paths = static_cast<uint32_t>(p.Int("fabric.paths"));
  c.fabric.link_delay_ps = static_cast<uint64_t>(p.DurationPs("fabric.link_delay"));
  c.fabric.path_skew_ps = static_cast<uint64_t>(p.DurationPs("fabric.path_skew"));
  c.fabric.port_buffer_bytes = p.SizeBytes("fabric.port_buffer");
  c.fabric.cut_through = p.Bool("fabric.cut_through");
  Result<RoutingPolicy> routing = RoutingPolicyFromName(p.String("fabric.routing"));
  if (!routing.ok()) return routing.status();
  c.fabric.routing = *routing;
  Result<std::vector<PathOutage>> outages =
      PathOutagesFromList(p.IntList("fabric.path_down"), c.fabric.paths);
  if (!outages.ok()) return outages.status();
  c.fabric.outages = std::move(*outages);
  Result<std::vector<FaultRule>> rules = ParseFaultRules(p.String("fabric.faults"));
  if (!rules.ok()) return Status::Error("fabric.faults: " + rules.status().message());
  const Status scopes = CheckFaultRuleScopes(*rules, c.fabric.paths,
                                             c.nodes * c.adapters_per_node);
  if (!scopes.ok()) return Status::Error("fabric.faults: " + scopes.message());
  c.fabric.fault_rules = std::move(*rules);
  c.microcode.rcxts = static_cast<uint32_t>(p.Int("rdma.rcxts"));
  // The RDMA workload turns RDMA on with room for its buffers.
  if (p.String("workload") == "rdma_sweep") {
    c.rdma_host_bytes = RdmaSweepHostBytes(RdmaSweepFromParams(p));
  }
  return c;
}

namespace {

bool IsMpiWorkload(const ParamValues& p) { return p.String("workload").rfind("mpi_", 0) == 0; }

Result<WorkloadResult> RunMpiWorkload(MpiJob& job, const ParamValues& p) {
  const std::string& workload = p.String("workload");
  if (workload == "mpi_pingpong") {
    MpiPingPongConfig c;
    c.sizes = p.IntList("mpi.sizes");
    c.iterations = static_cast<uint32_t>(p.Int("mpi.iterations"));
    c.bandwidth_messages = static_cast<uint32_t>(p.Int("mpi.bandwidth_messages"));
    c.window = static_cast<uint32_t>(p.Int("mpi.window"));
    return RunMpiPingPong(job, c);
  }
  if (workload == "mpi_collectives") {
    MpiCollectivesConfig c;
    c.sizes = p.IntList("mpi.sizes");
    c.iterations = static_cast<uint32_t>(p.Int("mpi.iterations"));
    return RunMpiCollectives(job, c);
  }
  MpiAlltoallConfig c;
  c.messages_per_rank = static_cast<uint32_t>(p.Int("mpi.alltoall_messages"));
  c.max_size = static_cast<int64_t>(p.SizeBytes("mpi.alltoall_max_size"));
  return RunMpiRandomAlltoall(job, c);
}

Result<WorkloadResult> RunWorkload(Cluster& cluster, const ParamValues& p) {
  const std::string& workload = p.String("workload");
  if (workload == "pingpong_sweep") {
    PingPongConfig c;
    c.sizes = p.IntList("pingpong.sizes");
    c.iterations = static_cast<uint32_t>(p.Int("pingpong.iterations"));
    c.stream_packets = static_cast<uint32_t>(p.Int("pingpong.stream_packets"));
    return RunPingPongSweep(cluster, c);
  }
  if (workload == "rdma_sweep") return RunRdmaSweep(cluster, RdmaSweepFromParams(p));
  if (workload == "close_under_load" || workload == "recovery_under_load") {
    LifecycleConfig c;
    c.at_ps = static_cast<uint64_t>(p.DurationPs("lifecycle.at"));
    c.packets = static_cast<uint64_t>(p.Int("lifecycle.packets"));
    c.size = static_cast<uint32_t>(p.Int("lifecycle.size"));
    return workload == "close_under_load" ? RunCloseUnderLoad(cluster, c)
                                          : RunRecoveryUnderLoad(cluster, c);
  }
  if (workload == "stream") {
    StreamConfig c;
    c.packets = static_cast<uint64_t>(p.Int("stream.packets"));
    c.size = static_cast<uint32_t>(p.Int("stream.size"));
    return RunStream(cluster, c);
  }
  ExchangeConfig c;
  c.messages = static_cast<uint64_t>(p.Int("exchange.messages"));
  c.max_size = p.Int("exchange.max_size");
  return RunRandomExchange(cluster, c);
}

}  // namespace

Result<MpiJobConfig> MpiJobConfigFromParams(const ParamValues& p) {
  Result<ClusterConfig> cluster = ClusterConfigFromParams(p);
  if (!cluster.ok()) return cluster.status();
  MpiJobConfig c;
  c.cluster = *cluster;
  c.ranks = static_cast<uint32_t>(p.Int("mpi.ranks"));
  c.transport.rdma = p.Bool("ulp.rdma");
  c.transport.rdma_threshold = p.SizeBytes("ulp.rdma_threshold");
  c.transport.rdma_chunk = static_cast<uint32_t>(
      std::min<uint64_t>(p.SizeBytes("ulp.rdma_chunk"), uint64_t{1} << 30));
  c.transport.send_overhead_ps = static_cast<uint64_t>(p.DurationPs("ulp.send_overhead"));
  c.transport.recv_overhead_ps = static_cast<uint64_t>(p.DurationPs("ulp.recv_overhead"));
  c.transport.max_retransmits = static_cast<uint32_t>(p.Int("ulp.max_retransmits"));
  c.mpi.eager_limit = p.SizeBytes("mpi.eager_limit");
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
    per_rank += 2 * static_cast<uint64_t>(p.Int("mpi.alltoall_messages")) * area;
  }
  const uint64_t ranks_per_node = (c.ranks + c.cluster.nodes - 1) / c.cluster.nodes;
  c.cluster.rdma_host_bytes = std::max<uint64_t>(c.cluster.rdma_host_bytes, per_rank * ranks_per_node);
  return c;
}

Result<RunOutcome> RunScenario(const Scenario& scenario, const RunOptions& options) {
  Result<ClusterConfig> config = ClusterConfigFromParams(scenario.params);
  if (!config.ok()) return LocateParamError(scenario, config.status());
  const Status workload = CheckWorkloadParams(scenario);
  if (!workload.ok()) return LocateParamError(scenario, workload);
  std::unique_ptr<TraceWriter> trace;
  if (!options.trace_path.empty()) {
    Result<TraceFilter> filter = TraceFilter::Parse(options.trace_filter);
    if (!filter.ok()) return filter.status();
    trace = std::make_unique<TraceWriter>(options.trace_path, std::move(*filter),
                                          options.trace_create_new ? TraceWriter::Open::kCreateNew
                                                                   : TraceWriter::Open::kTruncate);
    if (!trace->ok()) return Status::Error("--trace " + options.trace_path + ": cannot open for writing");
  }
  std::unique_ptr<TimelineWriter> timeline;
  if (!options.timeline_path.empty()) {
    timeline = std::make_unique<TimelineWriter>(options.timeline_path);
    if (!timeline->ok()) {
      return Status::Error("--timeline " + options.timeline_path + ": cannot open for writing");
    }
  }
  std::unique_ptr<PcapWriter> pcap;
  if (!options.pcap_path.empty()) {
    Result<std::unique_ptr<PcapWriter>> opened = PcapWriter::Open(options.pcap_path);
    if (!opened.ok()) return Status::Error("--pcap " + opened.status().message());
    pcap = std::move(*opened);
  }
  // The cluster takes one sink: both outputs share the events through a fan-out.
  TraceFanOut sinks;
  sinks.Add(trace.get());
  sinks.Add(timeline.get());
  config->trace = sinks.Sink();
  // Host events (frames consumed) go to the text trace only.
  config->host_trace = trace.get();
  const auto wall_start = std::chrono::steady_clock::now();
  // An MPI workload runs as a job (its own cluster, a transport and MPI per rank).
  std::unique_ptr<MpiJob> job;
  std::unique_ptr<Cluster> owned;
  Cluster* cluster = nullptr;
  if (IsMpiWorkload(scenario.params)) {
    Result<MpiJobConfig> jc = MpiJobConfigFromParams(scenario.params);
    if (!jc.ok()) return LocateParamError(scenario, jc.status());
    jc->cluster.trace = config->trace;
    jc->cluster.host_trace = config->host_trace;
    Result<std::unique_ptr<MpiJob>> made = MpiJob::Create(*jc);
    if (!made.ok()) return made.status();
    job = std::move(*made);
    cluster = &job->cluster();
  } else {
    Result<std::unique_ptr<Cluster>> made = Cluster::Create(*config);
    if (!made.ok()) return made.status();
    owned = std::move(*made);
    cluster = owned.get();
  }
  cluster->fabric().SetCapture(pcap.get());
  Result<WorkloadResult> result = job ? RunMpiWorkload(*job, scenario.params)
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
  // Written after the clock stops: rendering the timeline is not simulation time.
  if (timeline != nullptr && !timeline->Finish()) {
    return Status::Error("--timeline " + options.timeline_path + ": write failed");
  }
  if (pcap != nullptr && !pcap->Close()) {
    return Status::Error("--pcap " + options.pcap_path + ": write failed");
  }
  RunOutcome outcome;
  outcome.stats = BuildStats(*cluster, scenario, *result, wall_s);
  outcome.workload = std::move(*result);
  return outcome;
}

nlohmann::json BuildStats(Cluster& cluster, const Scenario& scenario,
                          const WorkloadResult& result, double wall_time_s) {
  nlohmann::json drops = nlohmann::json::object();
  for (std::string_view name : fw::kDropReasonNames) drops[std::string(name)] = 0;
  for (std::string_view name : kFabricDropNames) drops[std::string(name)] = 0;
  // Copies of a message already delivered, discarded by the workload that received them.
  drops["duplicate_delivery"] = result.messages_duplicated;
  uint64_t packets_delivered = 0;
  nlohmann::json adapters = nlohmann::json::array();
  for (uint32_t id = 0; id < cluster.adapter_count(); ++id) {
    const hw::func::AdapterModel& a = cluster.adapter(id);
    const fw::Counters& fc = a.firmware_counters();
    const hw::func::AdapterCounters& hc = a.counters();
    packets_delivered += fc.rx_packets + fc.rdma_packets_in;
    for (size_t r = 0; r < fc.drops.size(); ++r) {
      drops[std::string(fw::kDropReasonNames[r])] =
          drops[std::string(fw::kDropReasonNames[r])].get<uint64_t>() + fc.drops[r];
    }
    nlohmann::json waits = nlohmann::json::object();
    for (size_t r = 1; r < fc.waits.size(); ++r) waits[std::string(fw::kResourceNames[r])] = fc.waits[r];
    adapters.push_back({{"adapter", id},
                        {"waits", waits},
                        {"dispatches", fc.dispatches},
                        {"dispatch_queue_peak", fc.dispatch_queue_peak},
                        {"start_transmit_no_task", fc.start_transmit_no_task},
                        {"work_manager_handoffs", fc.work_manager_handoffs},
                        {"cb_loads", fc.cb_loads},
                        {"cb_flushes", fc.cb_flushes},
                        {"cb_shared", fc.cb_shared},
                        {"interrupt_events", fc.interrupt_events},
                        {"interrupts_presented", fc.interrupts_presented},
                        {"interrupts_deferred", fc.interrupts_deferred},
                        {"windows_closed", fc.windows_closed},
                        {"resets", fc.resets},
                        {"header_task_waits", hc.header_task_waits},
                        {"payload_dtb_waits", hc.payload_dtb_waits},
                        {"dma_to_freed_memory", hc.dma_to_freed_memory},
                        {"rx_packets", fc.rx_packets},
                        {"rx_bytes", fc.rx_bytes},
                        {"tx_packets", fc.tx_packets},
                        {"tx_bytes", fc.tx_bytes},
                        {"mmio_commands", fc.mmio_commands},
                        {"bad_mmio", fc.bad_mmio},
                        {"dma_to_host", hc.dma_to_host},
                        {"dma_from_host", hc.dma_from_host},
                        {"dma_bytes", hc.dma_bytes},
                        {"dma_address_errors", hc.dma_address_errors},
                        {"input_queue_peak", hc.input_queue_peak},
                        {"link_queue_full", hc.link_queue_full},
                        {"rdma_packets_out", fc.rdma_packets_out},
                        {"rdma_bytes_out", fc.rdma_bytes_out},
                        {"rdma_packets_in", fc.rdma_packets_in},
                        {"rdma_bytes_in", fc.rdma_bytes_in},
                        {"rdma_requests", fc.rdma_requests},
                        {"rdma_read_requests_served", fc.rdma_read_requests_served},
                        {"rdma_transfers_landed", fc.rdma_transfers_landed},
                        {"rdma_completions_sent", fc.rdma_completions_sent},
                        {"rdma_completions_written", fc.rdma_completions_written},
                        {"rdma_conditional_fired", fc.rdma_conditional_fired},
                        {"rdma_cancels", fc.rdma_cancels},
                        {"tce_fetches", fc.tce_fetches},
                        {"trace_events", hc.trace_events}});
    // Backend-specific counters (the rtl backend's rtl_ops and rtl_mismatches).
    for (const auto& [name, value] : a.ExtraCounters()) adapters.back()[std::string(name)] = value;
  }
  const FabricCounters& fab = cluster.fabric().counters();
  for (const auto& [reason, count] : fab.drops) drops[reason] = drops[reason].get<uint64_t>() + count;

  // Reserved is what each node was given, touched what it had written (HostMemory), at the
  // end and at most, sampled every 65,536 events.
  nlohmann::json host_nodes = nlohmann::json::array();
  uint64_t reserved_bytes = 0;
  uint64_t touched_bytes = 0;
  for (const HostMemoryUse& use : cluster.host_memory_use()) {
    host_nodes.push_back({{"node", host_nodes.size()},
                          {"reserved_bytes", use.reserved_bytes},
                          {"touched_bytes", use.touched_bytes},
                          {"touched_peak_bytes", use.touched_peak_bytes}});
    reserved_bytes += use.reserved_bytes;
    touched_bytes += use.touched_bytes;
  }
  const nlohmann::json host_memory = {{"reserved_bytes", reserved_bytes},
                                      {"touched_bytes", touched_bytes},
                                      {"touched_peak_bytes", cluster.touched_peak_bytes()},
                                      {"nodes", host_nodes}};

  nlohmann::json params = nlohmann::json::object();
  for (std::string_view name : ParamValues::Names()) {
    params[std::string(name)] = scenario.params.ToText(name);
  }
  const double sim_s = static_cast<double>(cluster.events().now_ps()) * 1e-12;
  nlohmann::json stats = {
      {"scenario", scenario.name},
      {"seed", scenario.params.Int("seed")},
      {"backend", scenario.params.String("backend")},
      {"backend_model", cluster.DescribeBackend()},
      {"quantum_ns", cluster.DescribeBackend()["quantum_ns"]},
      {"sim_time_ns", cluster.events().now_ps() / 1000},
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
