// SPDX-License-Identifier: Apache-2.0
// nicsim run's threads: the collectives between them (each thread's parts reach exactly the
// threads they are for; a missing thread ends the process after the timeout), and how many
// threads run.threads gives a run.
#include "sim/distrib/run_threads.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/config/scenario.h"
#include "sim/distrib/thread_world.h"

namespace nicsim::sim::distrib {
namespace {

TEST(ThreadWorldTest, EachCollectiveGivesEveryThreadExactlyItsParts) {
  constexpr uint32_t kThreads = 3;
  constexpr int kRounds = 200;  // the barrier is reused: a fast thread must not lap a slow one
  std::vector<std::string> failures(kThreads);
  const int code = RunOnThreads(kThreads, [&](Collectives& world) {
    const uint32_t me = world.rank();
    std::string& failed = failures[me];
    if (world.size() != kThreads || std::string(world.members()) != "threads") failed += "size;";
    for (int round = 0; round < kRounds; ++round) {
      // To thread p: (round, me, p) and `me + p` bytes of value me.
      std::vector<std::vector<uint8_t>> out(kThreads);
      for (uint32_t p = 0; p < kThreads; ++p) {
        out[p] = {static_cast<uint8_t>(round), static_cast<uint8_t>(me), static_cast<uint8_t>(p)};
        out[p].insert(out[p].end(), me + p, static_cast<uint8_t>(me));
      }
      const std::vector<std::vector<uint8_t>> in = world.Exchange(out);
      for (uint32_t p = 0; p < kThreads; ++p) {
        std::vector<uint8_t> want = {static_cast<uint8_t>(round), static_cast<uint8_t>(p),
                                     static_cast<uint8_t>(me)};
        want.insert(want.end(), p + me, static_cast<uint8_t>(p));
        if (in.size() != kThreads || in[p] != want) failed += "exchange;";
      }
      if (world.Min(100 + 7 * me + round) != static_cast<uint64_t>(100 + round)) failed += "min;";
      if (world.Max(100 + 7 * me + round) != static_cast<uint64_t>(114 + round)) failed += "max;";
      if (world.Sum(me + 1) != 6) failed += "sum;";
      const std::vector<std::string> texts = world.GatherToRoot(std::string(me + 1, 'a' + me));
      const std::vector<std::string> want =
          me == 0 ? std::vector<std::string>{"a", "bb", "ccc"} : std::vector<std::string>{};
      if (texts != want) failed += "gather;";
    }
    return static_cast<int>(10 + me);
  });
  EXPECT_EQ(code, 10);  // thread 0's result
  for (uint32_t t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

TEST(ThreadWorldDeathTest, AThreadThatLeftEndsTheProcessWhenAnotherWaitsForIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ThreadGroup group(2);
        ThreadWorld only(group, 0);
        group.Depart();  // thread 1 returned without calling Sum
        only.Sum(1);
      },
      ::testing::ExitedWithCode(1),
      "partition 0: another thread's partition ended before a sum over the partitions");
}

TEST(ThreadWorldTest, AThreadThatLeftAfterTheLastStepIsNotMissed) {
  // Thread 1 passes the last barrier, returns and departs while thread 0 may still be on its
  // way out of the same barrier: thread 0 must not take that for a thread that never came.
  for (int round = 0; round < 200; ++round) {
    EXPECT_EQ(RunOnThreads(2, [](Collectives& world) { return static_cast<int>(world.Sum(1)); }),
              2);
  }
}

/** run.threads' answer for the built-in default scenario with `sets` applied, on 2 cores. */
Result<uint32_t> ThreadsFor(const std::vector<std::string>& sets, uint32_t cores = 2) {
  Result<Scenario> scenario = ParseScenario("", "t.toml");
  if (!scenario.ok()) return scenario.status();
  for (const std::string& set : sets) {
    if (Status s = ApplySetFlag(*scenario, set); !s.ok()) return s;
  }
  return RunThreads(scenario->params, cores);
}

const std::vector<std::string> kFuncAlltoall = {"backend=func", "workload=mpi_alltoall"};

std::vector<std::string> With(std::vector<std::string> sets, const std::string& more) {
  sets.push_back(more);
  return sets;
}

TEST(RunThreadsTest, ZeroSplitsLargeSplittableFuncRunsOverTheCores) {
  EXPECT_EQ(*ThreadsFor(With(kFuncAlltoall, "nodes=256")), 2u);
  EXPECT_EQ(*ThreadsFor(With(kFuncAlltoall, "nodes=4096"), 8), 8u);
  EXPECT_EQ(*ThreadsFor(With(kFuncAlltoall, "nodes=255")), 1u);
  EXPECT_EQ(*ThreadsFor(With(kFuncAlltoall, "nodes=256"), 1), 1u);
  EXPECT_EQ(*ThreadsFor({"backend=systemc", "workload=mpi_alltoall", "nodes=256"}), 1u);
  EXPECT_EQ(*ThreadsFor({"backend=func", "workload=pingpong_sweep", "nodes=256"}), 1u);
}

TEST(RunThreadsTest, AskedThreadsAreGivenOrRefusedNamingTheParameter) {
  EXPECT_EQ(*ThreadsFor(With(With(kFuncAlltoall, "nodes=8"), "run.threads=3"), 2), 3u);
  EXPECT_EQ(*ThreadsFor(With(With(kFuncAlltoall, "nodes=4096"), "run.threads=1")), 1u);
  const Result<uint32_t> too_many =
      ThreadsFor(With(With(kFuncAlltoall, "nodes=4"), "run.threads=5"));
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().message(),
            "run.threads: 5 threads for 4 nodes: at most one thread per node");
  const Result<uint32_t> systemc =
      ThreadsFor({"backend=systemc", "workload=mpi_alltoall", "run.threads=2"});
  ASSERT_FALSE(systemc.ok());
  EXPECT_EQ(systemc.status().message(),
            "run.threads: 2 threads for a run that cannot be split: the systemc backend keeps "
            "one SystemC kernel per process (only func splits over threads); set run.threads=1");
  const Result<uint32_t> sweep =
      ThreadsFor({"backend=func", "workload=pingpong_sweep", "run.threads=2"});
  ASSERT_FALSE(sweep.ok());
  EXPECT_EQ(sweep.status().message().rfind(
                "run.threads: 2 threads for a run that cannot be split: workload "
                "'pingpong_sweep' cannot be split",
                0),
            0u)
      << sweep.status().message();
}

}  // namespace
}  // namespace nicsim::sim::distrib
