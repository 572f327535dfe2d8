// SPDX-License-Identifier: Apache-2.0
// Golden firmware traces: every directory under traces/ replays to exactly its trace.txt, and
// a behaviour change shows up as a first-divergence report naming the event.
#include <gtest/gtest.h>

#include "tests/support/backends.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/observe/trace_diff.h"
#include "tests/support/process.h"

namespace nicsim::sim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Goldens() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(NICSIM_SOURCE_DIR "/traces")) {
    if (fs::exists(entry.path() / "scenario.toml")) names.push_back(entry.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/** Runs nicsim with `args`; returns its exit status and stdout followed by stderr. */
std::pair<int, std::string> RunNicsim(const std::vector<std::string>& args) {
  nicsim::testing::ScratchDir scratch("nicsim_traces");
  std::vector<std::string> argv = {NICSIM_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const nicsim::testing::CommandResult r = nicsim::testing::RunCommand(argv, scratch.path());
  return {r.exit_code, r.out + r.err};
}

class GoldenTraceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTraceTest, ReplaysToItsGolden) {
  const std::string dir = std::string(NICSIM_SOURCE_DIR "/traces/") + GetParam();
  std::ifstream scenario(dir + "/scenario.toml");
  const std::string text((std::istreambuf_iterator<char>(scenario)),
                         std::istreambuf_iterator<char>());
  if (text.find("backend = \"systemc\"") != std::string::npos) {
    NICSIM_SKIP_WITHOUT_SYSTEMC();
  }
  const auto [rc, out] = RunNicsim({"trace", "check", dir});
  EXPECT_EQ(rc, 0) << out << "if the change is intended: build/nicsim trace bless " << dir;
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenTraceTest, ::testing::ValuesIn(Goldens()));

/** Runs a golden's scenario with `nicsim run`; its exit status and stats.json's workload. */
std::pair<int, nlohmann::json> RunGoldenScenario(const std::string& name) {
  nicsim::testing::ScratchDir scratch("nicsim_golden_run");
  const nicsim::testing::CommandResult r = nicsim::testing::RunCommand(
      {NICSIM_BINARY, "run", "--quiet", NICSIM_SOURCE_DIR "/traces/" + name + "/scenario.toml",
       "--out", scratch.path().string()},
      scratch.path());
  EXPECT_EQ(r.err, "");
  const nlohmann::json stats = nlohmann::json::parse(
      nicsim::testing::ReadFile(scratch.path() / "stats.json"), nullptr, false);
  return {r.exit_code, stats.is_discarded() ? nlohmann::json() : stats["workload"]};
}

// The lifecycle goldens tell the story their scenario.toml describes, with every byte checked
// (a golden records a trace whether or not its workload's checks pass).
TEST(LifecycleGoldenTest, CloseUnderLoadConsumesWritesDropsAndReopens) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const auto [rc, w] = RunGoldenScenario("close_under_load");
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(w["delivered_before_event"], 3);
  EXPECT_EQ(w["written"], 4);  // one frame written but never read
  EXPECT_EQ(w["dropped_closed"], 2);
  EXPECT_EQ(w["delivered_after"], 6);
  const std::string trace =
      nicsim::testing::ReadFile(NICSIM_SOURCE_DIR "/traces/close_under_load/trace.txt");
  EXPECT_NE(trace.find(" a1 close task=- state=- window=0 "), std::string::npos);
  EXPECT_NE(trace.find(" a1 drop task=0 state=closed_in_flight window=0 "), std::string::npos);
  EXPECT_NE(trace.find(" a1 drop task=0 state=window_closed window=0 "), std::string::npos);
}

TEST(LifecycleGoldenTest, AdapterRecoveryLosesSomeAndDeliversTheRestExactly) {
  const auto [rc, w] = RunGoldenScenario("adapter_recovery");
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(w["delivered_before_event"], 2);
  EXPECT_EQ(w["delivered"], 3);  // one of them after the recovery
  EXPECT_EQ(w["written"], 4);    // one written, then wiped with the reset FIFO
  EXPECT_EQ(w["dropped_by_reset"], 2);
  EXPECT_EQ(w["delivered_after"], 6);
  const std::string trace =
      nicsim::testing::ReadFile(NICSIM_SOURCE_DIR "/traces/adapter_recovery/trace.txt");
  EXPECT_NE(trace.find(" a1 reset task=- "), std::string::npos);
}

TEST(TraceDiffTest, ReportsTheFirstDivergenceWithContext) {
  const std::vector<std::string> a = {"e0", "e1", "e2", "e3", "e4"};
  const std::vector<std::string> b = {"e0", "e1", "e2", "X3", "e4"};
  const TraceDivergence d = FirstDivergence(a, b, 2);
  EXPECT_FALSE(d.same);
  EXPECT_EQ(d.index, 3u);
  EXPECT_EQ(d.before, (std::vector<std::string>{"e1", "e2"}));
  EXPECT_EQ(FormatDivergence(d, "golden", "now"),
            "traces diverge at event 3 (golden: 5 events, now: 5 events)\n"
            "         1   e1\n"
            "         2   e2\n"
            "-        3   e3\n"
            "+        3   X3\n");
}

TEST(TraceDiffTest, ReportsATraceThatEndsEarly) {
  const TraceDivergence d = FirstDivergence({"a", "b"}, {"a"});
  EXPECT_EQ(d.index, 1u);
  EXPECT_EQ(d.right, "<end of trace>");
  EXPECT_TRUE(FirstDivergence({"a"}, {"a"}).same);
}

TEST(TraceDiffTest, AMicrocodeTimingChangeIsCaughtAtItsFirstEvent) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  // One microcode cost changed: the first receive 'admit' step moves, and the report names it.
  const std::string dir = std::string(NICSIM_SOURCE_DIR "/traces/packet_mode");
  const fs::path tmp = fs::temp_directory_path() / "nicsim_changed_packet_mode";
  fs::create_directories(tmp);
  std::ifstream in(dir + "/scenario.toml");
  std::ofstream out(tmp / "scenario.toml");
  out << in.rdbuf() << "\n[adapter]\nrx_cycles = [24, 8, 31, 12, 14, 20, 4]\n";
  out.close();
  fs::copy_file(dir + "/trace.txt", tmp / "trace.txt", fs::copy_options::overwrite_existing);
  const auto [rc, report] = RunNicsim({"trace", "check", tmp.string()});
  EXPECT_EQ(rc, 1) << report;
  EXPECT_NE(report.find("traces diverge at event"), std::string::npos) << report;
  // The first line that moved is the changed step itself.
  const size_t minus = report.find("\n- ");
  ASSERT_NE(minus, std::string::npos) << report;
  EXPECT_NE(
      report.substr(minus, report.find('\n', minus + 1) - minus).find("a1 rx task=0 state=admit"),
      std::string::npos)
      << report;
  fs::remove_all(tmp);
}

