// SPDX-License-Identifier: Apache-2.0
// `nicsim run` of the MPI workloads with mpi.scheduler=threads and =contexts, as subprocesses:
// the same seed gives byte-identical stats.json (but for its wall-clock fields and the echo of
// the parameter itself), and a job that cannot finish unwinds cleanly in either mode.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/process.h"

#ifndef NICSIM_BINARY
#error "NICSIM_BINARY must name the nicsim executable"
#endif

namespace nicsim {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string err;
  /** stats.json without wall-clock fields and without params["mpi.scheduler"]. */
  std::string stats;
};

class MpiSchedulerCliTest : public ::testing::Test {
 protected:
  Outcome Run(const std::string& scheduler, std::vector<std::string> sets) {
    const fs::path out_dir = dir_ / ("out" + std::to_string(runs_++));
    std::vector<std::string> argv = {NICSIM_BINARY, "run", "--quiet", "--out", out_dir.string()};
    sets.push_back("mpi.scheduler=" + scheduler);
    for (const std::string& s : sets) {
      argv.push_back("--set");
      argv.push_back(s);
    }
    const nicsim::testing::CommandResult r = nicsim::testing::RunCommand(argv, dir_);
    Outcome o{r.exit_code, r.err, ""};
    if (fs::exists(out_dir / "stats.json")) {
      nlohmann::json j = nlohmann::json::parse(nicsim::testing::ReadFile(out_dir / "stats.json"));
      for (auto it = j.begin(); it != j.end();) {
        it = it.key().rfind("wall_", 0) == 0 ? j.erase(it) : std::next(it);
      }
      EXPECT_EQ(j["params"]["mpi.scheduler"], scheduler);
      j["params"].erase("mpi.scheduler");
      o.stats = j.dump(1);
    }
    return o;
  }

  /** Runs `sets` in both modes and expects the same exit code and the same stats. */
  void ExpectSameInBothModes(const std::vector<std::string>& sets, int exit_code) {
    const Outcome threads = Run("threads", sets);
    const Outcome contexts = Run("contexts", sets);
    EXPECT_EQ(threads.exit_code, exit_code) << threads.err;
    EXPECT_EQ(contexts.exit_code, exit_code) << contexts.err;
    ASSERT_FALSE(threads.stats.empty()) << threads.err;
    EXPECT_EQ(threads.stats, contexts.stats);
    EXPECT_EQ(threads.err, contexts.err);
  }

  nicsim::testing::ScratchDir scratch_{"nicsim_mpi_scheduler"};
  const fs::path dir_ = scratch_.path();
  int runs_ = 0;
};

TEST_F(MpiSchedulerCliTest, AlltoallGivesIdenticalStatsOnThreadsAndContexts) {
  ExpectSameInBothModes({"backend=func", "workload=mpi_alltoall", "nodes=16", "mpi.ranks=16",
                         "mpi.alltoall_messages=20", "mpi.alltoall_max_size=8KiB", "seed=11"},
                        0);
}

TEST_F(MpiSchedulerCliTest, CollectivesGiveIdenticalStatsOnThreadsAndContexts) {
  ExpectSameInBothModes({"backend=func", "workload=mpi_collectives", "nodes=4", "mpi.ranks=6",
                         "mpi.sizes=[8,4096]", "mpi.iterations=2", "seed=12"},
                        0);
}

TEST_F(MpiSchedulerCliTest, JobWithAnUnreachablePeerFailsAndUnwindsInBothModes) {
  // Every packet is lost: a transport gives up, the job is abandoned (every rank unwound by an
  // exception caught on its own stack) and the run exits 1 with the message.
  ExpectSameInBothModes({"backend=func", "workload=mpi_alltoall", "nodes=4", "mpi.ranks=8",
                         "mpi.alltoall_messages=5", "fabric.loss=1", "ulp.max_retransmits=4"},
                        1);
  const Outcome contexts = Run("contexts", {"backend=func", "workload=mpi_pingpong",
                                            "fabric.loss=1", "ulp.max_retransmits=8"});
  EXPECT_EQ(contexts.exit_code, 1);
  EXPECT_NE(contexts.err.find("rank 0 gave up on rank 1 after 8 unacknowledged sends"),
            std::string::npos)
      << contexts.err;
}

}  // namespace
}  // namespace nicsim
