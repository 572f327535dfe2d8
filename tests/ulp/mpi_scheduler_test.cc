// SPDX-License-Identifier: Apache-2.0
// How an MPI job schedules its ranks: on OS threads or user-level contexts, with the same
// results; the dirty-rank sweep order; abandoned jobs unwinding; a 1,024-rank job; a rank that
// overflows its stack named in a message.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "sim/cluster/dirty_ranks.h"
#include "sim/workloads/mpi_workloads.h"

namespace nicsim::sim {
namespace {

const mpi::Datatype kInt = mpi::Datatype::Of(mpi::Base::kInt32);

std::unique_ptr<MpiJob> Job(uint32_t ranks, RankSchedulerKind kind, uint32_t nodes = 4) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = ranks;
  c.cluster.nodes = std::min<uint32_t>(ranks, nodes);
  c.cluster.microcode.rcxts = 2048;
  c.scheduler = kind;
  return std::move(*MpiJob::Create(c));
}

std::vector<uint32_t> Sweep(DirtyRanks& d) {
  std::vector<uint32_t> taken;
  d.BeginSweep();
  while (std::optional<uint32_t> r = d.Next()) taken.push_back(*r);
  return taken;
}

TEST(DirtyRanksTest, SweepsTakeMarkedRanksInAscendingOrderOnce) {
  DirtyRanks d(8);
  d.Mark(5);
  d.Mark(1);
  d.Mark(5);
  EXPECT_EQ(Sweep(d), (std::vector<uint32_t>{1, 5}));
  EXPECT_EQ(Sweep(d), std::vector<uint32_t>{});
  d.MarkAll();
  EXPECT_EQ(Sweep(d).size(), 8u);
}

TEST(DirtyRanksTest, RankMarkedDuringASweepIsTakenWhereAFullSweepWouldCheckIt) {
  DirtyRanks d(8);
  d.Mark(2);
  d.Mark(4);
  d.BeginSweep();
  EXPECT_EQ(d.Next(), 2u);
  d.Mark(6);  // not passed yet: this sweep
  d.Mark(1);  // passed: the next sweep
  d.Mark(2);  // the rank being checked: the next sweep
  EXPECT_EQ(d.Next(), 4u);
  EXPECT_EQ(d.Next(), 6u);
  EXPECT_EQ(d.Next(), std::nullopt);
  EXPECT_EQ(Sweep(d), (std::vector<uint32_t>{1, 2}));
}

class RankSchedulerTest : public ::testing::TestWithParam<RankSchedulerKind> {};

TEST_P(RankSchedulerTest, AllreduceOverEveryRankMatchesTheSerialSum) {
  auto job = Job(16, GetParam());
  const Status s = job->Run([](mpi::Mpi& m) {
    int v = m.world().rank, sum = 0;
    m.Allreduce(&v, &sum, 1, kInt, mpi::Op::kSum, m.world());
    EXPECT_EQ(sum, 16 * 15 / 2);
  });
  ASSERT_TRUE(s.ok()) << s.message();
}

TEST_P(RankSchedulerTest, DeadlockedJobUnwindsEveryRankAndRunsAgain) {
  auto job = Job(4, GetParam());
  std::vector<int> unwound(4, 0);
  for (int round = 0; round < 2; ++round) {
    const Status s = job->Run([&](mpi::Mpi& m) {
      struct Guard {
        int& n;
        ~Guard() { ++n; }
      } guard{unwound[m.world().rank]};
      int v = 0;
      m.Recv(&v, 1, kInt, (m.world().rank + 1) % 4, 0, m.world());  // everyone receives first
    });
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("deadlocked"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("ranks 0, 1, 2, 3"), std::string::npos) << s.message();
  }
  // Every rank's stack was unwound (its destructors ran) in both runs.
  EXPECT_EQ(unwound, (std::vector<int>{2, 2, 2, 2}));
  // The job still works after being abandoned.
  ASSERT_TRUE(job->Run([](mpi::Mpi& m) { m.Barrier(m.world()); }).ok());
}

INSTANTIATE_TEST_SUITE_P(Modes, RankSchedulerTest,
                         ::testing::Values(RankSchedulerKind::kThreads,
                                           RankSchedulerKind::kContexts),
                         [](const auto& mode) {
                           return mode.param == RankSchedulerKind::kThreads ? "Threads"
                                                                            : "Contexts";
                         });

TEST(RankSchedulerTest, BothModesGiveTheSameTimesAndEvents) {
  MpiCollectivesConfig c;
  c.sizes = {8, 4096};
  c.iterations = 2;
  std::string results[2];
  uint64_t events[2];
  for (int i = 0; i < 2; ++i) {
    auto job = Job(8, i == 0 ? RankSchedulerKind::kThreads : RankSchedulerKind::kContexts);
    Result<WorkloadResult> r = RunMpiCollectives(*job, c);
    ASSERT_TRUE(r.ok()) << r.status().message();
    results[i] = r->results.dump();
    events[i] = job->cluster().events().events_run();
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(events[0], events[1]);
}

TEST(RankSchedulerTest, ThousandRankAllreduceCompletesOnContexts) {
  constexpr uint32_t kRanks = 1024;
  auto job = Job(kRanks, RankSchedulerKind::kContexts, kRanks);
  std::vector<int> sums(kRanks, -1);
  const Status s = job->Run([&](mpi::Mpi& m) {
    int v = m.world().rank, sum = 0;
    m.Allreduce(&v, &sum, 1, kInt, mpi::Op::kSum, m.world());
    sums[m.world().rank] = sum;
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(sums, std::vector<int>(kRanks, static_cast<int>(kRanks * (kRanks - 1) / 2)));
}

/** Recursion that keeps `depth` frames of 256 bytes live (the compiler cannot fold it away);
 *  small frames step into the guard page instead of over it. */
int Recurse(int depth) {
  volatile char frame[256];
  frame[0] = static_cast<char>(depth);
  if (depth == 0) return frame[0];
  return Recurse(depth - 1) + frame[0];
}

#ifndef __SANITIZE_ADDRESS__
TEST(RankStackGuardDeathTest, AnOverflowingRankIsNamedAndTheRunExitsOne) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto job = Job(4, RankSchedulerKind::kContexts);
        // 2,048 frames of 256 bytes and more: twice the 256 KiB a rank's stack has.
        static_cast<void>(job->Run([](mpi::Mpi& m) {
          if (m.world().rank == 3) Recurse(2048);
        }));
      },
      ::testing::ExitedWithCode(1),
      "nicsim: MPI rank 3 overflowed its stack of 256 KiB \\(deep recursion");
}
#endif

}  // namespace
}  // namespace nicsim::sim
