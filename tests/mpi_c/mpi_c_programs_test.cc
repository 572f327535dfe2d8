// SPDX-License-Identifier: Apache-2.0
// The suite of MPI C programs under `nicsim mpirun`: each prints what it prints under Open
// MPI's mpirun, also under fabric loss, duplication and reordering; a run is a function of its
// seed; nicsim-mpicc builds a program, and refuses a call outside the subset.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/mpi_c/mpi_c_support.h"
#include "tests/support/test_seed.h"

namespace nicsim::testing {
namespace {

nlohmann::json Stats(const std::filesystem::path& dir) {
  return nlohmann::json::parse(ReadFile(dir / "stats.json"), nullptr, false);
}

class SuiteProgram : public ::testing::TestWithParam<MpiCProgram> {};

TEST_P(SuiteProgram, PrintsWhatOpenMpiPrints) {
  const std::string mpirun = NICSIM_OPEN_MPI_RUN;
  if (mpirun.empty()) GTEST_SKIP() << "Open MPI is not installed (scripts/setup.sh installs it)";
  const MpiCProgram& p = GetParam();
  // CI runs as root, which Open MPI refuses unless told twice.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  ScratchDir ompi_dir("ompi"), nicsim_dir("nicsim_mpirun");
  const CommandResult ompi =
      RunCommand({mpirun, "--oversubscribe", "--tag-output", "-n", std::to_string(p.ranks),
                  std::string(NICSIM_MPI_C_BIN) + "/ompi_" + p.name},
                 ompi_dir.path());
  const CommandResult nicsim = NicsimMpirun(NicsimBuild(p.name), p.ranks, nicsim_dir.path());
  ASSERT_EQ(ompi.exit_code, 0) << ompi.out << ompi.err;
  ASSERT_EQ(nicsim.exit_code, 0) << nicsim.out << nicsim.err;
  const std::string lines = RankLines(nicsim.out);
  EXPECT_NE(lines.find("OK"), std::string::npos) << nicsim.out;
  EXPECT_EQ(lines.find("FAIL"), std::string::npos) << nicsim.out;
  EXPECT_EQ(lines, RankLines(ompi.out));
  // Every message went through the transports, and each arrived exactly once.
  const nlohmann::json stats = Stats(nicsim_dir.path());
  EXPECT_EQ(stats["verdict"], "pass");
  EXPECT_GT(stats["messages_sent"].get<uint64_t>(), 0u);
  EXPECT_EQ(stats["messages_delivered"], stats["messages_sent"]);
  EXPECT_EQ(stats["workload"]["calls"]["MPI_Init"], p.ranks);
  EXPECT_EQ(stats["workload"]["calls"]["MPI_Finalize"], p.ranks);
  // Each rank process's own peak memory, read at its MPI_Finalize.
  const nlohmann::json& rss = stats["workload"]["rank_peak_rss_kib"];
  ASSERT_EQ(rss.size(), static_cast<size_t>(p.ranks));
  for (const auto& kib : rss) EXPECT_GT(kib.get<uint64_t>(), 0u);
  EXPECT_EQ(stats["workload"]["rank_peak_rss_kib_max"], *std::max_element(rss.begin(), rss.end()));
}

TEST_P(SuiteProgram, PrintsTheSameUnderLossDuplicationAndReordering) {
  const MpiCProgram& p = GetParam();
  const uint64_t seed = TestSeed(11);
  ScratchDir clean_dir("mpirun_clean"), faulty_dir("mpirun_faulty");
  const CommandResult clean = NicsimMpirun(NicsimBuild(p.name), p.ranks, clean_dir.path());
  const CommandResult faulty =
      NicsimMpirun(NicsimBuild(p.name), p.ranks, faulty_dir.path(),
                   {"--set", "fabric.loss=0.05", "--set", "fabric.duplicate=0.05", "--set",
                    "fabric.reorder=0.1", "--set", "seed=" + std::to_string(seed)});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  ASSERT_EQ(faulty.exit_code, 0) << "seed " << seed << "\n" << faulty.out << faulty.err;
  EXPECT_EQ(RankLines(faulty.out), RankLines(clean.out)) << "seed " << seed;
  const nlohmann::json stats = Stats(faulty_dir.path());
  EXPECT_EQ(stats["messages_delivered"], stats["messages_sent"]) << "seed " << seed;
  // The faults happened (and the transports recovered from them).
  EXPECT_GT(stats["fabric"]["frames_duplicated"].get<uint64_t>() +
                stats["fabric"]["frames_reordered"].get<uint64_t>(),
            0u)
      << "seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(Programs, SuiteProgram, ::testing::ValuesIn(SuitePrograms()),
                         [](const ::testing::TestParamInfo<MpiCProgram>& test) {
                           return test.param.name;
                         });

/** stats.json without what the wall clock and the host decide. */
std::string DeterministicStats(const std::filesystem::path& dir) {
  nlohmann::json stats = Stats(dir);
  stats.erase("wall_time_s");
  stats.erase("wall_events_per_second");
  stats["workload"].erase("rank_peak_rss_kib");
  stats["workload"].erase("rank_peak_rss_kib_max");
  return stats.dump(1);
}

TEST(MpiCRun, SameProgramSeedAndScenarioGiveTheSameStats) {
  ScratchDir a("mpirun_a"), b("mpirun_b");
  const std::vector<std::string> faults = {"--set", "fabric.loss=0.02", "--set", "seed=5"};
  ASSERT_EQ(NicsimMpirun(NicsimBuild("collectives"), 4, a.path(), faults).exit_code, 0);
  ASSERT_EQ(NicsimMpirun(NicsimBuild("collectives"), 4, b.path(), faults).exit_code, 0);
  const std::string first = DeterministicStats(a.path());
  EXPECT_NE(first.find("\"mpi_program\""), std::string::npos);
  EXPECT_EQ(first, DeterministicStats(b.path()));
}

TEST(MpiCBuild, NicsimMpiccBuildsAProgramThatRuns) {
  ScratchDir dir("mpicc");
  const std::string program = (dir.path() / "ring").string();
  const CommandResult cc = RunCommand(
      {NICSIM_MPICC, "-O1", "-o", program, std::string(NICSIM_MPI_C_SOURCE) + "/programs/ring.c"},
      dir.path());
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  const CommandResult run = NicsimMpirun(program, 4, dir.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("[1,3]<stdout>:rank 3 OK all"), std::string::npos) << run.out;
}

TEST(MpiCBuild, NicsimMpicxxBuildsACxxProgram) {
  ScratchDir dir("mpicxx");
  const std::string program = (dir.path() / "hello").string();
  const CommandResult cxx = RunCommand(
      {NICSIM_MPICXX, "-o", program, std::string(NICSIM_MPI_C_SOURCE) + "/special/hello.cc"},
      dir.path());
  ASSERT_EQ(cxx.exit_code, 0) << cxx.err;
  const CommandResult run = NicsimMpirun(program, 3, dir.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(RankLines(run.out),
            "[1,0]<stdout>:rank 0 of 3 sum 3\n[1,1]<stdout>:rank 1 of 3 sum 3\n"
            "[1,2]<stdout>:rank 2 of 3 sum 3\n");
}

TEST(MpiCRun, ComputingTakesSimulatedTimeOnlyWhenMeasured) {
  ScratchDir ignored("compute_ignore"), measured("compute_measured");
  const CommandResult a = NicsimMpirun(NicsimBuild("compute"), 1, ignored.path());
  const CommandResult b =
      NicsimMpirun(NicsimBuild("compute"), 1, measured.path(), {"--set", "mpi.compute=measured"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(RankLines(a.out), "[1,0]<stdout>:rank 0 computing took simulated time: no\n");
  EXPECT_EQ(RankLines(b.out), "[1,0]<stdout>:rank 0 computing took simulated time: yes\n");
  EXPECT_EQ(Stats(measured.path())["workload"]["compute"], "measured");
  EXPECT_EQ(Stats(ignored.path())["workload"]["compute"], "ignore");
}

TEST(MpiCRun, SleepsPassInSimulatedTimeNotOnTheHost) {
  // Over 1,000 s each: on the host this would run past ctest's limit for the test.
  ScratchDir dir("sleeps");
  const CommandResult run =
      NicsimMpirun(NicsimBuild("sleeps"), 3, dir.path(), {"--set", "run.time_limit=2000s"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(RankLines(run.out),
            "[1,0]<stdout>:rank 0 slept 1000.500000 s (returned 0 0 0)\n"
            "[1,1]<stdout>:rank 1 slept 1001.500000 s (returned 0 0 0)\n"
            "[1,2]<stdout>:rank 2 slept 1002.500000 s (returned 0 0 0)\n");
  EXPECT_EQ(Stats(dir.path())["workload"]["calls"]["sleep"], 9);
}

TEST(MpiCBuild, ACallOutsideTheSubsetFailsToBuild) {
  ScratchDir dir("mpicc_unsupported");
  const CommandResult cc = RunCommand({NICSIM_MPICC, "-o", (dir.path() / "unsupported").string(),
                                       std::string(NICSIM_MPI_C_SOURCE) + "/special/unsupported.c"},
                                      dir.path());
  EXPECT_NE(cc.exit_code, 0);
  EXPECT_NE(cc.err.find("MPI_File_open"), std::string::npos) << cc.err;
}

}  // namespace
}  // namespace nicsim::testing
