// SPDX-License-Identifier: Apache-2.0
// The one table of nicsim parameters and the typed store that validates values against it.
// Every range and allowed value is checked here, so TOML files and --set flags agree.
#include "sim/config/param_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <unordered_map>
#include <utility>

#include "base/check.h"
#include "sim/config/fault_rules.h"
#include "sim/config/text.h"
#include "sim/config/units.h"

namespace nicsim::sim {
namespace {

constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();
/** port.timeout's range, the same as --timeout-s's: a second to a day. */
constexpr int64_t kPortTimeoutMinPs = int64_t{1'000'000'000'000};
constexpr int64_t kPortTimeoutMaxPs = int64_t{86400} * 1'000'000'000'000;

ParamSpec Typed(std::string name, ParamType type, std::string def, std::string description) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.default_value = std::move(def);
  spec.description = std::move(description);
  if (type == ParamType::kDuration) {
    spec.min = 0;
    spec.max = kMaxDurationPs;
  } else if (type == ParamType::kSize) {
    spec.min = 0;
  }
  return spec;
}

/** `spec` with its range replaced (a duration in picoseconds, a size in bytes). */
ParamSpec Ranged(ParamSpec spec, int64_t min, int64_t max) {
  spec.min = min;
  spec.max = max;
  return spec;
}

ParamSpec Int(std::string name, int64_t def, int64_t min, int64_t max, std::string description) {
  ParamSpec spec =
      Typed(std::move(name), ParamType::kInt, std::to_string(def), std::move(description));
  spec.min = min;
  spec.max = max;
  return spec;
}

ParamSpec Enum(std::string name, std::string def, std::vector<std::string> choices,
               std::string description) {
  ParamSpec spec = Typed(std::move(name), ParamType::kEnum, std::move(def), std::move(description));
  spec.choices = std::move(choices);
  return spec;
}

ParamSpec Checked(std::string name, std::string description, Status (*check)(std::string_view)) {
  ParamSpec spec = Typed(std::move(name), ParamType::kString, "", std::move(description));
  spec.check = check;
  return spec;
}

ParamSpec IntList(std::string name, std::string def, int64_t min, int64_t max,
                  std::string description) {
  ParamSpec spec =
      Typed(std::move(name), ParamType::kIntList, std::move(def), std::move(description));
  spec.min = min;
  spec.max = max;
  return spec;
}

std::vector<ParamSpec> BuildTable() {
  using T = ParamType;
  std::vector<ParamSpec> table = {
      Int("seed", 1, 0, kNoMax, "The one seed that drives every random choice in a run"),
      Typed("run.time_limit", T::kDuration, "60s",
            "Simulated time after which a workload that is not done has stalled: the run "
            "stops and fails (exit 1)"),
      Enum("backend", "systemc", {"func", "systemc", "rtl", "dpdk"},
           "Adapter model that runs the firmware: functional C++, SystemC, RTL or DPDK"),
      Enum("preset", "hps", {"hps", "pushpull-fe"},
           "Machine to model; sets link, DMA, MMIO and host timing (keys set after it win): "
           "hps = HPS-like adapter, pushpull-fe = Push-Pull's 100 Mb/s PC cluster"),
      Int("nodes", 2, 1, 4096, "Number of hosts attached to the fabric"),
      Int("adapters_per_node", 1, 1, 16, "Network adapters in each host"),
      Int("windows_per_adapter", 1, 1, 128, "Communication windows opened on each adapter"),
      Int("fabric.paths", 4, 1, 16, "Independent routes between each pair of adapters"),
      Enum("fabric.routing", "round_robin", {"fixed", "round_robin", "random"},
           "Per-packet path choice: fixed = hash(src, dest) % paths, round_robin = each source "
           "cycles through the paths, random = seeded draw; the last two skip paths that are down"),
      Typed("fabric.path_skew", T::kDuration, "0ns",
            "Extra propagation delay of path p: p x this duration"),
      IntList("fabric.path_down", "[-1]", -1, kNoMax,
              "Path outages as triples [path, down_at_ns, up_at_ns, ...] (up_at_ns = -1: stays "
              "down); [-1] = none"),
      Typed("fabric.loss", T::kProbability, "0.0", "Probability that the fabric drops a packet"),
      Typed("fabric.duplicate", T::kProbability, "0.0",
            "Probability that the fabric delivers a packet twice"),
      Typed(
          "fabric.reorder", T::kProbability, "0.0",
          "Probability that a packet is held back by fabric.reorder_delay (arrives out of order)"),
      Typed("fabric.corrupt", T::kProbability, "0.0",
            "Probability that a packet arrives with a corrupted payload (bad CRC)"),
      Checked("fabric.faults",
              "Faults of one path or one adapter's links, on top of the fabric-wide ones: rules "
              "'SCOPE: KIND=P, ...' separated by ';', SCOPE = path N, link A (adapter A's links "
              "into every plane) or link A/P (into plane P only), KIND = loss, duplicate, "
              "reorder or corrupt (probabilities) or reorder_delay (duration); '' = none",
              [](std::string_view text) { return ParseFaultRules(text).status(); }),
      Typed("fabric.hop_latency", T::kDuration, "300ns", "Latency of one hop through the fabric"),
      Typed("fabric.link_delay", T::kDuration, "50ns",
            "Propagation delay of one fabric link (a frame crosses two: adapter-switch-adapter)"),
      Typed("fabric.port_buffer", T::kSize, "1MiB",
            "Bytes each switch output port buffers (frame on the wire included); a frame that "
            "does not fit is dropped; 0 = unlimited"),
      Typed("fabric.reorder_delay", T::kDuration, "2us", "Extra delay given to a reordered packet"),
      Typed("fabric.cut_through", T::kBool, "false",
            "Cut-through switches: a frame is forwarded once its header is in (false: store "
            "and forward, after its last byte)"),
      Typed("link.bandwidth", T::kRate, "2GB/s",
            "Bandwidth of each adapter's link to the fabric, per direction"),
      Int("host.cache_line", 128, 64, 128, "Host cache line size in bytes: 64 or 128"),
      Typed("host.poll_latency", T::kDuration, "50ns",
            "Time a polling CPU needs to notice a cache line the adapter wrote"),
      Typed("host.interrupt_latency", T::kDuration, "2us",
            "Time from an adapter interrupt to its handler running on the host"),
      Typed("host.touched_limit", T::kSize, "0",
            "Simulated host memory the nodes may touch (pages written; a node's memory is "
            "reserved, and costs only what is written), checked every 65,536 events and at "
            "the end: past it the run stops and fails (exit 1); 0 = 3/4 of this machine's "
            "physical memory"),
      Typed("mmio.latency", T::kDuration, "150ns",
            "Latency of one host MMIO access to the adapter"),
      Typed("dma.latency", T::kDuration, "400ns",
            "Latency of one adapter DMA transfer to or from host memory"),
      Typed("dma.bandwidth", T::kRate, "4GB/s", "Bandwidth of the adapter's DMA engine"),
      Typed("systemc.quantum", T::kDuration, "1us",
            "SystemC backend: temporal decoupling quantum (reported in stats.json); 0 = lock-step"),
      Typed("rtl.vcd", T::kString, "",
            "rtl backend: path prefix of VCD waveforms, one file per Verilated block per adapter "
            "(PREFIX.aN.allocator.vcd, PREFIX.aN.rx_sequencer.vcd); empty = none"),
      Typed("adapter.cycle", T::kDuration, "2ns",
            "SystemC backend: adapter clock period (2ns = 500 MHz)"),
      IntList("adapter.rx_cycles", "[24, 8, 30, 12, 14, 20, 4]", 0, 1000000,
              "SystemC backend: microcode cycles per receive state: validate, bind, admit, "
              "move_body, signal, finish, discard"),
      IntList("adapter.tx_cycles", "[28, 10, 22, 30, 12, 16]", 0, 1000000,
              "SystemC backend: microcode cycles per transmit state: select, fetch_header, "
              "fetch_body, inject, mark_done, finish"),
      IntList("adapter.rdma_rx_cycles", "[26, 16, 18, 12, 20, 14, 8]", 0, 1000000,
              "SystemC backend: microcode cycles per RDMA receive state: rdma_admit, "
              "rdma_translate, rdma_place, rdma_move, rdma_landed, rdma_notify, rdma_notified"),
      IntList("adapter.rdma_tx_cycles", "[24, 16, 14, 12, 26]", 0, 1000000,
              "SystemC backend: microcode cycles per RDMA transmit state: post, rdma_translate, "
              "rdma_check, rdma_load, rdma_inject"),
      Typed("adapter.sram_word", T::kDuration, "4ns",
            "SystemC backend: adapter SRAM access time per 8-byte word the microcode touches"),
      Int("adapter.tasks", 16, 1, 64, "Microcode tasks the hardware pre-allocates"),
      Int("adapter.rx_tasks", 4, 1, 64,
          "Receive tasks active at once (concurrent packet handlers)"),
      Int("adapter.tx_tasks", 4, 1, 64, "Transmit tasks active at once (concurrent packet builders)"),
      Int("adapter.tx_switch_every", 1, 1, 1024,
          "Packets a send task sends from one window before switching to the next with work"),
      Int("adapter.channel_buffers", 16, 1, 128,
          "Channel buffers (LMT caches, 2 x 256 bytes each); tasks of one window share one"),
      Int("adapter.dtbs", 8, 1, 1024,
          "Data transfer buffers (payload staging, one receive frame each)"),
      Int("adapter.header_buffers", 16, 1, 1024, "Header buffers for outgoing packets"),
      Int("adapter.link_queue_frames", 4, 1, 1024,
          "Frames the link output queue holds; a transmit task waits for room beyond that"),
      Int("adapter.interrupt_handlers", 1, 1, 8,
          "Interrupt handlers registered with the adapter; events go to the next ready one"),
      Int("window.recv_frames", 256, 1, 65536, "Receive FIFO frames per window"),
      Int("window.send_slots", 64, 1, 65536, "Send FIFO slots per window"),
      Int("hal.return_batch", 16, 1, 65536,
          "Frames returned to the adapter per ReturnRecvFrames MMIO (at most half the receive FIFO)"),
      Enum("hal.wait_mode", "poll", {"poll", "interrupt", "early_interrupt"},
           "How processes wait for packets: spin on the first cache line, sleep until the "
           "receive interrupt, or sleep with early interrupts (before the data is coherent)"),
      Enum("workload", "pingpong_sweep",
           {"pingpong_sweep", "stream", "random_exchange", "rdma_sweep", "close_under_load",
            "recovery_under_load", "mpi_pingpong", "mpi_collectives", "mpi_alltoall"},
           "Traffic to run: ping-pong latency sweep, one-way stream, random exchange, RDMA "
           "sweep, a stream interrupted by a window close or an adapter recovery, or an MPI "
           "job (ping-pong latency and bandwidth, collective timings, random all-to-all)"),
      IntList("pingpong.sizes", "[0, 16, 64, 256, 1024, 2032]", 0, 65535,
              "Payload sizes in bytes that the ping-pong sweep measures"),
      Int("pingpong.iterations", 200, 1, 10000000, "Round trips timed per payload size"),
      Int("pingpong.stream_packets", 2000, 1, 1000000000,
          "One-way packets sent per payload size for the bandwidth column (at most 1e9: "
          "packets are numbered in 32 bits)"),
      Int("stream.packets", 100000, 1, 1000000000,
          "Packets the stream workload sends (at most 1e9: packets are numbered in 32 bits)"),
      Int("stream.size", 1024, 0, 65535, "Payload bytes per stream packet"),
      Int("exchange.messages", 20000, 1, 10000000,
          "Messages the random exchange sends in total (at most 1e7: the checker keeps 7 bytes "
          "per message)"),
      Int("exchange.max_size", -1, -1, 65535,
          "Largest message payload in bytes (-1 = largest single-packet payload)"),
      Typed("lifecycle.at", T::kDuration, "20us",
            "close_under_load / recovery_under_load: simulated time after the stream starts at "
            "which the receiving window closes or its adapter is recovered"),
      Int("lifecycle.packets", 200, 1, 10000000,
          "close_under_load / recovery_under_load: packets in the stream before the event, and "
          "again in the stream after it (at most 1e7: the checker keeps 2 bytes per packet)"),
      Int("lifecycle.size", 1024, 0, 65535,
          "close_under_load / recovery_under_load: payload bytes per packet"),
      Typed("ulp.rdma", T::kBool, "true",
            "Reliable transport: move messages above ulp.rdma_threshold by RDMA (false: "
            "everything in packet mode)"),
      Typed("ulp.rdma_threshold", T::kSize, "16KiB",
            "Reliable transport: messages larger than this go by RDMA"),
      Typed("ulp.rdma_chunk", T::kSize, "256KiB",
            "Reliable transport: largest RDMA read chunk (chunks shrink under loss)"),
      Typed("ulp.send_overhead", T::kDuration, "0ns",
            "Host CPU time of the LAPI/MPI software path per message sent"),
      Typed("ulp.recv_overhead", T::kDuration, "0ns",
            "Host CPU time of the LAPI/MPI software path per message delivered"),
      Int("ulp.max_retransmits", 64, 1, 100000,
          "Reliable transport: sends of one packet without an acknowledgement after which its "
          "destination is unreachable and its messages fail (the timeout doubles per retry up "
          "to 2 ms)"),
      Int("mpi.ranks", 2, 1, 4096,
          "MPI workloads: ranks (rank r on node r % nodes, one window per rank on each adapter "
          "of its node)"),
      Typed("mpi.eager_limit", T::kSize, "64KiB",
            "MPI: messages above this size use the rendezvous protocol"),
      IntList("mpi.sizes", "[0, 8, 1024, 65536, 1048576, 4194304]", 0, 256 << 20,
              "mpi_pingpong and mpi_collectives: message sizes in bytes"),
      Int("mpi.iterations", 50, 1, 10000000,
          "mpi_pingpong: round trips timed per size; mpi_collectives: calls timed per size"),
      Int("mpi.bandwidth_messages", 16, 1, 1000000,
          "mpi_pingpong: messages per size for the bandwidth columns"),
      Int("mpi.window", 8, 1, 4096, "mpi_pingpong: bandwidth messages in flight at once"),
      Int("mpi.alltoall_messages", 200, 1, 10000000,
          "mpi_alltoall: messages each rank sends to random ranks (all ranks' messages are "
          "planned and buffered at once: mpi.ranks x this at most 1e7, and x "
          "mpi.alltoall_max_size at most 8GiB)"),
      Ranged(Typed("mpi.alltoall_max_size", T::kSize, "1MiB",
                   "mpi_alltoall: largest message (sizes are uniform up to it)"),
             0, 256 << 20),
      Enum("rdma.op", "write", {"write", "read"}, "RDMA sweep: the operation timed"),
      IntList("rdma.sizes", "[0, 4096, 65536, 1048576]", 0, 256 << 20,
              "RDMA sweep: transfer sizes in bytes"),
      Int("rdma.iterations", 4, 1, 1000000, "RDMA sweep: transfers timed per size"),
      Enum("rdma.page", "16MiB", {"4KiB", "64KiB", "16MiB"},
           "RDMA sweep: page size backing the buffers (which TCE tables map them)"),
      Int("rdma.rcxts", 100000, 1, 1000000, "rCxts per adapter (64 bytes each in adapter SRAM)"),
      // `nicsim port --scenario FILE` reads these (and `seed`); its flags override them.
      Typed("port.eal", T::kString, "",
            "nicsim port: EAL options, blank separated (a DPDK port); --eal overrides"),
      Typed("port.verbs", T::kString, "",
            "nicsim port: DEVICE[:PORT] of an RDMA device (a verbs UD port); --verbs overrides"),
      Enum("port.mode", "exchange", {"exchange", "pingpong", "transport"},
           "nicsim port: checked exchange, ping-pong, or the reliable transport (RDMA included)"),
      Int("port.messages", 20000, 1, 10000000,
          "nicsim port: messages sent each way (ping-pong: timed rounds); at most 1e7, each "
          "side keeps up to 9 bytes per message"),
      Int("port.size", 2, 0, 65535, "nicsim port: ping-pong payload bytes"),
      Int("port.warmup", 1000, 0, 1000000000,
          "nicsim port: untimed ping-pong rounds (at most 1e9: rounds are numbered in 32 bits)"),
      Int("port.max_size", -1, -1, int64_t{1} << 30,
          "nicsim port: largest payload in bytes (-1: the largest single-packet payload)"),
      Int("port.port_id", 0, 0, 1023, "nicsim port: DPDK ethdev port of the adapter"),
      Int("port.adapter_lcore", -1, -1, 1023,
          "nicsim port: worker lcore of the adapter's poll loop, the host on the main lcore "
          "(-1: one thread runs both)"),
      Ranged(Typed("port.timeout", T::kDuration, "60s",
                   "nicsim port: wall-clock limit of the run, peer start-up included"),
             kPortTimeoutMinPs, kPortTimeoutMaxPs),
      Int("port.gid_index", -1, -1, 255, "nicsim port: verbs GID index (RoCE); -1 addresses by LID"),
      Int("port.qkey", 0x6e730001, 0, 0xffffffff, "nicsim port: verbs Q_Key of both sides"),
  };
  // Cache lines come in two sizes only; the range above is for help text.
  for (ParamSpec& spec : table) {
    if (spec.name == "host.cache_line") spec.choices = {"64", "128"};
  }
  return table;
}

/** Name -> table index; keys view the strings in the (immortal) table. */
const std::unordered_map<std::string_view, size_t>& Index() {
  static const auto* index = [] {
    auto* map = new std::unordered_map<std::string_view, size_t>();
    const std::vector<ParamSpec>& table = AllParams();
    for (size_t i = 0; i < table.size(); ++i) {
      bool inserted = map->emplace(table[i].name, i).second;
      NICSIM_CHECK(inserted, "parameter '%s' is in the table twice", table[i].name.c_str());
    }
    return map;
  }();
  return *index;
}

std::optional<size_t> IndexOf(std::string_view name) {
  auto it = Index().find(name);
  if (it == Index().end()) return std::nullopt;
  return it->second;
}

/** Index of `name`, aborting unless it exists and its type is one of `allowed`. */
size_t IndexChecked(std::string_view name, std::initializer_list<ParamType> allowed) {
  std::optional<size_t> index = IndexOf(name);
  NICSIM_CHECK(index.has_value(), "unknown parameter '%.*s'", static_cast<int>(name.size()),
               name.data());
  ParamType type = AllParams()[*index].type;
  NICSIM_CHECK(std::find(allowed.begin(), allowed.end(), type) != allowed.end(),
               "parameter '%.*s' has type %s, not %s", static_cast<int>(name.size()), name.data(),
               std::string(ParamTypeName(type)).c_str(),
               std::string(ParamTypeName(*allowed.begin())).c_str());
  return *index;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string Join(const std::vector<std::string>& items, std::string_view separator,
                 std::string_view last_separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += (i + 1 == items.size()) ? last_separator : separator;
    out += items[i];
  }
  return out;
}

/** A duration parameter's range in words: "at most 3600s" or "in [1s, 86400s]". */
std::string AllowedDurations(const ParamSpec& spec) {
  if (spec.min == 0) return "at most " + FormatDuration(spec.max);
  return fmt::format("in [{}, {}]", FormatDuration(spec.min), FormatDuration(spec.max));
}

}  // namespace

