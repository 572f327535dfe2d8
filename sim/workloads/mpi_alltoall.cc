// SPDX-License-Identifier: Apache-2.0
// The MPI all-to-all workload: random traffic between every pair, or the complete exchange.
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
using mpi_workload::CheckReceived;
using mpi_workload::CountSent;
using mpi_workload::NeedRanks;

namespace {

/** The pairwise schedule of a complete exchange: who sends what in each step. */
struct PairwiseSchedule {
  PairwiseSchedule(const MpiAlltoallConfig& c, int ranks, uint64_t run_seed)
      : config(c),
        n(ranks),
        seed(run_seed),
        large_below(static_cast<uint64_t>(c.large_pairs * (1u << 20))),
        steps(static_cast<uint32_t>(ranks - 1)),
        window(c.window == 0 ? steps : std::min(c.window, steps)) {}

  /** A pair is large or not, both ways, by a seeded draw. */
  size_t LenOf(int a, int b) const {
    const uint64_t lo = static_cast<uint64_t>(std::min(a, b)),
                   hi = static_cast<uint64_t>(std::max(a, b));
    Rng pair(seed ^ (lo * 1'000'003 + hi), "mpi_alltoall_pair");
    return static_cast<size_t>(pair.Below(1u << 20) < large_below ? config.max_size
                                                                  : config.small_size);
  }
  /** A message's pattern key: the plan index of the one-round exchange, then round by round. */
  uint64_t KeyOf(uint32_t round, int src, uint32_t step) const {
    return (static_cast<uint64_t>(round) * static_cast<uint64_t>(n) + static_cast<uint64_t>(src)) *
               steps +
           (step - 1);
  }

