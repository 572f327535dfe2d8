// SPDX-License-Identifier: Apache-2.0
// The MPI ping-pong workload: latency, one-way and bidirectional bandwidth per size.
#include "sim/workloads/mpi_workloads.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>

#include "base/rng.h"
#include "sim/distrib/split_run.h"
#include "sim/workloads/collective_values.h"
#include "sim/workloads/mpi_job_totals.h"
#include "sim/workloads/mpi_workload_parts.h"

namespace nicsim::sim {

using mpi::Base;
using mpi::Datatype;
using mpi::kByte;
using mpi_workload::BufferPlanBytes;
using mpi_workload::CheckBufferPlan;
using mpi_workload::CheckReceived;
using mpi_workload::CountSent;
using mpi_workload::NeedRanks;

namespace {

/**
 * `count` message buffers of `size` bytes for one rank's program. With `zero_copy` they are
 * slots of `largest` bytes in AllocMem areas (task memory the adapter reaches; as many slots
 * to an area as fit, since each area takes a 16 MiB page), allocated into `kept` the first
 * time and reused for every size after; else, or when the task had no room for them all,
 * plain memory held in `plain`.
 */
std::vector<uint8_t*> MessageBuffers(mpi::Mpi& m, bool zero_copy, size_t count, size_t size,
                                     size_t largest, std::vector<uint8_t*>& kept,
                                     std::vector<std::vector<uint8_t>>& plain) {
  if (zero_copy && kept.empty()) {
    const size_t per_area = std::max<size_t>(1, mpi::Mpi::kAllocMemMaxBytes / largest);
    while (kept.size() < count) {
      const size_t slots = std::min(per_area, count - kept.size());
      auto* area = static_cast<uint8_t*>(m.AllocMem(slots * largest));
      for (size_t s = 0; s < slots; ++s) kept.push_back(area ? area + s * largest : nullptr);
      if (area == nullptr) break;
    }
  }
  if (zero_copy && kept.size() == count &&
      std::find(kept.begin(), kept.end(), nullptr) == kept.end()) {
    return kept;
  }
  plain.assign(count, std::vector<uint8_t>(std::max<size_t>(size, 1)));
  std::vector<uint8_t*> buffers;
  for (std::vector<uint8_t>& p : plain) buffers.push_back(p.data());
  return buffers;
}

/** Pattern key of a ping-pong message: size, phase, index and sender all differ. */
uint64_t PingPongKey(size_t size, uint32_t phase, uint64_t index, int rank) {
  return (uint64_t{static_cast<uint32_t>(size)} << 32) ^ (uint64_t{phase} << 28) ^ (index << 1) ^
         static_cast<uint64_t>(rank);
}

/** One rank of a pair at one size: its latency rounds and its bandwidth windows. */
class PingPongRank {
 public:
  PingPongRank(MpiJob& job, mpi::Mpi& m, const MpiPingPongConfig& config, size_t size,
               WorkloadResult& out)
      : job_(job),
        m_(m),
        config_(config),
        size_(size),
        out_(out),
        w_(m.world()),
        peer_(w_.rank ^ 1),
        label_(fmt::format("mpi_pingpong size {}", size)) {}

  /** Three warm-up rounds, then the timed ones: the half round trip in microseconds. */
  double Latency(uint8_t* out_ptr, uint8_t* in_ptr) {
    double t0 = 0;
    const bool first = w_.rank % 2 == 0;
    for (int i = -3; i < static_cast<int>(config_.iterations); ++i) {
      if (i == 0) t0 = m_.Wtime();
      const auto round = static_cast<uint64_t>(i + 3);
      for (int turn = 0; turn < 2; ++turn) {
        if ((turn == 0) == first) {
          FillPattern(out_ptr, static_cast<uint32_t>(size_), PingPongKey(size_, 0, round, w_.rank));
          m_.Send(out_ptr, size_, kByte, peer_, 1, w_);
          CountSent(out_);
          continue;
        }
        if (config_.compute_ps == 0) {
          m_.Recv(in_ptr, size_, kByte, peer_, 1, w_);
        } else {
          std::vector<mpi::Mpi::Request> recv{m_.Irecv(in_ptr, size_, kByte, peer_, 1, w_)};
          job_.Sleep(static_cast<uint32_t>(w_.rank), config_.compute_ps);
          m_.Waitall(recv);
        }
        CheckReceived(out_, in_ptr, size_, PingPongKey(size_, 0, round, peer_), [&] {
          return fmt::format("{}: round {} from rank {}", label_, round, peer_);
        });
      }
    }
    return (m_.Wtime() - t0) * 1e6 / config_.iterations / 2;
  }