std::string_view ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "int";
    case ParamType::kProbability:
      return "probability";
    case ParamType::kBool:
      return "bool";
    case ParamType::kString:
      return "string";
    case ParamType::kEnum:
      return "enum";
    case ParamType::kDuration:
      return "duration";
    case ParamType::kRate:
      return "rate";
    case ParamType::kSize:
      return "size";
    case ParamType::kIntList:
      return "int list";
  }
  return "?";
}

const std::vector<ParamSpec>& AllParams() {
  static const auto* table = new std::vector<ParamSpec>(BuildTable());
  return *table;
}

const ParamSpec* FindParam(std::string_view name) {
  std::optional<size_t> index = IndexOf(name);
  return index ? &AllParams()[*index] : nullptr;
}

std::string UnknownKeyMessage(std::string_view name) {
  std::string message = fmt::format("unknown key '{}'", Printable(name));
  const ParamSpec* best = nullptr;
  size_t best_distance = 3;  // suggest only within edit distance 2
  for (const ParamSpec& spec : AllParams()) {
    size_t distance = EditDistance(name, spec.name);
    if (distance < best_distance) {
      best = &spec;
      best_distance = distance;
    }
  }
  if (best != nullptr) message += fmt::format("; did you mean '{}'?", best->name);
  return message;
}

