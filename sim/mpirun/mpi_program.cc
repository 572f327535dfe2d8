// SPDX-License-Identifier: Apache-2.0
#include "sim/mpirun/mpi_program.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "sim/distrib/split_run.h"
#include "sim/mpirun/call_server.h"
#include "sim/mpirun/rank_process.h"
#include "sim/mpirun/shared_cpu.h"
#include "sim/workloads/mpi_job_totals.h"
#include "sim/workloads/mpi_workloads.h"

namespace nicsim::sim {
namespace {

/** Each rank holds four descriptors (its socket, the eventfd that wakes nicsim and two pipes)
 *  and a fifth while it starts: make room for them. */
void RaiseOpenFileLimit(uint32_t ranks) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  const rlim_t want = 4 * static_cast<rlim_t>(ranks) + 64;
  if (lim.rlim_cur >= want) return;
  lim.rlim_cur = std::min(want, lim.rlim_max);
  setrlimit(RLIMIT_NOFILE, &lim);
}

/** MPIEXEC_TIMEOUT (whole seconds, as MPICH's mpiexec reads it) in picoseconds; 0 if unset
 *  or not a positive number. */
uint64_t WallLimitFromEnvironment() {
  const char* text = std::getenv("MPIEXEC_TIMEOUT");
  if (text == nullptr) return 0;
  char* end = nullptr;
  const unsigned long long seconds = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || seconds == 0 || seconds > 100'000'000) return 0;
  return seconds * 1'000'000'000'000ull;
}

/** What the ranks did, by rank: the call each still waits in, the calls made, peak memory. */
struct RankSummary {
  nlohmann::json waiting = nlohmann::json::object();  // rank -> the call it is in
  nlohmann::json calls = nlohmann::json::object();
  nlohmann::json rss = nlohmann::json::object();  // rank -> its process's peak KiB
};

/** This process's ranks; a split run's processes merge theirs on every process, so each
 *  names every waiting rank in the same words (one error, MergeResults). */
RankSummary Summarize(MpiJob& job, const std::vector<RankRecord>& records) {
  RankSummary s;
  for (uint32_t r = 0; r < records.size(); ++r) {
    if (!job.IsLocal(r)) continue;
    s.rss[std::to_string(r)] = records[r].peak_rss_kib;
    if (!records[r].finalized) s.waiting[std::to_string(r)] = records[r].call;
    for (const auto& [name, n] : records[r].calls) {
      s.calls[name] = s.calls.value(name, uint64_t{0}) + n;
    }
  }
  distrib::SplitRun* split = job.cluster().config().split;
  if (split == nullptr) return s;
  std::vector<nlohmann::json> parts;
  for (const std::string& text :
       split->world().AllGather(nlohmann::json{s.waiting, s.calls, s.rss}.dump())) {
    parts.push_back(nlohmann::json::parse(text));
  }
  s = RankSummary{};
  for (const nlohmann::json& part : parts) {
    for (const auto& [r, call] : part[0].items()) s.waiting[r] = call;
    for (const auto& [r, kib] : part[2].items()) s.rss[r] = kib;
    for (const auto& [name, n] : part[1].items()) {
      s.calls[name] = s.calls.value(name, uint64_t{0}) + n.get<uint64_t>();
    }
  }
  return s;
}

/** A message that arrived and still waits unmatched once every rank has ended was sent for
 *  nothing: the program never received it (MPI calls such a program erroneous). */
void ReportUnmatched(MpiJob& job, WorkloadResult& out) {
  const uint64_t now_ps = job.cluster().events().now_ps();
  for (uint32_t r = 0; r < job.ranks(); ++r) {
    if (!job.IsLocal(r)) continue;
    if (const size_t n = job.mpi(r).unexpected_queued(); n > 0) {
      out.AddErrorAt(now_ps, r,
                     fmt::format("rank {} ended with {} message{} that arrived and never "
                                 "matched a receive",
                                 r, n, n == 1 ? "" : "s"));
    }
  }
}

}  // namespace

