// SPDX-License-Identifier: Apache-2.0
// Why a split MPI job stopped, agreed by every process: each found only its own ranks'
// failures and waiting ranks, and the job's error must not depend on how they were split.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/distrib/collectives.h"

namespace nicsim::sim {

/** What one process knows when a split job's window loop stops, or the whole job's. */
struct JobStop {
  /** Failures its ranks met, each "rank N ..." (a rank's program, or its transport giving up). */
  std::vector<std::string> reasons;
  /** What some of its waiting ranks wait for, each "rank N waits for ..." (where known). */
  std::vector<std::string> waits;
  /** Its ranks still waiting. */
  std::vector<uint32_t> unfinished;
  /** Some of its ranks still wait and its clock has passed run.time_limit. */
  bool past_time_limit = false;
  /** Its clock (the time of the last event it ran). */
  uint64_t now_ps = 0;
  /** When its first reason was found (UINT64_MAX: none). */
  uint64_t first_failure_ps = UINT64_MAX;
};

/**
 * Every process's JobStop merged, the same on every process (every process calls it):
 * the reasons and the waits in the order of the rank each names (then as found), each once;
 * the waiting ranks in order; the time limit passed if it was anywhere; the latest clock; the
 * first failure's time.
 */
JobStop AgreeOnStop(distrib::Collectives& world, const JobStop& mine);

/** Ranks and failures an error message names before it only counts the rest. */
inline constexpr size_t kListedRanks = 16;
inline constexpr size_t kListedFailures = 8;

/**
 * The first `most` of `items` joined by `sep`, then "and N more of M WHAT" if there are
 * more: a 1,024-rank job whose every rank failed names eight, not a megabyte of them.
 */
std::string JoinAtMost(const std::vector<std::string>& items, size_t most, std::string_view sep,
                       std::string_view what);

/** "0, 3, 5"; past kListedRanks, "0, 1, ..., 15, and 1008 more of 1024 ranks". */
std::string RankList(const std::vector<uint32_t>& ranks);

}  // namespace nicsim::sim