Status CheckIntRange(const ParamSpec& spec, int64_t value, std::string_view label) {
  if (!spec.choices.empty()) {
    if (std::find(spec.choices.begin(), spec.choices.end(), std::to_string(value)) ==
        spec.choices.end()) {
      return Status::Error(
          fmt::format("{} must be {}, got {}", label, Join(spec.choices, ", ", " or "), value));
    }
    return Status();
  }
  if (value >= spec.min && value <= spec.max) return Status();
  if (spec.max == kNoMax) {
    return Status::Error(fmt::format("{} must be >= {}, got {}", label, spec.min, value));
  }
  return Status::Error(
      fmt::format("{} must be in [{}, {}], got {}", label, spec.min, spec.max, value));
}

ParamValues ParamValues::Defaults() {
  static const auto* defaults = [] {
    auto* values = new ParamValues();
    const std::vector<ParamSpec>& table = AllParams();
    values->values_.resize(table.size());
    for (const ParamSpec& spec : table) {
      Status status = values->SetFromText(spec.name, spec.default_value);
      NICSIM_CHECK(status.ok(), "bad default in the parameter table: %s", status.message().c_str());
    }
    return values;
  }();
  return *defaults;
}

int64_t ParamValues::Int(std::string_view name) const {
  return std::get<int64_t>(values_[IndexChecked(name, {ParamType::kInt})]);
}

