// SPDX-License-Identifier: Apache-2.0
// A split run's verdict: the partitions' workload figures summed, and their first errors in
// the order one process would have found them.
#pragma once

#include "sim/distrib/collectives.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

/**
 * The verdict figures of `local` (this partition's) summed over every process, on every
 * process, so each one reaches the same verdict. On rank 0 `errors` holds the first
 * WorkloadResult::kErrorsKept errors of all partitions by their event keys (errors without a
 * key come last, and one that several processes report in the same words counts once); the
 * other ranks keep none (their error_count is the plain sum: only whether it is 0 matters).
 * `results` and `table` are left for the workload.
 */
WorkloadResult MergeResults(distrib::Collectives& world, const WorkloadResult& local);

}  // namespace nicsim::sim
