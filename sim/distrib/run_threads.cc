// SPDX-License-Identifier: Apache-2.0
// nicsim run's threads: the count a run gets and the threads that run its partitions.
#include "sim/distrib/run_threads.h"

#include <string>
#include <thread>
#include <vector>

#include "sim/distrib/split_support.h"
#include "sim/distrib/thread_world.h"

namespace nicsim::sim::distrib {

namespace {

/** Why the run of `params` cannot be split over threads; empty if it can. */
std::string WhyNotThreaded(const ParamValues& params) {
  const std::string& backend = params.String("backend");
  if (backend != "func") {
    return "the " + backend +
           " backend keeps one SystemC kernel per process (only func splits over threads)";
  }
  if (params.String("workload") == "mpi_program") {
    return "nicsim mpirun's programs talk to the one process that started them";
  }
  const Status split = CheckSplitSupported(params);
  return split.ok() ? std::string() : split.message();
}

}  // namespace

Result<uint32_t> RunThreads(const ParamValues& params, uint32_t cores) {
  const int64_t asked = params.Int("run.threads");
  const int64_t nodes = params.Int("nodes");
  const std::string why_not = WhyNotThreaded(params);
  if (asked == 0) {
    return why_not.empty() && nodes >= kThreadedNodes && cores > 1 ? cores : 1u;
  }
  if (asked == 1) return 1u;
  if (!why_not.empty()) {
    return Status::Error("run.threads: " + std::to_string(asked) +
                         " threads for a run that cannot be split: " + why_not +
                         "; set run.threads=1");
  }
  if (asked > nodes) {
    return Status::Error("run.threads: " + std::to_string(asked) + " threads for " +
                         std::to_string(nodes) + " nodes: at most one thread per node");
  }
  return static_cast<uint32_t>(asked);
}

int RunOnThreads(uint32_t threads, const std::function<int(Collectives& world)>& run) {
  ThreadGroup group(threads);
  std::vector<int> codes(threads, 0);
  const auto run_and_depart = [&group, &codes, &run](uint32_t r) {
    ThreadWorld world(group, r);
    codes[r] = run(world);
    group.Depart();
  };
  std::vector<std::thread> others;
  others.reserve(threads - 1);
  for (uint32_t r = 1; r < threads; ++r) others.emplace_back(run_and_depart, r);
  run_and_depart(0);
  for (std::thread& t : others) t.join();
  return codes[0];
}

}  // namespace nicsim::sim::distrib
