// SPDX-License-Identifier: Apache-2.0
// Programs that go wrong under `nicsim mpirun`: the run ends with exit 1 and says which rank,
// in which call, and the seed; stats.json is still written. Bad command lines exit 2.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/mpi_c/mpi_c_support.h"

namespace nicsim::testing {
namespace {

struct Failure {
  CommandResult result;
  bool stats_written;
};

Failure RunFailing(const std::string& name, int ranks, std::vector<std::string> sets = {}) {
  ScratchDir dir("mpirun_fail");
  sets.insert(sets.end(), {"--set", "seed=9"});
  Failure f{NicsimMpirun(NicsimBuild(name), ranks, dir.path(), sets), false};
  f.stats_written = std::filesystem::exists(dir.path() / "stats.json");
  return f;
}

void ExpectFailure(const Failure& f, const std::vector<std::string>& says) {
  EXPECT_EQ(f.result.exit_code, 1) << f.result.out << f.result.err;
  EXPECT_TRUE(f.stats_written);
  EXPECT_NE(f.result.err.find("(seed 9)"), std::string::npos) << f.result.err;
  for (const std::string& s : says)
    EXPECT_NE(f.result.err.find(s), std::string::npos) << s << "\n" << f.result.err;
}

TEST(MpiCFailure, MpiAbortEndsTheRun) {
  const Failure f = RunFailing("abort", 4);
  ExpectFailure(f, {"rank 1 called MPI_Abort with error code 3"});
  EXPECT_NE(f.result.out.find("[1,1]<stdout>:rank 1 aborts"), std::string::npos) << f.result.out;
}

TEST(MpiCFailure, ACrashNamesTheRankTheSignalAndTheLastCall) {
  ExpectFailure(RunFailing("crash", 4),
                {"rank 2 was killed by signal 11", "without calling MPI_Finalize",
                 "its last call: MPI_Barrier"});
}

TEST(MpiCFailure, ExitingWithoutFinalizeFails) {
  ExpectFailure(
      RunFailing("no_finalize", 2),
      {"rank 0 exited with status 0 without calling MPI_Finalize", "its last call: MPI_Allreduce"});
}

TEST(MpiCFailure, ADeadlockNamesEveryRankAndItsCall) {
  ExpectFailure(RunFailing("deadlock", 2),
                {"deadlocked", "rank 0 in MPI_Recv", "rank 1 in MPI_Recv"});
}

TEST(MpiCFailure, ARankThatNeverCallsAgainIsKilledAtTheWallClockLimit) {
  const auto start = std::chrono::steady_clock::now();
  const Failure f = RunFailing("spin", 3, {"--set", "mpi.wall_limit=1s"});
  ExpectFailure(f, {"rank 1 was still running when the program run's wall-clock limit of 1 s "
                    "passed (mpi.wall_limit, or MPIEXEC_TIMEOUT): killed; its last call: "
                    "MPI_Init",
                    "rank 0 in MPI_Barrier"});
  // It ended at the limit, not at the harness's own timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(MpiCFailure, AHeaderClaimingATebibyteCostsNoMemoryAndBreaksTheChannel) {
  // The arguments' buffer grows with the bytes that come, so the 3 that follow the header
  // are all it holds when the rank exits.
  const Failure f = RunFailing("bad_channel_huge", 2);
  ExpectFailure(f, {"rank 0 broke its channel in MPI_Init: the channel closed in the middle of "
                    "a message"});
}

TEST(MpiCFailure, CountsThatWrapWhenAddedAreRefusedBeforeTheCallRuns) {
  // 2^63 + 2^63 bytes: a result sized from the wrapped sum (0) would be written past its end.
  const Failure f = RunFailing("bad_channel_overflow", 2);
  ExpectFailure(f, {"rank 0 sent malformed arguments to MPI_Allgather (counts adding up to "
                    "more than 1099511627776 bytes): the program broke libnicsim_mpi's protocol"});
}

TEST(MpiCFailure, StrayBytesThenSilenceEndAtTheWallClockLimit) {
  const auto start = std::chrono::steady_clock::now();
  const Failure f = RunFailing("bad_channel_stray", 2, {"--set", "mpi.wall_limit=1s"});
  ExpectFailure(f, {"rank 0 was still running when the program run's wall-clock limit of 1 s "
                    "passed"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(6));
}

TEST(MpiCFailure, ARankThatExitsIsSeenToEndThoughAChildHoldsItsChannel) {
  // The rank's child sleeps 8 s with the channel open: the end is the rank's exit, not the
  // channel's end of file.
  const auto start = std::chrono::steady_clock::now();
  const Failure f = RunFailing("bad_channel_fork", 2);
  ExpectFailure(f, {"rank 0 exited with status 0 without calling MPI_Finalize (its last call: "
                    "MPI_Init)"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(6));
}

/** True if a process that is not a zombie runs `program` (read from /proc). */
bool Running(const std::string& program) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = ReadFile(entry.path() / "cmdline");
    if (cmdline.rfind(program, 0) != 0) continue;
    const std::string stat = ReadFile(entry.path() / "stat");
    const size_t close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z')
      return true;
  }
  return false;
}

TEST(MpiCFailure, SigtermStopsTheRunKillsEveryRankAndWritesTheStats) {
  ScratchDir dir("mpirun_sigterm");
  const std::string program = NicsimBuild("sleeper");
  // nicsim in the background, SIGTERM a second later (rank 1 sleeps in its computing).
  const std::string script = ShellQuote(NICSIM_BINARY) + " mpirun -n 3 --quiet --out " +
                             ShellQuote(dir.path().string()) + " --set seed=9 " +
                             ShellQuote(program) + " & p=$!; sleep 1; kill -TERM $p; wait $p";
  const Failure f{RunCommand({"sh", "-c", script}, dir.path()),
                  std::filesystem::exists(dir.path() / "stats.json")};
  ExpectFailure(f, {"nicsim mpirun was stopped by signal 15 (Terminated): every rank still "
                    "running was killed",
                    "rank 0 in MPI_Barrier", "rank 1 in MPI_Init"});
  EXPECT_FALSE(Running(program));
}

TEST(MpiCFailure, OutputIntoAClosedPipeDoesNotEndTheRun) {
  ScratchDir dir("mpirun_pipe");
  const std::string code = (dir.path() / "code").string();
  // head takes the first line and goes; the ranks' later lines meet a closed pipe.
  const std::string script =
      "(" + ShellQuote(NICSIM_BINARY) + " mpirun -n 4 --out " + ShellQuote(dir.path().string()) +
      " " + ShellQuote(NicsimBuild("ring")) + "; echo $? > " + ShellQuote(code) + ") | head -1";
  const CommandResult r = RunCommand({"sh", "-c", script}, dir.path());
  EXPECT_EQ(r.out.rfind("[1,", 0), 0u) << r.out;
  EXPECT_EQ(ReadFile(code), "0\n") << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "stats.json"));
}