double ParamValues::Probability(std::string_view name) const {
  return std::get<double>(values_[IndexChecked(name, {ParamType::kProbability})]);
}

bool ParamValues::Bool(std::string_view name) const {
  return std::get<bool>(values_[IndexChecked(name, {ParamType::kBool})]);
}

const std::string& ParamValues::String(std::string_view name) const {
  return std::get<std::string>(values_[IndexChecked(name, {ParamType::kString, ParamType::kEnum})]);
}

int64_t ParamValues::DurationPs(std::string_view name) const {
  return std::get<int64_t>(values_[IndexChecked(name, {ParamType::kDuration})]);
}

double ParamValues::RateBytesPerSec(std::string_view name) const {
  return std::get<double>(values_[IndexChecked(name, {ParamType::kRate})]);
}

uint64_t ParamValues::SizeBytes(std::string_view name) const {
  return std::get<uint64_t>(values_[IndexChecked(name, {ParamType::kSize})]);
}

const std::vector<int64_t>& ParamValues::IntList(std::string_view name) const {
  return std::get<std::vector<int64_t>>(values_[IndexChecked(name, {ParamType::kIntList})]);
}

Status ParamValues::SetInt(std::string_view name, int64_t value) {
  size_t index = IndexChecked(name, {ParamType::kInt});
  Status status = CheckIntRange(AllParams()[index], value, name);
  if (status.ok()) values_[index] = value;
  return status;
}

