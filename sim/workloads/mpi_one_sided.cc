// SPDX-License-Identifier: Apache-2.0
// The one-sided MPI workload, per size: a complete exchange by puts into every other rank's
// window and a fence, against the same exchange by MPI_Alltoall; and a halo exchange on a ring
// (a block to each neighbour) by puts and a fence, against the same by nonblocking sends and
// receives. Every block checked.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sim/workloads/mpi_job_totals.h"
#include "sim/workloads/mpi_workload_parts.h"
#include "sim/workloads/mpi_workloads.h"

namespace nicsim::sim {

using mpi::kByte;
using mpi_workload::BufferPlanBytes;
using mpi_workload::CheckBufferPlan;
using mpi_workload::CheckReceived;
using mpi_workload::CountSent;

namespace {

/** Pattern key of the block rank `from` sends rank `to` in round `round` (`put`: by a put). */
uint64_t BlockKey(size_t size, bool put, uint32_t round, int from, int to) {
  return (uint64_t{static_cast<uint32_t>(size)} << 32) ^ (uint64_t{put} << 31) ^
         (uint64_t{round} << 22) ^ (static_cast<uint64_t>(from) << 11) ^ static_cast<uint64_t>(to);
}

/** Pattern key of the halo block rank `from` sends its neighbour `to` on `side` (0: the block
 *  lands in the neighbour's left halo, 1: its right). */
uint64_t HaloKey(size_t size, bool put, uint32_t round, int from, int to, int side) {
  return BlockKey(size, put, round, from, to) ^ (uint64_t{static_cast<uint32_t>(side) + 1} << 62);
}

/**
 * A rank's buffers for every size: a window of two halves and a send and a receive area, each
 * half and area of a block per rank at the largest size, in AllocMem areas when they fit (where
 * the adapter reaches them), else in plain memory. Made at the first size and kept (an AllocMem
 * area is the rank's for good). Rounds use the halves in turn: a rank checks what one round put
 * in its window while the ranks already past that round's fence put the next round into the
 * other half (a fence does not hold them back until the checks are done, nor does MPI's).
 */
struct RankBuffers {
  uint8_t* window = nullptr;
  uint8_t* send = nullptr;
  uint8_t* recv = nullptr;
  std::vector<uint8_t> plain[3];