TEST(MpiCFailure, AnErroneousCallIsFatalByDefault) {
  ExpectFailure(RunFailing("fatal_error", 2),
                {"rank 0: MPI_Send: MPI_ERR_RANK: invalid rank: rank 2 of 2",
                 "rank 0 called MPI_Abort with error code 6"});
}

TEST(MpiCFailure, ErroneousUsesOfTheLibraryEndTheRunWithMpisErrorNotACrash) {
  ExpectFailure(RunFailing("erroneous_before", 2),
                {"nicsim mpi: MPI_Comm_rank: MPI_ERR_COMM: invalid communicator: invalid "
                 "communicator (called before MPI_Init)"});
  ExpectFailure(RunFailing("erroneous_twice", 2),
                {"rank 0: MPI_Init: MPI_ERR_OTHER: known error not in this list: MPI is "
                 "initialised already"});
  ExpectFailure(RunFailing("erroneous_after", 2), {"rank 1: MPI_Barrier called after MPI_Finalize",
                                                   "rank 1 called MPI_Abort with error code 16"});
  ExpectFailure(RunFailing("erroneous_null", 2),
                {"rank 0: MPI_Send: MPI_ERR_BUFFER: invalid buffer pointer: the buffer is not a "
                 "valid address"});
  ExpectFailure(RunFailing("erroneous_in_place", 2),
                {"rank 0: MPI_Send: MPI_ERR_BUFFER: invalid buffer pointer: MPI_IN_PLACE is not "
                 "allowed here"});
  // Nothing can call MPI_Grequest_complete while the one thread waits: an error, not a hang.
  ExpectFailure(RunFailing("erroneous_grequest", 2),
                {"rank 1: MPI_Wait: MPI_ERR_REQUEST: invalid request: waits for a generalized "
                 "request that nothing can complete while it waits (MPI_Grequest_complete has "
                 "not been called)"});
}