Status ParamValues::SetProbability(std::string_view name, double value) {
  size_t index = IndexChecked(name, {ParamType::kProbability});
  if (!(value >= 0.0 && value <= 1.0)) {  // written so NaN fails too
    return Status::Error(fmt::format("{} must be in [0, 1], got {}", name, value));
  }
  values_[index] = value;
  return Status();
}

Status ParamValues::SetBool(std::string_view name, bool value) {
  values_[IndexChecked(name, {ParamType::kBool})] = value;
  return Status();
}

Status ParamValues::SetString(std::string_view name, std::string value) {
  size_t index = IndexChecked(name, {ParamType::kString, ParamType::kEnum});
  const ParamSpec& spec = AllParams()[index];
  if (spec.type == ParamType::kEnum &&
      std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
    return Status::Error(
        fmt::format("{}: '{}' is not one of {}", name, Printable(value),
                    Join(spec.choices, ", ", ", ")));
  }
  if (spec.check != nullptr) {
    Status status = spec.check(value);
    if (!status.ok()) return Status::Error(fmt::format("{}: {}", name, status.message()));
  }
  values_[index] = std::move(value);
  return Status();
}

Status ParamValues::SetDurationPs(std::string_view name, int64_t ps) {
  size_t index = IndexChecked(name, {ParamType::kDuration});
  if (ps < 0) {
    return Status::Error(fmt::format("{} must not be negative, got {}", name, FormatDuration(ps)));
  }
  const ParamSpec& spec = AllParams()[index];
  if (ps < spec.min || ps > spec.max) {
    return Status::Error(fmt::format("{} must be {}, got {}", name, AllowedDurations(spec),
                                     FormatDuration(ps)));
  }
  values_[index] = ps;
  return Status();
}

