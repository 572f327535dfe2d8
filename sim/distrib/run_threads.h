// SPDX-License-Identifier: Apache-2.0
// nicsim run's threads (run.threads): how many a run gets, and running one partition of it on
// each, as mpirun -n K runs one on each process.
#pragma once

#include <cstdint>
#include <functional>

#include "base/status.h"
#include "sim/config/param_table.h"
#include "sim/distrib/collectives.h"

namespace nicsim::sim::distrib {

/** The fewest nodes for which run.threads = 0 splits a run over the cores it may use. */
inline constexpr int64_t kThreadedNodes = 256;

/**
 * The threads the run of `params` gets where it may use `cores` cores: run.threads, or for 0,
 * `cores` when the run has at least kThreadedNodes nodes on the func backend and a workload
 * that can be split (1 otherwise). An error names run.threads when more than one is asked of
 * a run that cannot be split that way (another backend, nicsim mpirun's programs, more
 * threads than nodes).
 */
Result<uint32_t> RunThreads(const ParamValues& params, uint32_t cores);

/**
 * Calls `run(world)` on `threads` threads at once, world being thread r's view of their
 * ThreadGroup (r = 0 on the calling thread), and returns thread 0's result once all are done.
 * A thread whose `run` returns departs the group (ThreadGroup::Depart).
 */
int RunOnThreads(uint32_t threads, const std::function<int(Collectives& world)>& run);

}  // namespace nicsim::sim::distrib