  /** A window of messages in flight, one way (`both` false) or both ways: MB/s. */
  double Bandwidth(bool both, uint8_t* const* sends, uint8_t* const* recvs) {
    int one = 0;
    m_.Sendrecv(&one, 0, kByte, peer_, 2, &one, 0, kByte, peer_, 2, w_);  // line up
    const double start = m_.Wtime();
    const bool sending = w_.rank % 2 == 0 || both;
    const bool receiving = w_.rank % 2 == 1 || both;
    const uint32_t phase = both ? 2 : 1;
    for (uint32_t done = 0; done < config_.bandwidth_messages; done += config_.window) {
      std::vector<mpi::Mpi::Request> rs;
      for (uint32_t k = 0; k < config_.window; ++k) {
        if (receiving) rs.push_back(m_.Irecv(recvs[k], size_, kByte, peer_, 3, w_));
        if (sending) {
          FillPattern(sends[k], static_cast<uint32_t>(size_),
                      PingPongKey(size_, phase, done + k, w_.rank));
          rs.push_back(m_.Isend(sends[k], size_, kByte, peer_, 3, w_));
          CountSent(out_);
        }
      }
      m_.Waitall(rs);
      for (uint32_t k = 0; receiving && k < config_.window; ++k) {
        CheckReceived(out_, recvs[k], size_, PingPongKey(size_, phase, done + k, peer_), [&] {
          return fmt::format("{}: bandwidth message {} from rank {}", label_, done + k, peer_);
        });
      }
    }
    m_.Sendrecv(&one, 0, kByte, peer_, 2, &one, 0, kByte, peer_, 2, w_);
    const double seconds = m_.Wtime() - start;
    return static_cast<double>(size_) * config_.bandwidth_messages * (both ? 2 : 1) / seconds / 1e6;
  }

 private:
  MpiJob& job_;
  mpi::Mpi& m_;
  const MpiPingPongConfig& config_;
  const size_t size_;
  WorkloadResult& out_;
  const mpi::Comm& w_;
  const int peer_;
  const std::string label_;
};

}  // namespace

Result<WorkloadResult> RunMpiPingPong(MpiJob& job, const MpiPingPongConfig& config) {
  if (Status s = NeedRanks(job, 2 * config.pairs, "mpi_pingpong"); !s.ok()) return s;
  const int pair_ranks = static_cast<int>(2 * config.pairs);
  WorkloadResult out;
  out.table = fmt::format("{:>10}  {:>12}  {:>14}  {:>14}\n", "size_B", "latency_us", "oneway_MB/s",
                          "bidir_MB/s");
  nlohmann::json points = nlohmann::json::array();
  const size_t largest = static_cast<size_t>(
      std::max<int64_t>(1, *std::max_element(config.sizes.begin(), config.sizes.end())));
  // Plain buffers at the largest size, the most a rank holds (zero copy's are task memory,
  // counted as simulated memory).
  const uint64_t buffers_per_rank = 2 + 2 * uint64_t{config.window};
  if (Status plan = CheckBufferPlan(
          job, config.zero_copy ? 0 : BufferPlanBytes(pair_ranks, buffers_per_rank * largest),
          fmt::format("mpi_pingpong of {} pair{} at {} bytes", config.pairs,
                      config.pairs == 1 ? "" : "s", largest));
      !plan.ok()) {
    out.Stall(plan);
    return out;
  }
  // Per rank, the AllocMem areas (zero_copy): latency out and in, then the bandwidth phase's
  // sends and receives.
  std::vector<std::vector<uint8_t*>> zero_copy_areas(job.ranks());
  for (int64_t size64 : config.sizes) {
    const auto size = static_cast<size_t>(size64);
    // Each pair's latency, summed in pair order after the run (the same sum however the
    // ranks were split over processes).
    std::vector<double> pair_latency_us(config.pairs, 0.0);
    double oneway = 0, bidir = 0;
    Status s = job.Run([&](mpi::Mpi& m) {
      const auto& w = m.world();
      if (w.rank >= pair_ranks) return;
      // Every message carries its own pattern; every one received is checked.
      std::vector<std::vector<uint8_t>> plain;
      const std::vector<uint8_t*> buffers =
          MessageBuffers(m, config.zero_copy, 2 + 2 * size_t{config.window}, size, largest,
                         zero_copy_areas[static_cast<size_t>(w.rank)], plain);
      PingPongRank rank(job, m, config, size, out);
      const double latency_us = rank.Latency(buffers[0], buffers[1]);
      if (w.rank % 2 == 0) pair_latency_us[static_cast<size_t>(w.rank / 2)] = latency_us;
      for (const bool both : {false, true}) {
        const double mbps = rank.Bandwidth(both, &buffers[2], &buffers[2 + config.window]);
        if (w.rank == 0) (both ? bidir : oneway) = mbps;
      }
    });
    if (!s.ok()) {
      out.Stall(s);
      break;
    }
    double latency_sum_us = 0;
    for (double pair : pair_latency_us) latency_sum_us += FromMeasuringProcess(job, pair);
    const double latency_us = latency_sum_us / config.pairs;
    oneway = FromMeasuringProcess(job, oneway);
    bidir = FromMeasuringProcess(job, bidir);
    out.table +=
        fmt::format("{:>10}  {:>12.3f}  {:>14.1f}  {:>14.1f}\n", size, latency_us, oneway, bidir);
    points.push_back({{"size_bytes", size},
                      {"latency_us", latency_us},
                      {"oneway_mbps", oneway},
                      {"bidirectional_mbps", bidir}});
  }
  nlohmann::json mpi_totals = MergePartitions(job, out);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/false);
  out.results = {{"workload", "mpi_pingpong"},
                 {"iterations", config.iterations},
                 {"points", points},
                 {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

}  // namespace nicsim::sim