Status ParamValues::SetRateBytesPerSec(std::string_view name, double bytes_per_sec) {
  size_t index = IndexChecked(name, {ParamType::kRate});
  if (!(bytes_per_sec >= kMinRateBytesPerSec) || !std::isfinite(bytes_per_sec)) {
    return Status::Error(fmt::format("{} must be at least {}, got {}", name,
                                     FormatRate(kMinRateBytesPerSec), FormatRate(bytes_per_sec)));
  }
  values_[index] = bytes_per_sec;
  return Status();
}

Status ParamValues::SetSizeBytes(std::string_view name, uint64_t bytes) {
  size_t index = IndexChecked(name, {ParamType::kSize});
  const ParamSpec& spec = AllParams()[index];
  if (bytes > static_cast<uint64_t>(spec.max)) {
    return Status::Error(fmt::format("{} must be at most {}, got {}", name,
                                     FormatSize(static_cast<uint64_t>(spec.max)),
                                     FormatSize(bytes)));
  }
  values_[index] = bytes;
  return Status();
}

Status ParamValues::SetIntList(std::string_view name, std::vector<int64_t> values) {
  size_t index = IndexChecked(name, {ParamType::kIntList});
  if (values.empty()) return Status::Error(fmt::format("{} must not be empty", name));
  for (size_t i = 0; i < values.size(); ++i) {
    Status status = CheckIntRange(AllParams()[index], values[i], fmt::format("{}[{}]", name, i));
    if (!status.ok()) return status;
  }
  values_[index] = std::move(values);
  return Status();
}

