// SPDX-License-Identifier: Apache-2.0
// `mpirun -n K nicsim run`: the same stats.json, trace, timeline and pcap as one process
// (faults on, two partition schemes; MPI workloads of one run and of several; the func,
// systemc and rtl backends), the refusal of what is not split-ready, and a killed or hung
// partition ending every process with an error.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/child_process.h"
#include "tests/support/backends.h"
#include "tests/support/process.h"
#include "tests/support/split_runs.h"

#ifndef NICSIM_RTL_BUILT
#define NICSIM_RTL_BUILT 1
#endif

namespace {

namespace fs = std::filesystem;
using nicsim::Result;
using nicsim::Spawn;
using nicsim::SpawnRequest;
using nicsim::WaitFor;

const char* const kMpirun = NICSIM_OPEN_MPI_RUN;

fs::path FreshDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("nicsim_split_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/** Runs `nicsim run ARGS` with K processes (K = 1: no mpirun); returns the exit code. */
int RunNicsim(int k, const std::string& args, const fs::path& out, const fs::path& log,
              bool quiet = true) {
  std::string cmd;
  if (k > 1) cmd = std::string(kMpirun) + " --oversubscribe -n " + std::to_string(k) + " ";
  cmd += std::string(NICSIM_BINARY) + " run " + args + (quiet ? " --quiet" : "") + " --out " +
         out.string() + " >" + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/** stats.json without what may differ between two runs of one scenario. */
std::string Comparable(const fs::path& stats) {
  std::ifstream in(stats);
  nlohmann::json j = nlohmann::json::parse(in);
  for (const char* key : {"wall_time_s", "wall_events_per_second", "partitions"}) j.erase(key);
  // How the nodes were dealt out, and to how many threads, says how the run was split, not
  // what it simulated.
  j["params"].erase("run.partition");
  j["params"].erase("run.threads");
  return j.dump(1);
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/** ARGS plus a trace and a capture written into `dir`. */
std::string WithTraceAndPcap(const std::string& args, const fs::path& dir) {
  return args + " --trace " + (dir / "run.trace").string() + " --pcap " +
         (dir / "run.pcapng").string();
}

/**
 * Runs `nicsim run ARGS` in one process, then split by each of `splits` (K, extra settings),
 * each writing a trace and a capture; every run must pass, and each split writes the
 * one-process stats.json, trace and pcap. Returns the one-process run's directory.
 */
fs::path ExpectSplitsLikeOneProcess(const std::string& name, const std::string& args,
                                    const std::vector<std::pair<int, std::string>>& splits) {
  const fs::path one = FreshDir(name + "_one");
  EXPECT_EQ(RunNicsim(1, WithTraceAndPcap(args, one), one, one / "log"), 0) << Slurp(one / "log");
  const std::string trace = Slurp(one / "run.trace");
  const std::string pcap = Slurp(one / "run.pcapng");
  EXPECT_GT(trace.size(), 100000u);
  EXPECT_GT(pcap.size(), 10000u);
  for (size_t i = 0; i < splits.size(); ++i) {
    const auto& [k, extra] = splits[i];
    const fs::path dir = FreshDir(name + "_split" + std::to_string(i));
    EXPECT_EQ(RunNicsim(k, WithTraceAndPcap(args + extra, dir), dir, dir / "log"), 0)
        << Slurp(dir / "log");
    EXPECT_EQ(Comparable(one / "stats.json"), Comparable(dir / "stats.json")) << args << extra;
    EXPECT_TRUE(Slurp(dir / "run.trace") == trace) << dir;
    EXPECT_TRUE(Slurp(dir / "run.pcapng") == pcap) << dir;
  }
  return one;
}

/**
 * A VCD file's waveforms: its lines without the $date block's date and without the time
 * markers no value change follows. The tracer marks every step of its process's SystemC
 * kernel, and a split process's kernel steps only its own adapters' modules.
 */
std::string Waveforms(const std::string& vcd) {
  std::istringstream in(vcd);
  std::string out;
  std::string marker;
  bool in_date = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("$date", 0) == 0) in_date = true;
    if (in_date) {
      in_date = line.find("$end") == std::string::npos;
      continue;
    }
    if (line.rfind("#", 0) == 0) {
      marker = line;
      continue;
    }
    if (!marker.empty()) out += marker + "\n";
    marker.clear();
    out += line + "\n";
  }
  return out;
}

const char* const kFaults =
    " --set fabric.loss=0.01 --set fabric.duplicate=0.01 --set fabric.reorder=0.02"
    " --set fabric.corrupt=0.01";

TEST(SplitRunTest, TwoProcessesWriteTheStatsOfOneWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  for (int seed : {1, 2, 3}) {
    // 7 nodes: the blocks are uneven (3 and 4).
    const std::string args =
        "--set backend=func --set workload=random_exchange --set nodes=7"
        " --set exchange.messages=3000 --set seed=" +
        std::to_string(seed) + kFaults;
    const fs::path one = FreshDir("one" + std::to_string(seed));
    const fs::path two = FreshDir("two" + std::to_string(seed));
    const int code_one = RunNicsim(1, args, one, one / "log");
    const int code_two = RunNicsim(2, args, two, two / "log");
    ASSERT_TRUE(fs::exists(two / "stats.json")) << Slurp(two / "log");
    // Faults lose messages: both fail the same way (exit 1), not as bad input.
    EXPECT_EQ(code_one, code_two) << Slurp(two / "log");
    EXPECT_EQ(Comparable(one / "stats.json"), Comparable(two / "stats.json")) << "seed " << seed;
    std::ifstream in(two / "stats.json");
    EXPECT_EQ(nlohmann::json::parse(in)["partitions"], 2);
  }
}

TEST(SplitRunTest, ThreeProcessesWithoutFaultsPassLikeOne) {
  REQUIRE_SPLIT_RUNS();
  const std::string args =
      "--set backend=func --set workload=random_exchange --set nodes=8"
      " --set exchange.messages=2000 --set seed=11";
  const fs::path one = FreshDir("one");
  const fs::path three = FreshDir("three");
  EXPECT_EQ(RunNicsim(1, args, one, one / "log"), 0);
  EXPECT_EQ(RunNicsim(3, args, three, three / "log"), 0) << Slurp(three / "log");
  EXPECT_EQ(Comparable(one / "stats.json"), Comparable(three / "stats.json"));
}

TEST(SplitRunTest, RoundRobinPartitionsWriteTheStatsOfContiguousOnesWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  // Every frame between neighbouring nodes crosses partitions when they are dealt out in turn.
  const std::string args =
      "--set backend=func --set workload=random_exchange --set nodes=9"
      " --set exchange.messages=3000 --set seed=4" +
      std::string(kFaults);
  const fs::path one = FreshDir("rr_one");
  const fs::path blocks = FreshDir("rr_blocks");
  const fs::path dealt = FreshDir("rr_dealt");
  const int code = RunNicsim(1, args, one, one / "log");
  EXPECT_EQ(RunNicsim(3, args, blocks, blocks / "log"), code) << Slurp(blocks / "log");
  EXPECT_EQ(RunNicsim(3, args + " --set run.partition=round_robin", dealt, dealt / "log"), code)
      << Slurp(dealt / "log");
  EXPECT_EQ(Comparable(one / "stats.json"), Comparable(blocks / "stats.json"));
  EXPECT_EQ(Comparable(one / "stats.json"), Comparable(dealt / "stats.json"));
}

TEST(SplitRunTest, AnMpiAlltoallSplitWritesTheStatsAndTraceOfOneProcessWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  // Ranks run between their node's events as in one process; the transports retransmit what
  // the faults lose, so every message arrives and the run passes.
  const std::string args =
      "--set backend=func --set workload=mpi_alltoall --set nodes=12 --set mpi.ranks=12"
      " --set mpi.alltoall_messages=20 --set mpi.alltoall_max_size=16KiB --set seed=5"
      " --set fabric.loss=0.02 --set fabric.duplicate=0.02 --set fabric.reorder=0.02";
  ExpectSplitsLikeOneProcess("mpi_alltoall", args,
                             {{2, " --set run.partition=round_robin"}, {3, ""}});
}

TEST(SplitRunTest, MpiWorkloadsOfSeveralRunsWriteTheStatsAndTraceOfOneProcessWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  // One job run per size: each starts a lookahead after the last rank of the one before
  // returned, which every partition learns at the same window's end.
  const std::string faults =
      " --set fabric.loss=0.02 --set fabric.duplicate=0.02 --set fabric.reorder=0.02";
  const std::vector<std::string> workloads = {
      "--set backend=func --set workload=mpi_collectives --set nodes=8 --set mpi.ranks=8"
      " --set mpi.sizes=0,4096 --set mpi.iterations=2 --set seed=3" +
          faults,
      "--set backend=func --set workload=mpi_pingpong --set nodes=8 --set mpi.ranks=8"
      " --set mpi.pingpong_pairs=4 --set mpi.sizes=0,4096 --set mpi.iterations=3"
      " --set seed=4" +
          faults};
  for (size_t w = 0; w < workloads.size(); ++w) {
    ExpectSplitsLikeOneProcess("runs" + std::to_string(w), workloads[w],
                               {{2, " --set run.partition=round_robin"}, {3, ""}});
  }
}

// run.threads: the same split as mpirun's processes, between threads of one process.
TEST(SplitRunTest, ThreadsWriteTheStatsTraceAndPcapOfOneThreadWithFaultsOn) {
  const std::string faults =
      " --set fabric.loss=0.02 --set fabric.duplicate=0.02 --set fabric.reorder=0.02";
  ExpectSplitsLikeOneProcess(
      "threads_alltoall",
      "--set backend=func --set workload=mpi_alltoall --set nodes=12 --set mpi.ranks=12"
      " --set mpi.alltoall_messages=20 --set mpi.alltoall_max_size=16KiB --set seed=5" +
          faults,
      {{1, " --set run.threads=2 --set run.partition=round_robin"}, {1, " --set run.threads=3"}});
  ExpectSplitsLikeOneProcess(
      "threads_collectives",
      "--set backend=func --set workload=mpi_collectives --set nodes=8 --set mpi.ranks=8"
      " --set mpi.sizes=0,4096 --set mpi.iterations=2 --set seed=3" +
          faults,
      {{1, " --set run.threads=2"}});
  // Faults lose some of the exchange's messages: every run fails the same way (exit 1).
  const std::string exchange =
      "--set backend=func --set workload=random_exchange --set nodes=7"
      " --set exchange.messages=3000 --set seed=2" +
      std::string(kFaults);
  const fs::path one = FreshDir("threads_exchange_one");
  const fs::path two = FreshDir("threads_exchange_two");
  const int code = RunNicsim(1, exchange, one, one / "log");
  EXPECT_EQ(RunNicsim(1, exchange + " --set run.threads=2", two, two / "log"), code)
      << Slurp(two / "log");
  EXPECT_EQ(Comparable(one / "stats.json"), Comparable(two / "stats.json"));
  std::ifstream in(two / "stats.json");
  EXPECT_EQ(nlohmann::json::parse(in)["partitions"], 2);
}

TEST(SplitRunTest, ThreadsPrintTheSummaryOfAThreadSplit) {
  const fs::path dir = FreshDir("threads_summary");
  ASSERT_EQ(RunNicsim(1,
                      "--set backend=func --set workload=mpi_alltoall --set nodes=8"
                      " --set mpi.ranks=8 --set mpi.alltoall_messages=10 --set run.threads=2",
                      dir, dir / "log", /*quiet=*/false),
            0)
      << Slurp(dir / "log");
  EXPECT_NE(Slurp(dir / "log").find("split over 2 threads: "), std::string::npos)
      << Slurp(dir / "log");
}

TEST(SplitRunTest, RefusesThreadsForWhatCannotSplitWithExit2) {
  const fs::path dir = FreshDir("threads_refused");
  EXPECT_EQ(RunNicsim(1, "--set backend=systemc --set run.threads=2", dir, dir / "log"), 2);
  EXPECT_EQ(Slurp(dir / "log"),
            "nicsim: --set run.threads=2: run.threads: 2 threads for a run that cannot be split: "
            "the systemc backend keeps one SystemC kernel per process (only func splits over "
            "threads); set run.threads=1\n");
  EXPECT_FALSE(fs::exists(dir / "stats.json"));
}

TEST(SplitRunTest, PrintsTheTablesOfOneProcess) {
  REQUIRE_SPLIT_RUNS();
  // Both tables are built before the partitions' verdicts are summed.
  for (const char* workload :
       {"--set workload=mpi_pingpong --set mpi.sizes=[0,4096]",
        "--set workload=mpi_collectives --set mpi.sizes=[0,1024] --set mpi.iterations=2"}) {
    const std::string args = std::string("--set backend=func --set nodes=4 --set mpi.ranks=4 ") +
                             workload + " --set fabric.loss=0.02 --set seed=3";
    const fs::path one = FreshDir("table_one");
    const fs::path two = FreshDir("table_two");
    ASSERT_EQ(RunNicsim(1, args, one, one / "log", false), 0) << Slurp(one / "log");
    ASSERT_EQ(RunNicsim(2, args, two, two / "log", false), 0) << Slurp(two / "log");
    // The lines between the scenario line and the "simulated ..." line (of the program's own
    // output).
    auto table = [](const std::string& text) {
      const std::string log = nicsim::testing::WithoutStackSwitchWarning(text);
      const size_t start = log.find('\n') + 1;
      return log.substr(start, log.find("simulated ") - start);
    };
    const std::string expected = table(Slurp(one / "log"));
    EXPECT_NE(expected.find("size_B"), std::string::npos) << expected;
    EXPECT_EQ(table(Slurp(two / "log")), expected) << workload;
  }
}

TEST(SplitRunTest, OneProcessRunsOnAFabricWithoutLatencyInWindowsOfOnePicosecond) {
  // No split can have a lookahead of 0, but one process runs its windows anyway.
  const std::string zero = " --set fabric.link_delay=0ns --set fabric.hop_latency=0ns";
  for (const std::string args :
       {"--set backend=func --set workload=random_exchange --set nodes=4"
        " --set exchange.messages=200",
        "--set backend=func --set workload=mpi_alltoall --set nodes=4 --set mpi.ranks=4"
        " --set mpi.alltoall_messages=5 --set mpi.alltoall_max_size=8KiB"}) {
    const fs::path out = FreshDir("zero_latency");
    EXPECT_EQ(RunNicsim(1, args + zero, out, out / "log"), 0) << args << Slurp(out / "log");
  }
}

TEST(SplitRunTest, AStreamSplitWritesTheStatsTraceAndPcapOfOneProcessWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  // The sender's process sends, the receiver's checks; lost packets are counted against what
  // every process sent. With faults the stream fails (packet mode has no retransmission):
  // the same failure.
  const fs::path one = FreshDir("stream_one");
  const std::string args =
      "--set backend=func --set workload=stream --set stream.packets=3000"
      " --set nodes=2 --set seed=4" +
      std::string(kFaults);
  EXPECT_EQ(RunNicsim(1, WithTraceAndPcap(args, one), one, one / "log"), 1);
  const fs::path two = FreshDir("stream_two");
  EXPECT_EQ(RunNicsim(2, WithTraceAndPcap(args, two), two, two / "log"), 1) << Slurp(two / "log");
  EXPECT_EQ(Comparable(one / "stats.json"), Comparable(two / "stats.json"));
  EXPECT_TRUE(Slurp(one / "run.trace") == Slurp(two / "run.trace"));
  EXPECT_TRUE(Slurp(one / "run.pcapng") == Slurp(two / "run.pcapng"));
  EXPECT_GT(nlohmann::json::parse(Slurp(one / "stats.json"))["messages_lost"], 0);
  // Clean, it passes split too, with the one-process table.
  const std::string clean = "--set backend=func --set workload=stream --set stream.packets=3000";
  const fs::path clean_two = FreshDir("stream_clean_two");
  EXPECT_EQ(RunNicsim(2, clean, clean_two, clean_two / "log"), 0) << Slurp(clean_two / "log");
  const fs::path clean_one = FreshDir("stream_clean_one");
  EXPECT_EQ(RunNicsim(1, clean, clean_one, clean_one / "log"), 0);
  EXPECT_EQ(Comparable(clean_one / "stats.json"), Comparable(clean_two / "stats.json"));
}

TEST(SplitRunTest, ATimeLimitStopsASplitRunBeforeTheEventOneProcessStopsBefore) {
  REQUIRE_SPLIT_RUNS();
  // One process and every partition run no event due past run.time_limit: the same stall.
  const std::string args =
      "--set backend=func --set workload=random_exchange --set nodes=8"
      " --set exchange.messages=20000 --set run.time_limit=100us"
      " --set fabric.loss=0.01";
  const fs::path one = FreshDir("limit_one");
  const fs::path three = FreshDir("limit_three");
  EXPECT_EQ(RunNicsim(1, args, one, one / "log"), 1);
  EXPECT_EQ(RunNicsim(3, args, three, three / "log"), 1) << Slurp(three / "log");
  EXPECT_EQ(Comparable(one / "stats.json"), Comparable(three / "stats.json"));
  EXPECT_NE(Slurp(three / "stats.json").find("passed run.time_limit (100000ns) at t=100"),
            std::string::npos)
      << Slurp(three / "stats.json");
}

TEST(SplitRunTest, ATouchedLimitOverTheSumOfThePartitionsStopsEveryProcessAtOneWindow) {
  REQUIRE_SPLIT_RUNS();
  // The 8 nodes end with 5 MiB touched, so each partition of two or three stays under a 4 MiB
  // limit on its own: only the sum over the processes, taken after every window, is over.
  const std::string args =
      "--set backend=func --set workload=random_exchange --set nodes=8"
      " --set exchange.messages=20000 --set host.touched_limit=4MiB";
  const std::string over = "more than host.touched_limit (4194304 bytes)";
  const fs::path one = FreshDir("touched_one");
  const fs::path two = FreshDir("touched_two");
  const fs::path three = FreshDir("touched_three");
  EXPECT_EQ(RunNicsim(1, args, one, one / "log"), 1);
  EXPECT_NE(Slurp(one / "stats.json").find(over), std::string::npos);
  EXPECT_EQ(RunNicsim(2, args, two, two / "log"), 1) << Slurp(two / "log");
  const std::string stats = Slurp(two / "stats.json");
  EXPECT_NE(stats.find("random_exchange: stopped at t="), std::string::npos) << stats;
  EXPECT_NE(stats.find("the nodes had touched"), std::string::npos) << stats;
  EXPECT_NE(stats.find(over), std::string::npos) << stats;
  // Windows do not depend on the split: three processes stop at the same window, and one
  // process, which runs in windows of its own, too.
  EXPECT_EQ(RunNicsim(3, args + " --set run.partition=round_robin", three, three / "log"), 1);
  EXPECT_EQ(Comparable(two / "stats.json"), Comparable(three / "stats.json"));
  EXPECT_EQ(Comparable(one / "stats.json"), Comparable(two / "stats.json"));
}

TEST(SplitRunTest, ALimitStopsAnMpiJobAtTheSameWindowInOneProcessOrSplit) {
  REQUIRE_SPLIT_RUNS();
  // One process runs an MPI job in windows of its own, so a limit stops it where it stops
  // every process of a split run, and the transports settle up to run.time_limit in both.
  const std::string args =
      "--set backend=func --set workload=mpi_alltoall --set nodes=8"
      " --set mpi.ranks=8 --set mpi.alltoall_messages=20"
      " --set mpi.alltoall_max_size=64KiB --set fabric.loss=0.02"
      " --set seed=5";
  struct Limit {
    std::string name;
    std::string setting;
    std::string message;
  };
  const std::vector<Limit> limits = {
      {"touched", " --set host.touched_limit=8MiB",
       "MPI job stopped at t=501348 ns: the nodes had touched "},
      {"time", " --set run.time_limit=1ms",
       "MPI job not done when simulated time passed run.time_limit (1000000 ns) at "
       "t=1000069 ns: ranks "}};
  for (const Limit& limit : limits) {
    const fs::path one = FreshDir(limit.name + "_stop_one");
    const fs::path two = FreshDir(limit.name + "_stop_two");
    const fs::path three = FreshDir(limit.name + "_stop_three");
    EXPECT_EQ(RunNicsim(1, args + limit.setting, one, one / "log"), 1) << limit.name;
    EXPECT_EQ(RunNicsim(2, args + limit.setting, two, two / "log"), 1) << Slurp(two / "log");
    EXPECT_EQ(RunNicsim(3, args + limit.setting + " --set run.partition=round_robin", three,
                        three / "log"),
              1)
        << Slurp(three / "log");
    EXPECT_NE(Slurp(one / "stats.json").find(limit.message), std::string::npos)
        << Slurp(one / "stats.json");
    EXPECT_EQ(Comparable(one / "stats.json"), Comparable(two / "stats.json")) << limit.name;
    EXPECT_EQ(Comparable(one / "stats.json"), Comparable(three / "stats.json")) << limit.name;
  }
}

TEST(SplitRunTest, AFailingMpiJobReportsOneErrorAgreedByEveryProcessForAnySplitOrNone) {
  REQUIRE_SPLIT_RUNS();
  // Transports give up on several ranks in one window, found by different partitions: every
  // process names all of them, in rank order, and rank 0 keeps the one error.
  const std::string args =
      "--set backend=func --set workload=mpi_alltoall --set nodes=8"
      " --set mpi.ranks=8 --set mpi.alltoall_messages=20"
      " --set mpi.alltoall_max_size=8KiB --set ulp.max_retransmits=2"
      " --set fabric.loss=0.3 --set seed=1";
  const fs::path one = FreshDir("failing_one");
  const fs::path two = FreshDir("failing_two");
  const fs::path three = FreshDir("failing_three");
  EXPECT_EQ(RunNicsim(1, args, one, one / "log"), 1);
  EXPECT_EQ(RunNicsim(2, args, two, two / "log"), 1) << Slurp(two / "log");
  EXPECT_EQ(RunNicsim(3, args + " --set run.partition=round_robin", three, three / "log"), 1);
  EXPECT_EQ(Comparable(two / "stats.json"), Comparable(three / "stats.json"));
  // One process runs the job in windows of its own: it stops at the same window.
  EXPECT_EQ(Comparable(one / "stats.json"), Comparable(two / "stats.json"));
  std::ifstream in(two / "stats.json");
  const nlohmann::json stats = nlohmann::json::parse(in);
  EXPECT_EQ(stats["errors"], 1);
  ASSERT_EQ(stats["error_messages"].size(), 1u);
  const std::string error = stats["error_messages"][0];
  const std::string first = "MPI job failed at t=69738 ns: rank 0 gave up on rank 1 ";
  EXPECT_EQ(error.rfind(first, 0), 0u) << error;
  EXPECT_NE(error.find("; rank 4 gave up on rank 5 "), std::string::npos) << error;
}

TEST(SplitRunTest, RefusesWhatIsNotSplitReadyWithExit2OnEveryProcess) {
  REQUIRE_SPLIT_RUNS();
  const fs::path out = FreshDir("refused");
  EXPECT_EQ(RunNicsim(2, "--set backend=func --set workload=pingpong_sweep", out, out / "log"), 2);
  const std::string log = Slurp(out / "log");
  // Both processes say why.
  const std::string why = "workload 'pingpong_sweep' cannot be split over processes yet";
  const size_t first = log.find(why);
  ASSERT_NE(first, std::string::npos) << log;
  EXPECT_NE(log.find(why, first + 1), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(out / "stats.json"));
}

TEST(SplitRunTest, SystemcAndRtlSplitsWriteTheStatsTraceAndPcapOfOneProcessWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  // Each process's SystemC kernel steps its own adapters' modules, and what a module's thread
  // runs is an event of its node's, woken at the cluster's time (hw/systemc).
  ExpectSplitsLikeOneProcess("systemc",
                             "--set backend=systemc --set workload=mpi_alltoall --set nodes=12"
                             " --set mpi.ranks=12 --set mpi.alltoall_messages=20"
                             " --set mpi.alltoall_max_size=8KiB --set seed=2" +
                                 std::string(kFaults),
                             {{2, ""}, {3, " --set run.partition=round_robin"}});
  // Lock-step: every microcode call goes through the processor's thread.
  ExpectSplitsLikeOneProcess("lockstep",
                             "--set backend=systemc --set workload=random_exchange --set nodes=6"
                             " --set exchange.messages=300 --set systemc.quantum=0ns --set seed=3",
                             {{2, " --set run.partition=round_robin"}});
  if (!NICSIM_RTL_BUILT) return;
  // The RTL blocks' clock starts at the cluster's time of the work handed to them: each
  // adapter's waveforms are the same split or not.
  const std::string args =
      "--set backend=rtl --set workload=mpi_alltoall --set nodes=6"
      " --set mpi.ranks=6 --set mpi.alltoall_messages=30"
      " --set mpi.alltoall_max_size=4KiB --set fabric.loss=0.02 --set seed=5";
  const fs::path one = FreshDir("vcd_one");
  const fs::path three = FreshDir("vcd_three");
  ASSERT_EQ(RunNicsim(1, args + " --set rtl.vcd=" + (one / "run").string(), one, one / "log"), 0)
      << Slurp(one / "log");
  ASSERT_EQ(
      RunNicsim(3,
                args + " --set run.partition=round_robin --set rtl.vcd=" + (three / "run").string(),
                three, three / "log"),
      0)
      << Slurp(three / "log");
  for (int a = 0; a < 6; ++a) {
    for (const char* block : {"allocator", "rx_sequencer"}) {
      const std::string name = "run.a" + std::to_string(a) + "." + block + ".vcd";
      const std::string waves = Waveforms(Slurp(one / name));
      EXPECT_GT(waves.size(), 10000u) << name;
      EXPECT_TRUE(waves == Waveforms(Slurp(three / name))) << name;
    }
  }
  ExpectSplitsLikeOneProcess("rtl",
                             "--set backend=rtl --set workload=mpi_collectives --set nodes=6"
                             " --set mpi.ranks=6 --set mpi.sizes=[0,1024,65536]"
                             " --set mpi.iterations=2 --set seed=3" +
                                 std::string(kFaults),
                             {{2, ""}, {3, " --set run.partition=round_robin"}});
}

TEST(SplitRunTest, AnEagerRdmaAlltoallSplitWritesTheStatsAndTraceOfOneProcessWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  // Delivered slots' pages are given back, so the nodes' touched memory falls as well as
  // rises: each node is measured after every so many of its own events, the same split or not.
  // Every message is eager, so the large ones go through the large slots.
  const std::string args =
      "--set backend=func --set workload=mpi_alltoall --set mpi.ranks=8 --set nodes=8"
      " --set mpi.alltoall_large_pairs=0.05 --set mpi.alltoall_max_size=256KiB"
      " --set mpi.alltoall_small_size=256 --set mpi.alltoall_rounds=3"
      " --set mpi.alltoall_window=16 --set mpi.eager_limit=256KiB"
      " --set ulp.eager_rdma=true --set ulp.eager_small_slot=2048"
      " --set ulp.eager_slots=4 --set ulp.eager_large_slot=262176 --set ulp.eager_large_slots=1"
      " --set fabric.loss=0.05 --set fabric.duplicate=0.05 --set seed=2";
  const fs::path one =
      ExpectSplitsLikeOneProcess("eager", args, {{2, ""}, {3, " --set run.partition=round_robin"}});
  std::ifstream in(one / "stats.json");
  const nlohmann::json memory = nlohmann::json::parse(in)["host_memory"];
  EXPECT_GT(memory["touched_peak_bytes"].get<uint64_t>(), memory["touched_bytes"].get<uint64_t>());
}

TEST(SplitRunTest, TraceTimelineAndPcapAreByteIdenticalForAnySplitWithFaultsOn) {
  REQUIRE_SPLIT_RUNS();
  for (int seed : {1, 2}) {
    const std::string args =
        "--set backend=func --set workload=random_exchange --set nodes=9"
        " --set exchange.messages=1500 --set seed=" +
        std::to_string(seed) + kFaults;
    std::vector<fs::path> dirs;
    const std::vector<std::pair<int, std::string>> splits = {
        {1, ""}, {2, ""}, {3, " --set run.partition=round_robin"}};
    for (const auto& [k, partition] : splits) {
      const fs::path dir = FreshDir("records" + std::to_string(seed) + "_" + std::to_string(k));
      const std::string records = " --trace " + (dir / "run.trace").string() + " --pcap " +
                                  (dir / "run.pcapng").string() + " --timeline " +
                                  (dir / "run.pftrace").string();
      RunNicsim(k, args + partition + records, dir, dir / "log");
      ASSERT_TRUE(fs::exists(dir / "stats.json")) << Slurp(dir / "log");
      dirs.push_back(dir);
    }
    const std::string trace = Slurp(dirs[0] / "run.trace");
    const std::string pcap = Slurp(dirs[0] / "run.pcapng");
    const std::string timeline = Slurp(dirs[0] / "run.pftrace");
    EXPECT_GT(trace.size(), 100000u);
    EXPECT_GT(pcap.size(), 100000u);
    EXPECT_GT(timeline.size(), 10000u);
    for (size_t i = 1; i < dirs.size(); ++i) {
      // Compared whole, not by size: a merge out of key order keeps the size.
      EXPECT_TRUE(Slurp(dirs[i] / "run.trace") == trace) << "seed " << seed << ", " << dirs[i];
      EXPECT_TRUE(Slurp(dirs[i] / "run.pcapng") == pcap) << "seed " << seed << ", " << dirs[i];
      EXPECT_TRUE(Slurp(dirs[i] / "run.pftrace") == timeline) << "seed " << seed << ", " << dirs[i];
      EXPECT_EQ(Comparable(dirs[0] / "stats.json"), Comparable(dirs[i] / "stats.json"));
    }
  }
}

/** The pids of `parent`'s children. */
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::ifstream in("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) +
                   "/children");
  std::vector<pid_t> kids;
  for (pid_t p; in >> p;) kids.push_back(p);
  return kids;
}

/** A two-process run long enough to be interrupted, started in the background: mpirun's pid
 *  and its two ranks' (empty if they did not start within a minute). */
struct Background {
  pid_t mpirun = -1;
  std::vector<pid_t> ranks;
};

Background StartLongSplitRun(const fs::path& out, const std::string& env) {
  SpawnRequest request;
  request.argv = {kMpirun,       "--oversubscribe",
                  "-n",          "2",
                  NICSIM_BINARY, "run",
                  "--set",       "backend=func",
                  "--set",       "workload=random_exchange",
                  "--set",       "nodes=32",
                  "--set",       "exchange.messages=5000000",
                  "--quiet",     "--out",
                  out.string()};
  if (!env.empty()) request.set_env = {env};
  const int log = open((out / "log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  request.stdout_fd = request.stderr_fd = log;
  Result<pid_t> started = Spawn(request);
  close(log);
  Background run;
  if (!started.ok()) return run;
  run.mpirun = *started;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline &&
         (run.ranks = ChildrenOf(run.mpirun)).size() < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Let both get past MPI_Init into the run.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  return run;
}

/** True if `pid` is a stopped process (state T in /proc/PID/stat). */
bool IsStopped(pid_t pid) {
  const std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'T';
}

/** Waits up to `seconds` for mpirun to end; false (and mpirun killed) if it did not. */
bool EndsWithin(pid_t mpirun, int seconds, int* status) {
  bool killed = false;
  *status = WaitFor(mpirun, seconds, &killed);
  return !killed;
}

/** Starts a long two-process run (with `env`), sends one rank `signal`, and waits a minute
 *  at most for the run to end: true if it ended, failing, without stats.json; its log in
 *  `log`. */
::testing::AssertionResult InterruptedRunEndsFailing(const std::string& name,
                                                     const std::string& env, int signal,
                                                     std::string* log) {
  const fs::path out = FreshDir(name);
  Background run = StartLongSplitRun(out, env);
  if (run.mpirun <= 0 || run.ranks.size() < 2) {
    return ::testing::AssertionFailure() << "mpirun did not start two processes";
  }
  kill(run.ranks.back(), signal);
  int status = 0;
  const bool ended = EndsWithin(run.mpirun, 60, &status);
  if (IsStopped(run.ranks.back())) kill(run.ranks.back(), SIGKILL);  // if the abort left it
  *log = Slurp(out / "log");
  if (!ended) return ::testing::AssertionFailure() << "the run hung:\n" << *log;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    return ::testing::AssertionFailure() << "the run passed:\n" << *log;
  }
  if (fs::exists(out / "stats.json")) {
    return ::testing::AssertionFailure() << "stats.json was written:\n" << *log;
  }
  return ::testing::AssertionSuccess();
}

TEST(SplitRunTest, KilledPartitionEndsEveryProcessWithAnErrorNotAHang) {
  REQUIRE_SPLIT_RUNS();
  std::string log;
  ASSERT_TRUE(InterruptedRunEndsFailing("killed", "", SIGKILL, &log));
  EXPECT_NE(log.find("partition 0 of 2: ended by mpirun"), std::string::npos) << log;
}

TEST(SplitRunTest, AHungPartitionEndsTheRunAfterTheTimeoutWithAnError) {
  REQUIRE_SPLIT_RUNS();
  // A process that stops answering (stopped, not dead: mpirun sees nothing wrong) is noticed
  // by the others' wait for a collective, NICSIM_SPLIT_TIMEOUT_S seconds at most.
  std::string log;
  ASSERT_TRUE(InterruptedRunEndsFailing("hung", "NICSIM_SPLIT_TIMEOUT_S=3", SIGSTOP, &log));
  EXPECT_NE(log.find(": no answer from the other partitions within 3 s"), std::string::npos) << log;
}

}  // namespace