// Counts that differ between ranks used to be taken silently: a broadcast cut short, and a
// reduce-scatter that handed rank 1 two ints of uninitialised simulator memory.
TEST(MpiCFailure, CollectivesWhoseCountsDifferFailWithMpisErrorAndHandOutNoStrayBytes) {
  ScratchDir dir("mpirun_mismatched_counts");
  const CommandResult r = NicsimMpirun(NicsimBuild("mismatched_counts"), 2, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* line : {
           "rank 0 bcast, the root's count larger: MPI_SUCCESS",
           "rank 1 bcast, the root's count larger: MPI_ERR_TRUNCATE",
           "rank 0 bcast, the root's count smaller: MPI_SUCCESS",
           "rank 1 bcast, the root's count smaller: MPI_ERR_COUNT",
           "rank 0 reduce_scatter: MPI_ERR_COUNT",
           "rank 0 reduce_scatter values out of range: 0",
           "rank 1 reduce_scatter values out of range: 0",
           "rank 0 allreduce: MPI_ERR_COUNT",
           "rank 1 allreduce: MPI_ERR_TRUNCATE",
           "rank 0 allreduce with matching counts: MPI_SUCCESS",
           "rank 1 allreduce with matching counts: MPI_SUCCESS",
           "rank 0 sum 3",
           "rank 1 sum 3",
       }) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
}

TEST(MpiCFailure, AMessageThatNoRankReceivedFailsTheRun) {
  ExpectFailure(RunFailing("unreceived", 2),
                {"rank 1 ended with 1 message that arrived and never matched a receive",
                 "1 verification errors (seed 9)"});
}

TEST(MpiCFailure, AReceiveLargerThanTheSimulatorCanHoldFailsOnlyThatCall) {
  // 8 PiB asked for: the call returns MPI_ERR_NO_MEM and the simulator goes on.
  ScratchDir dir("mpirun_huge_recv");
  const CommandResult r = NicsimMpirun(NicsimBuild("huge_recv"), 2, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 1 huge receive: MPI_ERR_NO_MEM"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 0 4 GiB send: MPI_ERR_UNSUPPORTED_OPERATION"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("rank 1 got 42"), std::string::npos) << r.out;
}

TEST(MpiCFailure, AFabricThatLosesEverythingFailsTheRun) {
  ScratchDir dir("mpirun_lossy");
  const CommandResult r =
      NicsimMpirun(NicsimBuild("ring"), 2, dir.path(),
                   {"--set", "fabric.loss=1", "--set", "ulp.max_retransmits=4", "--set", "seed=9"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("gave up on rank"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(seed 9)"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "stats.json"));
}

TEST(MpiCFailure, BadCommandLinesExitTwo) {
  ScratchDir dir("mpirun_bad");
  const CommandResult missing =
      RunCommand({NICSIM_BINARY, "mpirun", "-n", "2", "./no-such-program"}, dir.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("mpirun: ./no-such-program: no such file"), std::string::npos)
      << missing.err;
  const CommandResult ranks =
      RunCommand({NICSIM_BINARY, "mpirun", "-n", "two", NicsimBuild("ring")}, dir.path());
  EXPECT_EQ(ranks.exit_code, 2);
  EXPECT_NE(ranks.err.find("-n: expected a number of ranks, got 'two'"), std::string::npos)
      << ranks.err;
  const CommandResult none = RunCommand({NICSIM_BINARY, "mpirun", "-n", "2"}, dir.path());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("a PROGRAM is required"), std::string::npos) << none.err;
  const CommandResult set = RunCommand(
      {NICSIM_BINARY, "mpirun", "--set", "mpi.compute=sometimes", NicsimBuild("ring")}, dir.path());
  EXPECT_EQ(set.exit_code, 2);
  EXPECT_NE(set.err.find("mpi.compute"), std::string::npos) << set.err;
  // The workload exists for nicsim mpirun only.
  const CommandResult run = RunCommand(
      {NICSIM_BINARY, "run", "--set", "workload=mpi_program", "--out", dir.path().string()},
      dir.path());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("nicsim mpirun -n N"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace nicsim::testing