TEST(TraceDiffTest, AOneLineMicrocodeBugIsCaughtWithTheRightFirstDivergence) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  // nicsim_mutant refuses a frame when one is still free (firmware/internal.h, ReserveFrame).
  const std::string golden_dir = NICSIM_SOURCE_DIR "/traces/fifo_overflow";
  nicsim::testing::ScratchDir scratch("nicsim_mutant");
  const nicsim::testing::CommandResult check = nicsim::testing::RunCommand(
      {NICSIM_MUTANT_BINARY, "trace", "check", golden_dir}, scratch.path());
  ASSERT_EQ(check.exit_code, 1) << check.out << check.err;
  const std::string report = check.out + check.err;
  const std::string marker = "traces diverge at event ";
  const size_t at = report.find(marker);
  ASSERT_NE(at, std::string::npos) << report;
  const size_t reported = std::stoul(report.substr(at + marker.size()));
  // Find the first difference independently: the golden against the mutant's own trace.
  const fs::path mutant_trace = scratch.path() / "mutant.txt";
  const nicsim::testing::CommandResult run = nicsim::testing::RunCommand(
      {NICSIM_MUTANT_BINARY, "run", golden_dir + "/scenario.toml", "--quiet", "--out",
       scratch.path().string(), "--trace", mutant_trace.string()},
      scratch.path());
  // The bug loses packets, so the run itself fails (exit 1) — its trace is still written.
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.err;
  ASSERT_TRUE(fs::exists(mutant_trace)) << run.err;
  const std::vector<std::string> golden = ReadTraceLines(golden_dir + "/trace.txt").value();
  const std::vector<std::string> mutant = ReadTraceLines(mutant_trace.string()).value();
  size_t first = 0;
  while (first < golden.size() && first < mutant.size() && golden[first] == mutant[first]) ++first;
  EXPECT_EQ(reported, first) << report;
  ASSERT_LT(first, mutant.size());
  // The divergence is the bug itself: a frame refused right after the task's admit step.
  EXPECT_NE(mutant[first].find(" drop "), std::string::npos) << mutant[first];
  EXPECT_NE(mutant[first].find("state=rx_fifo_full"), std::string::npos) << mutant[first];
  ASSERT_GT(first, 0u);
  const std::string& admit = mutant[first - 1];
  EXPECT_NE(admit.find("state=admit"), std::string::npos) << admit;
  const std::string task =
      admit.substr(admit.find("task="), admit.find(' ', admit.find("task=")) - admit.find("task="));
  EXPECT_NE(mutant[first].find(task + " "), std::string::npos) << mutant[first];
  // And the report shows both sides of it.
  EXPECT_NE(report.find("+ "), std::string::npos);
  EXPECT_NE(report.find("rx_fifo_full"), std::string::npos) << report;
}

}  // namespace
}  // namespace nicsim::sim
