// SPDX-License-Identifier: Apache-2.0
// `mpirun -n K nicsim mpirun -n N PROGRAM`: an MPI C program whose ranks land on different
// partitions of a split run prints what it prints in one process, and the run's stats.json,
// trace and capture are byte for byte the one process's, with faults on.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/mpi_c/mpi_c_support.h"

namespace nicsim::testing {
namespace {

/** stats.json without what the wall clock or the split decides. */
std::string SplitComparable(const std::filesystem::path& dir) {
  nlohmann::json stats = nlohmann::json::parse(ReadFile(dir / "stats.json"), nullptr, false);
  for (const char* key : {"wall_time_s", "wall_events_per_second", "partitions"}) {
    stats.erase(key);
  }
  stats["params"].erase("run.partition");
  return stats.dump(1);
}

/**
 * What the processes of `mpirun --tag-output` printed, each line without the tag Open MPI put
 * before it ("[1,P]<stdout>:"): the lines nicsim printed. Without the tags, mpirun may cut
 * one process's line with another's where it reads the processes' pipes.
 */
std::string Untagged(const std::string& out) {
  std::istringstream in(out);
  std::string text;
  for (std::string line; std::getline(in, line);) {
    const size_t tag = line.find("]<stdout>:");
    if (line.rfind("[1,", 0) == 0 && tag != std::string::npos) line.erase(0, tag + 10);
    text += line + "\n";
  }
  return text;
}

class SplitProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(SplitProgram, PrintsAndRecordsWhatOneProcessDoesWithFaultsOn) {
  const std::string mpirun = NICSIM_OPEN_MPI_RUN;
  if (!NICSIM_SPLIT_BUILT || mpirun.empty()) {
    GTEST_SKIP() << "nicsim built without MPI, or no mpirun: no split runs";
  }
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  const std::string program = NicsimBuild(GetParam());
  // Four nodes, one rank on each: two partitions of two ranks (contiguous), or dealt out.
  const std::vector<std::string> sets = {
      "--set", "backend=func", "--set", "nodes=4", "--set", "seed=7",
      "--set", "fabric.loss=0.03", "--set", "fabric.duplicate=0.03",
      "--set", "fabric.reorder=0.05"};
  auto run = [&](int k, const std::filesystem::path& dir, const std::string& partition) {
    std::vector<std::string> argv;
    if (k > 1) argv = {mpirun, "--oversubscribe", "--tag-output", "-n", std::to_string(k)};
    for (const std::string& a : {std::string(NICSIM_BINARY), std::string("mpirun"),
                                 std::string("-n"), std::string("4"), std::string("--out"),
                                 dir.string(), std::string("--trace"), (dir / "t").string(),
                                 std::string("--pcap"), (dir / "p").string()}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), sets.begin(), sets.end());
    argv.insert(argv.end(), {"--set", "run.partition=" + partition});
    argv.push_back(program);
    return RunCommand(argv, dir);
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
  EXPECT_EQ(RankLines(Untagged(r2.out)), lines);
  EXPECT_EQ(RankLines(Untagged(r3.out)), lines);
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

}  // namespace
}  // namespace nicsim::testing
