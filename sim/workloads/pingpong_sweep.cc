// SPDX-License-Identifier: Apache-2.0
// Ping-pong sweep: for each size, round trips between two windows give the one-way latency
// (half the mean round trip), then a one-way stream gives the bandwidth.
#include <fmt/format.h>

#include <vector>

#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

struct SizeFigures {
  uint32_t size = 0;
  double latency_ns = 0;
  double bandwidth_mbps = 0;  // payload MB/s (1 MB = 1e6 bytes)
};

/** Round trips of `size` bytes; returns the mean one-way latency in ns. */
Result<double> MeasureLatency(Cluster& cluster, Endpoint& a, Endpoint& b, uint32_t size,
                              uint32_t iterations, WorkloadResult& out) {
  std::vector<uint8_t> buf(size);
  uint32_t done = 0;
  uint64_t started_ps = 0;
  uint64_t total_rtt_ps = 0;
  auto ping = [&] {
    FillPattern(buf.data(), size, done);
    started_ps = cluster.events().now_ps();
    a.Send(b.addr(), buf.data(), size, done);
    ++out.messages_sent;
  };
  b.OnReceive([&](const hal::RecvPacket& p) {
    ++out.messages_delivered;
    out.bytes_delivered += p.header.len_bytes;
    if (p.header.len_bytes != size || !CheckPattern(p.payload, size, p.header.ulp_word)) {
      out.AddError(fmt::format("pingpong size {}: ping {} arrived damaged", size, p.header.ulp_word));
    }
    b.Send(a.addr(), p.payload, p.header.len_bytes, p.header.ulp_word);
    ++out.messages_sent;
  });
  a.OnReceive([&](const hal::RecvPacket& p) {
    ++out.messages_delivered;
    out.bytes_delivered += p.header.len_bytes;
    if (p.header.ulp_word != done || p.header.len_bytes != size ||
        !CheckPattern(p.payload, size, p.header.ulp_word)) {
      out.AddError(fmt::format("pingpong size {}: pong {} arrived damaged", size, done));
    }
    total_rtt_ps += cluster.events().now_ps() - started_ps;
    if (++done < iterations) ping();
  });
  ping();
  Status s = RunUntil(cluster, [&] { return done >= iterations; },
                      fmt::format("pingpong size {}", size));
  a.OnReceive(nullptr);
  b.OnReceive(nullptr);
  if (!s.ok()) return s;
  return static_cast<double>(total_rtt_ps) / iterations / 2.0 / 1000.0;
}

/** A one-way stream of `packets`; returns payload MB/s from first send to last arrival. */
Result<double> MeasureBandwidth(Cluster& cluster, Endpoint& a, Endpoint& b, uint32_t size,
                                uint32_t packets, WorkloadResult& out) {
  std::vector<uint8_t> buf(size);
  uint32_t sent = 0;
  uint32_t received = 0;
  const uint64_t start_ps = cluster.events().now_ps();
  uint64_t end_ps = start_ps;
  auto pump = [&] {
    while (sent < packets && a.backlog() == 0) {
      FillPattern(buf.data(), size, sent);
      a.Send(b.addr(), buf.data(), size, sent);
      ++sent;
      ++out.messages_sent;
    }
  };
  a.OnSendable(pump);
  b.OnReceive([&](const hal::RecvPacket& p) {
    ++out.messages_delivered;
    out.bytes_delivered += p.header.len_bytes;
    if (p.header.len_bytes != size || !CheckPattern(p.payload, size, p.header.ulp_word)) {
      out.AddError(fmt::format("stream size {}: packet {} arrived damaged", size, p.header.ulp_word));
    }
    ++received;
    end_ps = cluster.events().now_ps();
  });
  pump();
  Status s = RunUntil(cluster, [&] { return received >= packets; },
                      fmt::format("bandwidth stream size {}", size));
  a.OnSendable(nullptr);
  b.OnReceive(nullptr);
  if (!s.ok()) return s;
  const double seconds = static_cast<double>(end_ps - start_ps) * 1e-12;
  return seconds > 0 ? static_cast<double>(size) * packets / seconds / 1e6 : 0.0;
}

}  // namespace

Result<WorkloadResult> RunPingPongSweep(Cluster& cluster, const PingPongConfig& config) {
  Result<std::pair<Endpoint*, Endpoint*>> pair = PickPair(cluster);
  if (!pair.ok()) return pair.status();
  Endpoint& a = *pair->first;
  Endpoint& b = *pair->second;
  WorkloadResult out;
  std::vector<SizeFigures> rows;
  for (int64_t size : config.sizes) {
    if (size < 0 || size > a.max_payload()) {
      return Status::Error(fmt::format(
          "pingpong.sizes: {} is outside [0, {}], the largest single-packet payload for "
          "host.cache_line={}",
          size, a.max_payload(), cluster.config().line_bytes));
    }
    SizeFigures row;
    row.size = static_cast<uint32_t>(size);
    Result<double> lat = MeasureLatency(cluster, a, b, row.size, config.iterations, out);
    if (!lat.ok()) return lat.status();
    row.latency_ns = *lat;
    Result<double> bw = MeasureBandwidth(cluster, a, b, row.size, config.stream_packets, out);
    if (!bw.ok()) return bw.status();
    row.bandwidth_mbps = *bw;
    rows.push_back(row);
  }
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
