// SPDX-License-Identifier: Apache-2.0
// Ping-pong sweep: for each size, round trips between two windows give the one-way latency
// (half the mean round trip), then a one-way stream gives the bandwidth.
#include <fmt/format.h>

#include <optional>
#include <vector>

#include "sim/workloads/delivery_ledger.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

struct SizeFigures {
  uint32_t size = 0;
  double latency_ns = 0;
  double bandwidth_mbps = 0;  // payload MB/s (1 MB = 1e6 bytes)
};

/**
 * Every message of the sweep has its own id (its ulp_word and pattern key): each phase takes
 * the ids from `*next_id` on, so a copy of an earlier phase's message is told apart.
 */

/**
 * Round trips of `size` bytes; the mean one-way latency in ns, or nothing when the round trips
 * could not finish (the stall is recorded in `out`). A ping or pong that arrives twice is
 * counted as a duplicate and not answered again.
 */
std::optional<double> MeasureLatency(Cluster& cluster, WindowProcess& a, WindowProcess& b,
                                     uint32_t size, uint32_t iterations, uint32_t* next_id,
                                     WorkloadResult& out) {
  std::vector<uint8_t> buf(size);
  const uint32_t first = *next_id;
  *next_id += iterations;
  DeliveryLedger pings(fmt::format("pingpong size {}: ping", size), first);
  DeliveryLedger pongs(fmt::format("pingpong size {}: pong", size), first);
  uint32_t done = 0;
  uint64_t started_ps = 0;
  uint64_t total_rtt_ps = 0;
  auto intact = [size](const hal::RecvPacket& p) {
    return p.header.len_bytes == size && CheckPattern(p.payload, size, p.header.ulp_word);
  };
  auto ping = [&] {
    FillPattern(buf.data(), size, first + done);
    started_ps = cluster.events().now_ps();
    a.Send(b.addr(), buf.data(), size, first + done);
    pings.Sent(first + done, out);
  };
  b.OnReceive([&](const hal::RecvPacket& p) {
    if (!pings.Arrived(p.header.ulp_word, intact(p), p.header.len_bytes, out)) return;
    b.Send(a.addr(), p.payload, p.header.len_bytes, p.header.ulp_word);
    pongs.Sent(p.header.ulp_word, out);
  });
  a.OnReceive([&](const hal::RecvPacket& p) {
    if (!pongs.Arrived(p.header.ulp_word, intact(p), p.header.len_bytes, out)) return;
    total_rtt_ps += cluster.events().now_ps() - started_ps;
    if (++done < iterations) ping();
  });
  ping();
  Status s = RunUntil(
      cluster, [&] { return done >= iterations; }, fmt::format("pingpong size {}", size));
  a.OnReceive(nullptr);
  b.OnReceive(nullptr);
  pings.Settle(out);
  pongs.Settle(out);
  if (!s.ok()) {
    out.Stall(s);
    return std::nullopt;
  }
  return static_cast<double>(total_rtt_ps) / iterations / 2.0 / 1000.0;
}

/**
 * A one-way stream of `packets`; payload MB/s from first send to last arrival, or nothing
 * when the stream could not finish (the stall is recorded in `out`).
 */
std::optional<double> MeasureBandwidth(Cluster& cluster, WindowProcess& a, WindowProcess& b,
                                       uint32_t size, uint32_t packets, uint32_t* next_id,
                                       WorkloadResult& out) {
  std::vector<uint8_t> buf(size);
  const uint32_t first = *next_id;
  *next_id += packets;
  DeliveryLedger ledger(fmt::format("stream size {}: packet", size), first);
  uint32_t sent = 0;
  const uint64_t start_ps = cluster.events().now_ps();
  uint64_t end_ps = start_ps;
  auto pump = [&] {
    while (sent < packets && a.backlog() == 0) {
      FillPattern(buf.data(), size, first + sent);
      a.Send(b.addr(), buf.data(), size, first + sent);
      ledger.Sent(first + sent, out);
      ++sent;
    }
  };
  a.OnSendable(pump);
  b.OnReceive([&](const hal::RecvPacket& p) {
    const bool intact =
        p.header.len_bytes == size && CheckPattern(p.payload, size, p.header.ulp_word);
    if (ledger.Arrived(p.header.ulp_word, intact, p.header.len_bytes, out)) {
      end_ps = cluster.events().now_ps();
    }
  });
  pump();
  Status s = RunUntil(
      cluster, [&] { return ledger.delivered() >= packets; },
      fmt::format("bandwidth stream size {}", size));
  a.OnSendable(nullptr);
  b.OnReceive(nullptr);
  ledger.Settle(out);
  if (!s.ok()) {
    out.Stall(s);
    return std::nullopt;
  }
  const double seconds = static_cast<double>(end_ps - start_ps) * 1e-12;
  return seconds > 0 ? static_cast<double>(size) * packets / seconds / 1e6 : 0.0;
}

}  // namespace

Result<WorkloadResult> RunPingPongSweep(Cluster& cluster, const PingPongConfig& config) {
  Result<std::pair<WindowProcess*, WindowProcess*>> pair = PickPair(cluster);
  if (!pair.ok()) return pair.status();
  WindowProcess& a = *pair->first;
  WindowProcess& b = *pair->second;
  WorkloadResult out;
  std::vector<SizeFigures> rows;
  uint32_t next_id = 0;
  for (int64_t size : config.sizes) {
    if (size < 0 || size > a.max_payload()) {
      return Status::Error(fmt::format(
          "pingpong.sizes: {} is outside [0, {}], the largest single-packet payload for "
          "host.cache_line={}",
          size, a.max_payload(), cluster.config().line_bytes));
    }
    SizeFigures row;
    row.size = static_cast<uint32_t>(size);
    // A size whose round trips or stream stalled ends the sweep (the run has failed).
    std::optional<double> lat =
        MeasureLatency(cluster, a, b, row.size, config.iterations, &next_id, out);
    if (!lat) break;
    row.latency_ns = *lat;
    std::optional<double> bw =
        MeasureBandwidth(cluster, a, b, row.size, config.stream_packets, &next_id, out);
    if (!bw) break;
    row.bandwidth_mbps = *bw;
    rows.push_back(row);
  }
  // Copies still in flight land now: every one of them is a duplicate of a delivered message.
  DeliveryLedger late("pingpong_sweep", next_id);
  auto count_late = [&](const hal::RecvPacket& p) {
    late.Arrived(p.header.ulp_word, true, p.header.len_bytes, out);
  };
  a.OnReceive(count_late);
  b.OnReceive(count_late);
  RunToQuiet(cluster);
  a.OnReceive(nullptr);
  b.OnReceive(nullptr);
  out.table = fmt::format("{:>10}  {:>12}  {:>14}\n", "size_B", "latency_us", "bandwidth_MB/s");
  nlohmann::json table = nlohmann::json::array();
  for (const SizeFigures& r : rows) {
    out.table += fmt::format("{:>10}  {:>12.3f}  {:>14.1f}\n", r.size, r.latency_ns / 1000.0,
                             r.bandwidth_mbps);
    table.push_back({{"size_bytes", r.size},
                     {"latency_ns", r.latency_ns},
                     {"bandwidth_mbps", r.bandwidth_mbps}});
  }
  out.results = {{"workload", "pingpong_sweep"},
                 {"iterations", config.iterations},
                 {"stream_packets", config.stream_packets},
                 {"table", table}};
  return out;
}

}  // namespace nicsim::sim