Status ParamValues::SetFromText(std::string_view name, std::string_view text) {
  const ParamSpec* spec = FindParam(name);
  if (spec == nullptr) return Status::Error(UnknownKeyMessage(name));
  std::string_view trimmed = Trim(text);
  switch (spec->type) {
    case ParamType::kInt: {
      std::optional<int64_t> value = ParseInt64(trimmed);
      if (!value) {
        return Status::Error(
            fmt::format("{}: expected an integer, got '{}'", name, Printable(text)));
      }
      return SetInt(name, *value);
    }
    case ParamType::kProbability: {
      std::optional<double> value = ParseDouble(trimmed);
      if (!value) {
        return Status::Error(
            fmt::format("{}: expected a number, got '{}'", name, Printable(text)));
      }
      return SetProbability(name, *value);
    }
    case ParamType::kBool:
      if (trimmed == "true") return SetBool(name, true);
      if (trimmed == "false") return SetBool(name, false);
      return Status::Error(
          fmt::format("{}: expected true or false, got '{}'", name, Printable(text)));
    case ParamType::kString:
    case ParamType::kEnum:
      return SetString(name, std::string(trimmed));
    case ParamType::kDuration: {
      Result<int64_t> ps = ParseDuration(trimmed);
      if (!ps.ok()) return Status::Error(fmt::format("{}: {}", name, ps.status().message()));
      return SetDurationPs(name, ps.value());
    }
    case ParamType::kRate: {
      Result<double> rate = ParseRate(trimmed);
      if (!rate.ok()) return Status::Error(fmt::format("{}: {}", name, rate.status().message()));
      return SetRateBytesPerSec(name, rate.value());
    }
    case ParamType::kSize: {
      Result<uint64_t> bytes = ParseSize(trimmed);
      if (!bytes.ok()) return Status::Error(fmt::format("{}: {}", name, bytes.status().message()));
      return SetSizeBytes(name, bytes.value());
    }
    case ParamType::kIntList: {
      std::string_view body = trimmed;
      if (!body.empty() && body.front() == '[' && body.back() == ']') {
        body = Trim(body.substr(1, body.size() - 2));
      }
      std::vector<int64_t> values;
      while (!body.empty()) {
        size_t comma = body.find(',');
        std::optional<int64_t> value = ParseInt64(body.substr(0, comma));
        if (!value) {
          return Status::Error(
              fmt::format("{}: expected a list of integers like [0, 16, 64], got '{}'", name,
                          Printable(text)));
        }
        values.push_back(*value);
        if (comma == std::string_view::npos) break;
        body.remove_prefix(comma + 1);
        if (Trim(body).empty()) {  // a trailing comma leaves an empty element
          return Status::Error(
              fmt::format("{}: expected a list of integers like [0, 16, 64], got '{}'", name,
                          Printable(text)));
        }
      }
      return SetIntList(name, std::move(values));
    }
  }
  return Status::Error(fmt::format("{}: unsupported parameter type", name));
}

