// SPDX-License-Identifier: Apache-2.0
// One stats.json from the partitions of a split run: what equals the one-process run's, field
// by field, plus `partitions`.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace nicsim::sim::distrib {

/**
 * Merges the stats of every partition (by rank; each built by BuildStats with its nodes as
 * StatsScope and the run's latest time). Counters sum (events, packets, drops, fabric
 * frames), peaks take the greatest, per-adapter and per-node entries are concatenated in id
 * order; figures every partition already agrees on (the verdict, which MergeResults made
 * global, the parameters, the simulated time) come from rank 0. wall_time_s is the slowest
 * process's. Adds `partitions`: the number of processes.
 */
nlohmann::json MergeStats(const std::vector<nlohmann::json>& parts);

/** Every unsigned integer of `parts[0]` summed with the same field of the others (objects and
 *  arrays followed field by field); anything else as `parts[0]` has it. For counter totals a
 *  workload builds from its partition's ranks. */
nlohmann::json SumCounters(const std::vector<nlohmann::json>& parts);

}  // namespace nicsim::sim::distrib