  const MpiAlltoallConfig& config;
  const int n;
  const uint64_t seed;
  const uint64_t large_below;
  const uint32_t steps;
  const uint32_t window;
};

/** One rank's part of the exchange: the bytes it received checked and added to `bytes`;
 *  rank 0 sets `seconds`. */
void ExchangeOnRank(mpi::Mpi& m, const PairwiseSchedule& plan, WorkloadResult& out, uint64_t* bytes,
                    double* seconds) {
  const auto& w = m.world();
  /** One step in flight: its buffers and its two requests. */
  struct Step {
    uint32_t round, step;
    int from;
    std::vector<uint8_t> send, recv;
    std::vector<mpi::Mpi::Request> rs;
  };
  std::deque<Step> live;
  const auto finish_oldest = [&] {
    Step& st = live.front();
    m.Waitall(st.rs);
    CheckReceived(out, st.recv.data(), st.recv.size(), plan.KeyOf(st.round, st.from, st.step), [&] {
      return fmt::format("mpi_alltoall: round {} step {} ({} -> {}, {} B)", st.round, st.step,
                         st.from, w.rank, st.recv.size());
    });
    *bytes += st.recv.size();
    live.pop_front();
  };
  const int n = plan.n;
  m.Barrier(w);
  const double start = m.Wtime();
  for (uint32_t round = 0; round < plan.config.rounds; ++round) {
    for (uint32_t k = 1; k <= plan.steps; ++k) {
      if (live.size() == plan.window) finish_oldest();
      const int to = (w.rank + static_cast<int>(k)) % n;
      const int from = (w.rank + n - static_cast<int>(k)) % n;
      Step& st = live.emplace_back(Step{round,
                                        k,
                                        from,
                                        std::vector<uint8_t>(plan.LenOf(w.rank, to)),
                                        std::vector<uint8_t>(plan.LenOf(from, w.rank)),
                                        {}});
      const int tag = static_cast<int>(k);
      st.rs.push_back(m.Irecv(st.recv.data(), st.recv.size(), kByte, from, tag, w));
      FillPattern(st.send.data(), static_cast<uint32_t>(st.send.size()),
                  plan.KeyOf(round, w.rank, k));
      st.rs.push_back(m.Isend(st.send.data(), st.send.size(), kByte, to, tag, w));
      CountSent(out);
    }
  }
  while (!live.empty()) finish_oldest();
  m.Barrier(w);
  if (w.rank == 0) *seconds = m.Wtime() - start;
}

/**
 * The complete exchange (config.large_pairs > 0) on a pairwise schedule: in step k (1..n-1)
 * rank r sends to (r + k) % n and receives from (r - k) % n, at most `window` steps in flight
 * (0: all), so a rank holds the buffers of those steps only; the whole is done `rounds` times
 * (later rounds find the connections the first one made).
 */
Result<WorkloadResult> RunCompleteExchange(MpiJob& job, const MpiAlltoallConfig& config) {
  WorkloadResult out;
  const int n = static_cast<int>(job.ranks());
  const PairwiseSchedule plan(config, n, job.cluster().config().seed);
  uint64_t bytes = 0;
  double seconds = 0;
  Status s = job.Run([&](mpi::Mpi& m) { ExchangeOnRank(m, plan, out, &bytes, &seconds); });
  if (!s.ok()) out.Stall(s);
  nlohmann::json mpi_totals = MergePartitions(job, out);
  MergeBytesAndTime(job, &bytes, &seconds);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/false);
  const uint64_t messages = static_cast<uint64_t>(n) * plan.steps * config.rounds;
  const double mbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0;
  out.table = fmt::format("{:>8}  {:>10}  {:>12}  {:>16}\n{:>8}  {:>10}  {:>12}  {:>16.1f}\n",
                          "ranks", "messages", "bytes", "aggregate_MB/s", n, messages, bytes, mbps);
  out.results = {{"workload", "mpi_alltoall"}, {"ranks", n},
                 {"messages", messages},       {"rounds", config.rounds},
                 {"window", plan.window},      {"bytes", bytes},
                 {"aggregate_mbps", mbps},     {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

}  // namespace

Result<WorkloadResult> RunMpiRandomAlltoall(MpiJob& job, const MpiAlltoallConfig& config) {
  if (Status s = NeedRanks(job, 2, "mpi_alltoall"); !s.ok()) return s;
  if (config.large_pairs > 0) return RunCompleteExchange(job, config);
  WorkloadResult out;
  const int n = static_cast<int>(job.ranks());
  const uint64_t seed = job.cluster().config().seed;
  uint64_t bytes = 0;
  double seconds = 0;
  // Every rank derives the whole traffic matrix from the seed, so it knows what to expect.
  struct Msg {
    int src, dst;
    size_t len;
  };
  std::vector<Msg> all;
  Rng rng(seed, "mpi_alltoall");
  const uint32_t per_rank = config.messages_per_rank;
  for (int src = 0; src < n; ++src) {
    for (uint32_t i = 0; i < per_rank; ++i) {
      int dst = static_cast<int>(rng.Below(static_cast<uint64_t>(n - 1)));
      if (dst >= src) ++dst;
      all.push_back(
          {src, dst, static_cast<size_t>(rng.Below(static_cast<uint64_t>(config.max_size) + 1))});
    }
  }
  // Each rank's messages in, by index: no rank scans the whole plan (that is N x N work).
  std::vector<std::vector<size_t>> to_rank(static_cast<size_t>(n));
  for (size_t i = 0; i < all.size(); ++i) to_rank[static_cast<size_t>(all[i].dst)].push_back(i);
  Status s = job.Run([&](mpi::Mpi& m) {
    const auto& w = m.world();
    std::vector<std::vector<uint8_t>> sends, recvs;
    std::vector<mpi::Mpi::Request> rs;
    const std::vector<size_t>& recv_index = to_rank[static_cast<size_t>(w.rank)];
    for (const size_t i : recv_index) recvs.emplace_back(all[i].len);
    m.Barrier(w);
    const double start = m.Wtime();
    size_t r = 0;
    for (const size_t i : recv_index) {
      rs.push_back(m.Irecv(recvs[r].data(), all[i].len, kByte, all[i].src,
                           static_cast<int>(i % (1 << 20)), w));
      ++r;
    }
    // A rank's own messages are consecutive in the plan.
    const size_t first = static_cast<size_t>(w.rank) * per_rank;
    for (size_t i = first; i < first + per_rank; ++i) {
      sends.emplace_back(all[i].len);
      FillPattern(sends.back().data(), static_cast<uint32_t>(all[i].len), i);
      rs.push_back(m.Isend(sends.back().data(), all[i].len, kByte, all[i].dst,
                           static_cast<int>(i % (1 << 20)), w));
      CountSent(out);
    }
    m.Waitall(rs);
    m.Barrier(w);
    if (w.rank == 0) seconds = m.Wtime() - start;
    for (size_t k = 0; k < recvs.size(); ++k) {
      const size_t i = recv_index[k];
      CheckReceived(out, recvs[k].data(), all[i].len, i, [&] {
        return fmt::format("mpi_alltoall: message {} ({} -> {}, {} B)", i, all[i].src, all[i].dst,
                           all[i].len);
      });
      bytes += all[i].len;
    }
  });
  if (!s.ok()) out.Stall(s);
  nlohmann::json mpi_totals = MergePartitions(job, out);
  MergeBytesAndTime(job, &bytes, &seconds);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/false);
  const double mbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0;
  out.table =
      fmt::format("{:>8}  {:>10}  {:>12}  {:>16}\n{:>8}  {:>10}  {:>12}  {:>16.1f}\n", "ranks",
                  "messages", "bytes", "aggregate_MB/s", n, all.size(), bytes, mbps);
  out.results = {{"workload", "mpi_alltoall"}, {"ranks", n},
                 {"messages", all.size()},     {"bytes", bytes},
                 {"aggregate_mbps", mbps},     {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

}  // namespace nicsim::sim