  void Make(mpi::Mpi& m, size_t bytes) {
    if (window != nullptr) return;
    uint8_t** areas[3] = {&window, &send, &recv};
    for (int i = 0; i < 3; ++i) {
      const size_t area = i == 0 ? 2 * bytes : bytes;
      void* at = area <= mpi::Mpi::kAllocMemMaxBytes ? m.AllocMem(area) : nullptr;
      if (at == nullptr) {
        plain[i].assign(std::max<size_t>(area, 1), 0);
        at = plain[i].data();
      }
      *areas[i] = static_cast<uint8_t*>(at);
    }
  }
};

/** Rank 0's times of one size, in microseconds per exchange. */
struct Times {
  double put = 0;
  double alltoall = 0;
  double halo_put = 0;
  double halo_two_sided = 0;
};

/**
 * One rank at one size: the halo exchange, by puts into the neighbours' halos (the first two
 * blocks of the round's half of the window: left, right) and a fence, then by sends and receives,
 * each `rounds` times, timed (rank 0 keeps its times in `times`).
 */
void HaloOnRank(mpi::Mpi& m, size_t size, uint32_t rounds, const RankBuffers& buffers,
                const mpi::Win& win, WorkloadResult& out, Times* times) {
  const mpi::Comm& w = m.world();
  const int n = w.size();
  const int neighbour[2] = {(w.rank + n - 1) % n, (w.rank + 1) % n};
  // Side s of this rank's halo holds what neighbour[s] sent: to neighbour[s] goes side 1 - s.
  auto fill = [&](bool put, uint32_t round) {
    for (int s = 0; s < 2; ++s) {
      FillPattern(buffers.send + s * size, static_cast<uint32_t>(size),
                  HaloKey(size, put, round, w.rank, neighbour[s], 1 - s));
    }
  };
  auto check = [&](const uint8_t* halo, bool put, uint32_t round) {
    for (int s = 0; s < 2; ++s) {
      CheckReceived(out, halo + s * size, size, HaloKey(size, put, round, neighbour[s], w.rank, s),
                    [&] {
                      return fmt::format("mpi_one_sided size {}: halo {} round {} from rank {}",
                                         size, put ? "put" : "send", round, neighbour[s]);
                    });
    }
  };
  m.Barrier(w);
  double start = m.Wtime();
  for (uint32_t round = 0; round < rounds; ++round) {
    fill(true, round);
    const size_t half = (round % 2) * static_cast<size_t>(n) * size;
    for (int s = 0; s < 2; ++s) {
      m.Put(buffers.send + s * size, size, kByte, neighbour[s], half + (1 - s) * size, win);
      CountSent(out);
    }
    m.Fence(win);
    check(buffers.window + half, true, round);
  }
  if (w.rank == 0) times->halo_put = (m.Wtime() - start) * 1e6 / rounds;
  m.Barrier(w);
  start = m.Wtime();
  for (uint32_t round = 0; round < rounds; ++round) {
    fill(false, round);
    std::vector<mpi::Mpi::Request> requests;
    for (int s = 0; s < 2; ++s) {
      requests.push_back(m.Irecv(buffers.recv + s * size, size, kByte, neighbour[s], s, w));
    }
    for (int s = 0; s < 2; ++s) {
      requests.push_back(m.Isend(buffers.send + s * size, size, kByte, neighbour[s], 1 - s, w));
      CountSent(out);
    }
    m.Waitall(requests);
    check(buffers.recv, false, round);
  }
  if (w.rank == 0) times->halo_two_sided = (m.Wtime() - start) * 1e6 / rounds;
}

/** One rank at one size: the put exchange and the alltoall, each `rounds` times, timed, then
 *  the halo exchange (rank 0 keeps its times in `times`). */
void ExchangeOnRank(mpi::Mpi& m, size_t size, uint32_t rounds, const RankBuffers& buffers,
                    WorkloadResult& out, Times* times) {
  const mpi::Comm& w = m.world();
  const int n = w.size();
  uint8_t* send = buffers.send;
  uint8_t* recv = buffers.recv;
  const uint8_t* window = buffers.window;
  const mpi::Win win = m.WinCreate(buffers.window, 2 * size * static_cast<size_t>(n), w);
  auto fill = [&](bool put, uint32_t round) {
    for (int to = 0; to < n; ++to) {
      if (to == w.rank) continue;
      FillPattern(send + to * size, static_cast<uint32_t>(size),
                  BlockKey(size, put, round, w.rank, to));
    }
  };
  auto check = [&](const uint8_t* blocks, bool put, uint32_t round) {
    for (int from = 0; from < n; ++from) {
      if (from == w.rank) continue;
      CheckReceived(out, blocks + from * size, size, BlockKey(size, put, round, from, w.rank), [&] {
        return fmt::format("mpi_one_sided size {}: {} round {} from rank {}", size,
                           put ? "put" : "alltoall", round, from);
      });
    }
  };
  m.Barrier(w);
  double start = m.Wtime();
  for (uint32_t round = 0; round < rounds; ++round) {
    fill(true, round);
    const size_t half = (round % 2) * static_cast<size_t>(n) * size;
    for (int k = 1; k < n; ++k) {
      const int to = (w.rank + k) % n;
      m.Put(send + to * size, size, kByte, to, half + static_cast<uint64_t>(w.rank) * size, win);
      CountSent(out);
    }
    m.Fence(win);
    check(window + half, true, round);
  }
  if (w.rank == 0) times->put = (m.Wtime() - start) * 1e6 / rounds;
  m.Barrier(w);
  start = m.Wtime();
  for (uint32_t round = 0; round < rounds; ++round) {
    fill(false, round);
    m.Alltoall(send, size, kByte, recv, w);
    for (int k = 1; k < n; ++k) CountSent(out);
    check(recv, false, round);
  }
  if (w.rank == 0) times->alltoall = (m.Wtime() - start) * 1e6 / rounds;
  if (n >= 2) HaloOnRank(m, size, rounds, buffers, win, out, times);
  m.WinFree(win);
}

}  // namespace

Result<WorkloadResult> RunMpiOneSided(MpiJob& job, const MpiOneSidedConfig& config) {
  WorkloadResult out;
  const int n = static_cast<int>(job.ranks());
  out.table = fmt::format(
      "{:>10}  {:>12}  {:>12}  {:>8}  {:>12}  {:>12}  {:>8}   (us per exchange, {} ranks)\n",
      "size_B", "put+fence", "alltoall", "ratio", "halo_put", "halo_2sided", "ratio", n);
  nlohmann::json points = nlohmann::json::array();
  int64_t largest = 1;
  for (int64_t size64 : config.sizes) largest = std::max(largest, size64);
  std::vector<RankBuffers> buffers(static_cast<size_t>(n));
  for (int64_t size64 : config.sizes) {
    const auto size = static_cast<size_t>(size64);
    // A window of two halves, a send and a receive buffer, each of a block per rank at the
    // largest size, in each rank.
    const uint64_t per_rank = 4 * static_cast<uint64_t>(largest) * static_cast<uint64_t>(n);
    if (Status plan = CheckBufferPlan(job, BufferPlanBytes(n, per_rank),
                                      fmt::format("mpi_one_sided at {} bytes", size));
        !plan.ok()) {
      out.Stall(plan);
      break;
    }
    Times t;
    Status s = job.Run([&](mpi::Mpi& m) {
      RankBuffers& mine = buffers[static_cast<size_t>(m.world().rank)];
      mine.Make(m, static_cast<size_t>(largest) * static_cast<size_t>(n));
      ExchangeOnRank(m, size, config.rounds, mine, out, &t);
    });
    if (!s.ok()) {
      out.Stall(s);
      break;
    }
    for (double* us : {&t.put, &t.alltoall, &t.halo_put, &t.halo_two_sided}) {
      *us = FromMeasuringProcess(job, *us);
    }
    const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0; };
    out.table +=
        fmt::format("{:>10}  {:>12.2f}  {:>12.2f}  {:>8.3f}  {:>12.2f}  {:>12.2f}  {:>8.3f}\n",
                    size, t.put, t.alltoall, ratio(t.put, t.alltoall), t.halo_put, t.halo_two_sided,
                    ratio(t.halo_put, t.halo_two_sided));
    points.push_back({{"size", size},
                      {"put_fence_us", t.put},
                      {"alltoall_us", t.alltoall},
                      {"halo_put_fence_us", t.halo_put},
                      {"halo_two_sided_us", t.halo_two_sided}});
  }
  nlohmann::json mpi_totals = MergePartitions(job, out);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/false);
  out.results = {{"workload", "mpi_one_sided"},
                 {"ranks", n},
                 {"points", points},
                 {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

}  // namespace nicsim::sim
