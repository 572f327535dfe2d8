// SPDX-License-Identifier: Apache-2.0
// The MPI all-to-all, and the one-sided exchanges (puts into AllocMem windows pulled by RDMA,
// fences, a halo), under heavy faults, on 8 ranks over 8 nodes, on the functional and the
// SystemC backends: 20% and 30% loss, 50% duplication, 50% reordering, 30% corruption, and
// all of them together. Each cell checks that every message (every block put) was delivered
// exactly once with the bytes its sender wrote (every received buffer is compared with the
// sender's pattern, so the digests of what was sent and what arrived are identical), that the
// transports are idle, and that no rCxt, task, DTB or header buffer is left held at the end. The
// seed comes from NICSIM_TEST_SEED (default 42) and is printed with any failure.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "abi/mmio.h"
#include "sim/config/builtin_scenarios.h"
#include "sim/config/scenario.h"
#include "sim/cluster/mpi_job.h"
#include "sim/run/run_scenario.h"
#include "sim/workloads/mpi_workloads.h"
#include "tests/support/backends.h"
#include "tests/support/test_seed.h"

namespace nicsim::sim {
namespace {

struct MpiFaultCell {
  std::string name;
  std::string backend;
  /** --set assignments of the faults. */
  std::vector<std::string> faults;
};

std::vector<MpiFaultCell> Cells() {
  const std::vector<std::pair<std::string, std::vector<std::string>>> faults = {
      {"loss20", {"fabric.loss=0.2"}},
      {"loss30", {"fabric.loss=0.3"}},
      {"dup50", {"fabric.duplicate=0.5"}},
      {"reorder50", {"fabric.reorder=0.5"}},
      {"corrupt30", {"fabric.corrupt=0.3"}},
      {"all",
       {"fabric.loss=0.3", "fabric.duplicate=0.5", "fabric.reorder=0.5", "fabric.corrupt=0.3"}},
  };
  std::vector<MpiFaultCell> cells;
  for (const char* backend : {"func", "systemc"}) {
    for (const auto& [name, sets] : faults) {
      cells.push_back({std::string(backend) + "_" + name, backend, sets});
    }
  }
  // Push-pull between nodes (mpi.internode=pushpull) under every fault at once; then with two
  // ranks per node, whose local messages go through postboxes in shared memory.
  std::vector<std::string> all = faults.back().second;
  all.push_back("mpi.internode=pushpull");
  cells.push_back({"func_pushpull_all", "func", all});
  all.push_back("nodes=4");
  all.push_back("mpi.intranode=postbox");
  cells.push_back({"func_pushpull_postbox_all", "func", all});
  return cells;
}

class MpiFaultMatrixTest : public ::testing::TestWithParam<MpiFaultCell> {};

/** The job of `cell` on 8 ranks over 8 nodes, with the workload's settings `sets`. */
std::unique_ptr<MpiJob> CellJob(const MpiFaultCell& cell, uint64_t seed,
                                std::vector<std::string> sets) {
  Result<Scenario> scenario = ParseScenario(*BuiltinScenarioText("default"), "builtin:default");
  NICSIM_CHECK(scenario.ok(), "%s", scenario.status().message().c_str());
  sets.insert(sets.end(), {"backend=" + cell.backend, "nodes=8", "mpi.ranks=8",
                           "seed=" + std::to_string(seed)});
  sets.insert(sets.end(), cell.faults.begin(), cell.faults.end());
  for (const std::string& s : sets) {
    NICSIM_CHECK(ApplySetFlag(*scenario, s).ok(), "--set %s", s.c_str());
  }
  Result<MpiJobConfig> config = MpiJobConfigFromParams(scenario->params);
  NICSIM_CHECK(config.ok(), "%s", config.status().message().c_str());
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(*config);
  NICSIM_CHECK(job.ok(), "%s", job.status().message().c_str());
  return std::move(*job);
}

/** The workload ran the cluster until it was quiet: nothing may still be held, and the faults
 *  really happened. */
void ExpectNothingHeldAfterFaults(MpiJob& job) {
  Cluster& c = job.cluster();
  for (uint32_t r = 0; r < job.ranks(); ++r) {
    EXPECT_TRUE(job.transport(r).Idle()) << "rank " << r;
    EXPECT_EQ(job.transport(r).stats().messages_failed, 0u) << "rank " << r;
  }
  for (uint32_t a = 0; a < c.adapter_count(); ++a) {
    EXPECT_EQ(c.rcxts(a).free_count(), c.rcxts(a).size()) << "adapter " << a;
    EXPECT_EQ(c.adapter(a).MmioRead(abi::GlobalRegOffset(abi::GlobalReg::kLiveTaskView)), 0u)
        << "adapter " << a;
    EXPECT_EQ(c.adapter(a).free_dtbs(), c.config().resources.dtbs) << "adapter " << a;
    EXPECT_EQ(c.adapter(a).free_header_buffers(), c.config().resources.header_buffers)
        << "adapter " << a;
  }
  const FabricCounters& f = c.fabric().counters();
  uint64_t fabric_drops = 0;
  for (const auto& [reason, n] : f.drops) fabric_drops += n;
  EXPECT_GT(fabric_drops + f.frames_duplicated + f.frames_reordered + f.frames_corrupted, 0u);
}

TEST_P(MpiFaultMatrixTest, AlltoallDeliversEveryMessageOnceAndLeaksNothing) {
  const MpiFaultCell& cell = GetParam();
  if (cell.backend == "systemc") NICSIM_SKIP_WITHOUT_SYSTEMC();
  const uint64_t seed = nicsim::testing::TestSeed(42);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::unique_ptr<MpiJob> job = CellJob(
      cell, seed,
      {"workload=mpi_alltoall", "mpi.alltoall_messages=40", "mpi.alltoall_max_size=512KiB"});

  MpiAlltoallConfig alltoall;
  alltoall.messages_per_rank = 40;
  alltoall.max_size = 512 * 1024;
  Result<WorkloadResult> result = RunMpiRandomAlltoall(*job, alltoall);
  ASSERT_TRUE(result.ok()) << result.status().message();
  for (const std::string& e : result->errors) ADD_FAILURE() << e;
  EXPECT_EQ(result->messages_sent, 8u * 40);
  EXPECT_EQ(result->messages_delivered, 8u * 40);
  EXPECT_EQ(result->messages_lost, 0u);
  EXPECT_EQ(result->messages_duplicated, 0u);
  EXPECT_EQ(result->messages_damaged, 0u);
  EXPECT_FALSE(result->stalled);
  ExpectNothingHeldAfterFaults(*job);
  // The protocol cells really used their protocols, and left nothing behind in shared memory.
  uint64_t pushes = 0, local = 0;
  for (uint32_t r = 0; r < job->ranks(); ++r) {
    pushes += job->mpi(r).stats().pushpull_pushes;
    local += job->mpi(r).stats().intranode_messages;
    if (const mpi::PostboxPath* p = job->postbox(r)) {
      EXPECT_EQ(p->in_flight(), 0u) << "rank " << r;
    }
  }
  EXPECT_EQ(pushes > 0, cell.name.find("pushpull") != std::string::npos);
  EXPECT_EQ(local > 0, cell.name.find("postbox") != std::string::npos);
}

TEST_P(MpiFaultMatrixTest, OneSidedExchangesPutEveryBlockOnceAndLeakNothing) {
  const MpiFaultCell& cell = GetParam();
  if (cell.backend == "systemc") NICSIM_SKIP_WITHOUT_SYSTEMC();
  const uint64_t seed = nicsim::testing::TestSeed(42);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::unique_ptr<MpiJob> job = CellJob(cell, seed, {"workload=mpi_one_sided"});
  MpiOneSidedConfig one_sided;
  one_sided.sizes = {64, 70000};
  one_sided.rounds = 2;
  Result<WorkloadResult> result = RunMpiOneSided(*job, one_sided);
  ASSERT_TRUE(result.ok()) << result.status().message();
  for (const std::string& e : result->errors) ADD_FAILURE() << e;
  // 2 sizes x 2 rounds x 8 ranks x (7 + 7 blocks of the complete exchanges, 2 + 2 of the halos).
  EXPECT_EQ(result->messages_sent, 2u * 2 * 8 * 18);
  EXPECT_EQ(result->messages_delivered, result->messages_sent);
  EXPECT_FALSE(result->stalled);
  uint64_t in_place = 0, refused = 0;
  for (uint32_t r = 0; r < job->ranks(); ++r) {
    in_place += job->mpi(r).stats().rma_in_place;
    refused += job->mpi(r).stats().rma_refused;
  }
  // Every put between nodes (7 + 2 per rank and round; with two ranks a node, all but the one
  // to the rank sharing it) was pulled by RDMA straight into its window.
  const bool two_a_node = cell.name.find("postbox") != std::string::npos;
  EXPECT_EQ(in_place, 2u * 2 * 8 * (two_a_node ? 8 : 9));
  EXPECT_EQ(refused, 0u);
  ExpectNothingHeldAfterFaults(*job);
}

INSTANTIATE_TEST_SUITE_P(Cells, MpiFaultMatrixTest, ::testing::ValuesIn(Cells()),
                         [](const ::testing::TestParamInfo<MpiFaultCell>& p) {
                           return p.param.name;
                         });

}  // namespace
}  // namespace nicsim::sim
