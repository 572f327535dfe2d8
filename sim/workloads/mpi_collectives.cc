// SPDX-License-Identifier: Apache-2.0
// The MPI collectives workload: each collective timed per size, beside its link-rate floor.
#include "sim/workloads/mpi_workloads.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>

#include "base/rng.h"
#include "sim/cluster/mpi_link_model.h"
#include "sim/distrib/split_run.h"
#include "sim/workloads/collective_values.h"
#include "sim/workloads/mpi_job_totals.h"
#include "sim/workloads/mpi_workload_parts.h"
#include "ulp/mpi/collective_floor.h"

namespace nicsim::sim {

using mpi::Base;
using mpi::Datatype;
using mpi_workload::AlltoallValue;
using mpi_workload::BufferPlanBytes;
using mpi_workload::CheckBufferPlan;

namespace {

/** The link-rate floor of one call of `kind` with `bytes` per rank on this job's cluster. */
std::optional<double> CollectiveFloorUs(MpiJob& job, mpi::CollectiveKind kind, size_t bytes) {
  const mpi::LinkModel link = LinkModelOf(job.config());
  const std::optional<uint64_t> ps =
      mpi::CollectiveFloorPs(kind, bytes, static_cast<int>(job.ranks()), link, job.config().mpi);
  if (!ps) return std::nullopt;
  return static_cast<double>(*ps) / 1e6;
}

/** The shape of one size's run: ints per block, the result buffer's length. */
struct SizePlan {
  size_t size = 0;
  size_t ints = 0;
  size_t wide = 0;
  int ranks = 0;
};

/** One rank's part at one size: each selected collective timed (rank 0 keeps the slowest
 *  rank's time in `t`), its result checked against the serial one. */
void TimeOnRank(mpi::Mpi& m, const MpiCollectivesConfig& config, const SizePlan& plan,
                const std::vector<int32_t>& sums, double (&t)[5], WorkloadResult& out) {
  const CollectiveSelection& timed = config.timed;
  const size_t size = plan.size, ints = plan.ints, wide = plan.wide;
  const int n = plan.ranks;
  const auto& w = m.world();
  const Datatype kInt = Datatype::Of(Base::kInt32);
  std::vector<int32_t> a(ints), b(wide), c(timed[4] ? ints * n : 0);
  // Each call's inputs are set before its timed loop (every call is idempotent, so the
  // result after the loop is the result of one call) and its result checked after.
  const std::function<void()> setup[5] = {
      [] {},
      [&] { FillCollectiveRow(w.rank, a.data(), ints); },
      [&] { FillCollectiveRow(w.rank, a.data(), ints); },
      [&] { FillCollectiveRow(w.rank, a.data(), ints); },
      [&] {
        for (int d = 0; d < n; ++d) {
          for (size_t j = 0; j < ints; ++j) c[d * ints + j] = AlltoallValue(w.rank, d, j);
        }
      },
  };
  const std::function<void()> calls[5] = {
      [&] { m.Barrier(w); },
      [&] { m.Bcast(a.data(), ints, kInt, 0, w); },
      [&] { m.Allreduce(a.data(), b.data(), ints, kInt, mpi::Op::kSum, w); },
      [&] { m.Allgather(a.data(), ints, kInt, b.data(), w); },
      [&] { m.Alltoall(c.data(), ints, kInt, b.data(), w); },
  };
  // How many values of each call's result differ from what a serial computation gives.
  const std::function<size_t()> mismatches[5] = {
      [] { return size_t{0}; },
      [&] { return CollectiveRowMismatches(0, a.data(), ints); },
      [&] {
        size_t wrong = 0;
        for (size_t j = 0; j < ints; ++j) wrong += b[j] != sums[j];
        return wrong;
      },
      [&] {
        size_t wrong = 0;
        for (int d = 0; d < n; ++d) wrong += CollectiveRowMismatches(d, &b[d * ints], ints);
        return wrong;
      },
      [&] {
        size_t wrong = 0;
        for (size_t j = 0; j < ints * n; ++j) {
          wrong += b[j] != AlltoallValue(static_cast<int>(j / ints), w.rank, j % ints);
        }
        return wrong;
      },
  };
  const size_t result_len[5] = {0, ints, ints, ints * n, ints * n};
  for (int k = 0; k < 5; ++k) {
    if (!timed[k]) continue;
    setup[k]();
    m.Barrier(w);
    const double start = m.Wtime();
    for (uint32_t i = 0; i < config.iterations; ++i) calls[k]();
    // A collective takes as long as its slowest rank (a root may leave early).
    const double mine = (m.Wtime() - start) * 1e6 / config.iterations;
    double slowest = 0;
    m.Reduce(&mine, &slowest, 1, Datatype::Of(Base::kDouble), mpi::Op::kMax, 0, w);
    if (w.rank == 0) t[k] = slowest;
    const size_t wrong = mismatches[k]();
    if (wrong > 0) {
      out.AddError(
          fmt::format("mpi_collectives size {}: {} on rank {}: {} of {} values "
                      "differ from the serial result",
                      size, kCollectiveNames[k], w.rank, wrong, result_len[k]));
    }
  }
}

/** The size's row of times, its floor and ratio rows (mpi::CollectiveFloorPs), and its
 *  point in the results. */
nlohmann::json AddRows(MpiJob& job, const CollectiveSelection& timed, size_t size, size_t ints,
                       const double (&t)[5], std::string* table) {
  *table += fmt::format("{:>10}", size);
  nlohmann::json point = {{"size_bytes", size}};
  // Beside each time, what its algorithm needs at link rate (mpi::CollectiveFloorPs).
  std::string floor_row = fmt::format("{:>10}", "floor"),
              ratio_row = fmt::format("{:>10}", "x floor");
  for (size_t k = 0; k < kCollectiveNames.size(); ++k) {
    *table += timed[k] ? fmt::format("  {:>10.2f}", t[k]) : fmt::format("  {:>10}", "-");
    const std::optional<double> floor =
        timed[k] ? CollectiveFloorUs(job, static_cast<mpi::CollectiveKind>(k), ints * 4)
                 : std::nullopt;
    const double floor_us = floor.value_or(0);
    floor_row += floor ? fmt::format("  {:>10.2f}", floor_us) : fmt::format("  {:>10}", "-");
    ratio_row +=
        floor_us > 0 ? fmt::format("  {:>10.2f}", t[k] / floor_us) : fmt::format("  {:>10}", "-");
    if (timed[k]) point[fmt::format("{}_us", kCollectiveNames[k])] = t[k];
    if (floor) point[fmt::format("{}_floor_us", kCollectiveNames[k])] = floor_us;
  }
  *table += "\n" + floor_row + "\n" + ratio_row + "\n";
  return point;
}

}  // namespace

Result<WorkloadResult> RunMpiCollectives(MpiJob& job, const MpiCollectivesConfig& config) {
  WorkloadResult out;
  const int n = static_cast<int>(job.ranks());
  const CollectiveSelection& timed = config.timed;
  out.table =
      fmt::format("{:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}   (us per call, {} ranks)\n",
                  "size_B", "barrier", "bcast", "allreduce", "allgather", "alltoall", n);
  nlohmann::json points = nlohmann::json::array();
  for (int64_t size64 : config.sizes) {
    const auto size = static_cast<size_t>(size64);
    double t[5] = {};
    const size_t ints = std::max<size_t>(size / 4, 1);
    // Only allgather and alltoall need buffers of a block per rank.
    const size_t wide = timed[3] || timed[4] ? ints * n : ints;
    const uint64_t per_rank = 4 * (uint64_t{ints} + wide + (timed[4] ? uint64_t{ints} * n : 0));
    if (Status plan = CheckBufferPlan(job, BufferPlanBytes(n, per_rank, timed[2] ? 4 * ints : 0),
                                      fmt::format("mpi_collectives at {} bytes", size));
        !plan.ok()) {
      out.Stall(plan);
      break;
    }
    // The allreduce's serial result, computed once for every rank to compare with.
    const std::vector<int32_t> sums = timed[2] ? CollectiveSums(n, ints) : std::vector<int32_t>();
    Status s = job.Run([&](mpi::Mpi& m) {
      TimeOnRank(m, config, SizePlan{size, ints, wide, n}, sums, t, out);
    });
    if (!s.ok()) {
      out.Stall(s);
      break;
    }
    for (double& slowest : t) slowest = FromMeasuringProcess(job, slowest);  // rank 0's
    points.push_back(AddRows(job, timed, size, ints, t, &out.table));
  }
  nlohmann::json mpi_totals = MergePartitions(job, out);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/true);
  out.results = {{"workload", "mpi_collectives"},
                 {"ranks", n},
                 {"points", points},
                 {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

}  // namespace nicsim::sim