std::string ParamValues::ToText(std::string_view name) const {
  std::optional<size_t> index = IndexOf(name);
  NICSIM_CHECK(index.has_value(), "unknown parameter '%.*s'", static_cast<int>(name.size()),
               name.data());
  const Value& value = values_[*index];
  switch (AllParams()[*index].type) {
    case ParamType::kInt:
      return std::to_string(std::get<int64_t>(value));
    case ParamType::kProbability:
      return fmt::format("{}", std::get<double>(value));  // shortest text that reads back exactly
    case ParamType::kBool:
      return std::get<bool>(value) ? "true" : "false";
    case ParamType::kString:
    case ParamType::kEnum:
      return std::get<std::string>(value);
    case ParamType::kDuration:
      return FormatDuration(std::get<int64_t>(value));
    case ParamType::kRate:
      return FormatRate(std::get<double>(value));
    case ParamType::kSize:
      return FormatSize(std::get<uint64_t>(value));
    case ParamType::kIntList:
      return fmt::format("[{}]", fmt::join(std::get<std::vector<int64_t>>(value), ", "));
  }
  return "";
}

std::vector<std::string_view> ParamValues::Names() {
  std::vector<std::string_view> names;
  for (const ParamSpec& spec : AllParams()) names.push_back(spec.name);
  return names;
}

}  // namespace nicsim::sim
