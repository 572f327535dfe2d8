// SPDX-License-Identifier: Apache-2.0
// `mpirun -n K nicsim mpirun -n N PROGRAM`: an MPI C program whose ranks land on different
// partitions of a split run prints what it prints in one process, and the run's stats.json,
// trace and capture are byte for byte the one process's, with faults on.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/mpi_c/mpi_c_support.h"
#include "tests/support/split_runs.h"

namespace nicsim::testing {
namespace {

/** stats.json without what the wall clock, the host or the split decides. */
std::string SplitComparable(const std::filesystem::path& dir) {
  nlohmann::json stats = nlohmann::json::parse(ReadFile(dir / "stats.json"), nullptr, false);
  for (const char* key : {"wall_time_s", "wall_events_per_second", "partitions"}) {
    stats.erase(key);
  }
  stats["params"].erase("run.partition");
  // The rank processes' memory is the host's measure, as the wall time is.
  stats["workload"].erase("rank_peak_rss_kib");
  stats["workload"].erase("rank_peak_rss_kib_max");
  return stats.dump(1);
}

/**
 * What a run printed: in one process its output; split, what each of nicsim's processes wrote,
 * from the files Open MPI's `mpirun --output-filename` keeps per process (each process's
 * lines whole: on the terminal mpirun tags and interleaves what it reads from each process,
 * and a read can end mid-line).
 */
std::string Printed(int k, const std::filesystem::path& dir, const CommandResult& result) {
  if (k == 1) return result.out;
  std::string text;
  for (int p = 0; p < k; ++p) {
    text += ReadFile(dir / "mpirun_out" / "1" / ("rank." + std::to_string(p)) / "stdout");
  }
  return text;
}

/**
 * `nicsim mpirun -n 4 PROGRAM` on four nodes, one rank on each, writing a trace and a capture
 * into `dir`, in K processes (K = 1: without Open MPI's mpirun).
 */
CommandResult RunSplitProgram(int k, const std::filesystem::path& dir, const std::string& partition,
                              const std::string& program, const std::vector<std::string>& sets) {
  std::vector<std::string> argv;
  if (k > 1) {
    argv = {NICSIM_OPEN_MPI_RUN,
            "--oversubscribe",
            "--output-filename",
            (dir / "mpirun_out").string(),
            "-n",
            std::to_string(k)};
  }
  for (const std::string& a :
       {std::string(NICSIM_BINARY), std::string("mpirun"), std::string("-n"), std::string("4"),
        std::string("--out"), dir.string(), std::string("--trace"), (dir / "t").string(),
        std::string("--pcap"), (dir / "p").string()}) {
    argv.push_back(a);
  }
  argv.insert(argv.end(), sets.begin(), sets.end());
  argv.insert(argv.end(),
              {"--set", "backend=func", "--set", "nodes=4", "--set", "run.partition=" + partition});
  argv.push_back(program);
  return RunCommand(argv, dir);
}

class SplitProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(SplitProgram, PrintsAndRecordsWhatOneProcessDoesWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  const std::string program = NicsimBuild(GetParam());
  // Four nodes, one rank on each: two partitions of two ranks (contiguous), or dealt out.
  const std::vector<std::string> sets = {"--set", "seed=7",
                                         "--set", "fabric.loss=0.03",
                                         "--set", "fabric.duplicate=0.03",
                                         "--set", "fabric.reorder=0.05"};
  auto run = [&](int k, const std::filesystem::path& dir, const std::string& partition) {
    return RunSplitProgram(k, dir, partition, program, sets);
  };
  ScratchDir one("split_one"), two("split_two"), three("split_three");
  const CommandResult r1 = run(1, one.path(), "contiguous");
  const CommandResult r2 = run(2, two.path(), "contiguous");
  const CommandResult r3 = run(3, three.path(), "round_robin");
  ASSERT_EQ(r1.exit_code, 0) << r1.out << r1.err;
  ASSERT_EQ(r2.exit_code, 0) << r2.out << r2.err;
  ASSERT_EQ(r3.exit_code, 0) << r3.out << r3.err;
  const std::string lines = RankLines(r1.out);
  EXPECT_NE(lines.find("OK"), std::string::npos) << r1.out;
  EXPECT_EQ(RankLines(Printed(2, two.path(), r2)), lines);
  EXPECT_EQ(RankLines(Printed(3, three.path(), r3)), lines);
  const std::string stats = SplitComparable(one.path());
  EXPECT_EQ(SplitComparable(two.path()), stats);
  EXPECT_EQ(SplitComparable(three.path()), stats);
  const std::string trace = ReadFile(one.path() / "t");
  const std::string pcap = ReadFile(one.path() / "p");
  EXPECT_GT(trace.size(), 10000u);
  EXPECT_TRUE(ReadFile(two.path() / "t") == trace);
  EXPECT_TRUE(ReadFile(three.path() / "t") == trace);
  EXPECT_TRUE(ReadFile(two.path() / "p") == pcap);
  EXPECT_TRUE(ReadFile(three.path() / "p") == pcap);
  const nlohmann::json split = nlohmann::json::parse(ReadFile(three.path() / "stats.json"));
  EXPECT_EQ(split["partitions"], 3);
  EXPECT_EQ(split["workload"]["calls"]["MPI_Init"], 4);
  EXPECT_EQ(split["workload"]["calls"]["MPI_Finalize"], 4);
}

INSTANTIATE_TEST_SUITE_P(Programs, SplitProgram,
                         ::testing::Values("collectives", "nonblocking", "halo_globals"));

TEST(SplitProgramFailure, EveryProcessWritesTheStatsOfOneProcessForADeadlockOrACrash) {
  REQUIRE_SPLIT_RUNS();
  // A deadlock is found once every queue is empty: the same stats.json as one process.
  const std::string deadlock = NicsimBuild("deadlock");
  ScratchDir one("split_dead_one"), two("split_dead_two"), three("split_dead_three");
  EXPECT_EQ(RunSplitProgram(1, one.path(), "contiguous", deadlock, {}).exit_code, 1);
  EXPECT_EQ(RunSplitProgram(2, two.path(), "contiguous", deadlock, {}).exit_code, 1);
  EXPECT_EQ(RunSplitProgram(3, three.path(), "round_robin", deadlock, {}).exit_code, 1);
  const std::string stats = SplitComparable(one.path());
  EXPECT_NE(stats.find("MPI job deadlocked at t="), std::string::npos) << stats;
  EXPECT_EQ(SplitComparable(two.path()), stats);
  EXPECT_EQ(SplitComparable(three.path()), stats);
  // A crash is acted on at the end of the window it happened in, by one process as by a split
  // run, and the other ranks run on to that window's end in both: the same stats.json.
  const std::string crash = NicsimBuild("crash");
  ScratchDir c1("split_crash_one"), c3("split_crash_three");
  EXPECT_EQ(RunSplitProgram(1, c1.path(), "contiguous", crash, {}).exit_code, 1);
  EXPECT_EQ(RunSplitProgram(3, c3.path(), "round_robin", crash, {}).exit_code, 1);
  const std::string alone = SplitComparable(c1.path());
  EXPECT_NE(alone.find("rank 2 was killed by signal 11"), std::string::npos);
  EXPECT_TRUE(SplitComparable(c3.path()) == alone);
}

}  // namespace
}  // namespace nicsim::testing