Result<WorkloadResult> RunMpiProgram(MpiJob& job, const MpiProgramConfig& given) {
  WorkloadResult out;
  RaiseOpenFileLimit(job.ranks());
  const StopSignals stop_signals;
  MpiProgramConfig config = given;
  if (config.wall_limit_ps == 0) config.wall_limit_ps = WallLimitFromEnvironment();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (config.wall_limit_ps > 0) {
    deadline =
        std::chrono::steady_clock::now() + std::chrono::nanoseconds(config.wall_limit_ps / 1000);
  }
  std::vector<RankRecord> records(job.ranks());
  // The limit holds while the simulator works too (a long transfer hears from no rank).
  job.SetWallDeadline(deadline,
                      fmt::format("the program run's wall-clock limit of {} s passed while the "
                                  "simulator ran (mpi.wall_limit, or MPIEXEC_TIMEOUT)",
                                  static_cast<double>(config.wall_limit_ps) * 1e-12));
  SharedSegments segments;
  // The ranks started below (and any rank threads) inherit the CPU.
  std::optional<SharedCpu> cpu;
  if (config.share_cpu) {
    distrib::SplitRun* split = job.cluster().config().split;
    cpu.emplace(split != nullptr ? std::optional<uint32_t>(split->world().rank()) : std::nullopt);
  }
  const bool spin = !(cpu && cpu->cpu());
  const Status run = job.Run([&](mpi::Mpi& m) {
    const int rank = m.world().rank;
    Result<std::unique_ptr<RankProcess>> process =
        RankProcess::Start(config.argv, rank, spin, config.compute == ComputeMode::kMeasured);
    if (!process.ok()) {
      job.Fail(process.status().message());
      return;
    }
    if (deadline) (*process)->SetDeadline(*deadline);
    CallServer server(job, m, **process, config, records[static_cast<size_t>(rank)], segments);
    const Status served = server.Serve();
    if (!served.ok()) job.Fail(served.message());
  });
  job.SetWallDeadline(std::nullopt, "");
  const RankSummary summary = Summarize(job, records);
  const nlohmann::json& waiting = summary.waiting;
  if (!run.ok()) {
    // Where each rank still waiting was: the call it is in (a deadlock names them all).
    std::string where;
    for (uint32_t r = 0; r < records.size() && where.size() < 2000; ++r) {
      if (!waiting.contains(std::to_string(r))) continue;
      where += fmt::format("{}rank {} in {}", where.empty() ? "" : ", ", r,
                           waiting[std::to_string(r)].get<std::string>());
    }
    out.Stall(Status::Error(run.message() + (where.empty() ? "" : " [" + where + "]")));
  }
  if (run.ok()) ReportUnmatched(job, out);
  nlohmann::json mpi_totals = MergePartitions(job, out);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/true);
  out.table = fmt::format("program {} on {} ranks: {}\n", config.argv[0], job.ranks(),
                          run.ok() ? "every rank finalized and exited with status 0" : "failed");
  nlohmann::json argv = config.argv;
  // Each rank process's peak resident memory, by rank (0: not reaped, e.g. killed at an abort).
  std::vector<uint64_t> rank_rss(job.ranks(), 0);
  for (const auto& [r, kib] : summary.rss.items()) rank_rss[std::stoul(r)] = kib.get<uint64_t>();
  out.results = {{"workload", "mpi_program"},
                 {"argv", argv},
                 {"ranks", job.ranks()},
                 {"compute", config.compute == ComputeMode::kIgnore ? "ignore" : "measured"},
                 {"compute_scale_percent", config.compute_scale_percent},
                 {"calls", summary.calls},
                 {"rank_peak_rss_kib", rank_rss},
                 {"rank_peak_rss_kib_max", *std::max_element(rank_rss.begin(), rank_rss.end())},
                 {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

}  // namespace nicsim::sim
