// SPDX-License-Identifier: Apache-2.0
// The MPICH test suite's C programs (../shared/mpich-tests, outside rma/), each built with
// nicsim-mpicc unmodified and run under `nicsim mpirun` as its directory's testlist says, judged
// as MPICH's runtests judges: exit 0, a "No Errors" line and no other output (or, for
// resultTest=TestStatus, TestErrFatal and TestTimeout, a non-zero exit and no "No Errors");
// commented entries run too. The entries expected to fail are listed with their reasons in
// expected_failures.txt: one that fails and is not listed fails the test, and so does one that
// is listed and passes (the list only shrinks). Sanitizer builds skip the entries of
// sanitizer_skips.txt, too slow there to end within the limits. Without the suite the tests
// are skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/sanitizers.h"
#include "tests/support/process.h"

namespace nicsim::testing {
namespace {

namespace fs = std::filesystem;

/** The suite's directories this harness runs. */
const char* const kDirectories[] = {"pt2pt",  "coll", "datatype", "comm", "group", "init",
                                    "errhan", "attr", "topo",     "info", "rma"};

/** One testlist entry: a program, its process count and how it is judged. */
struct Entry {
  std::string dir;
  std::string program;
  int ranks = 1;
  std::vector<std::string> args;
  /** resultTest=TestStatus / TestErrFatal / TestTimeout: the program must fail (exit non-zero,
   *  or be stopped at its time limit). */
  bool must_fail = false;
  /** timeLimit= seconds (the suite's default otherwise). */
  int time_limit_s = 180;
  /** "dir/program ranks" (arguments too): the key of expected_failures.txt. */
  std::string key() const {
    std::string k = dir + "/" + program + " " + std::to_string(ranks);
    for (const std::string& a : args) k += " " + a;
    return k;
  }
};

void PrintTo(const Entry& e, std::ostream* os) { *os << e.key(); }

fs::path SuiteDir() { return fs::path(NICSIM_MPICH_TESTS_DIR); }

/**
 * Every entry of the directories' testlists (none if the suite is absent), the commented ones
 * too ("#name N ...", which SimGrid does not run) when their program is in the suite.
 */
std::vector<Entry> Entries() {
  std::vector<Entry> entries;
  std::set<std::string> seen;  // a testlist may name an entry twice: it runs once
  for (const char* dir : kDirectories) {
    std::ifstream in(SuiteDir() / dir / "testlist");
    for (std::string line; std::getline(in, line);) {
      const bool commented = line.rfind('#', 0) == 0;
      std::istringstream words(commented ? line.substr(1) : line);
      Entry e;
      e.dir = dir;
      if (!(words >> e.program) || e.program[0] == '#' || !(words >> e.ranks)) continue;
      if (commented && !fs::exists(SuiteDir() / dir / (e.program + ".c"))) continue;
      for (std::string w; words >> w;) {
        if (w.rfind("arg=", 0) == 0) e.args.push_back(w.substr(4));
        if (w == "resultTest=TestStatus" || w == "resultTest=TestErrFatal" ||
            w == "resultTest=TestTimeout") {
          e.must_fail = true;
        }
        if (w.rfind("timeLimit=", 0) == 0) e.time_limit_s = std::stoi(w.substr(10));
      }
      if (seen.insert(e.key()).second) entries.push_back(e);
    }
  }
  return entries;
}

/** A list of the harness directory: "dir/program ranks [args] | reason" per line. */
std::map<std::string, std::string> EntryList(const char* file) {
  std::map<std::string, std::string> entries;
  std::ifstream in(fs::path(NICSIM_MPICH_HARNESS_DIR) / file);
  for (std::string line; std::getline(in, line);) {
    const size_t bar = line.find(" | ");
    if (line.empty() || line[0] == '#' || bar == std::string::npos) continue;
    entries[line.substr(0, bar)] = line.substr(bar + 3);
  }
  return entries;
}

/** The entries nicsim does not pass yet. */
std::map<std::string, std::string> ExpectedFailures() { return EntryList("expected_failures.txt"); }

/** The entries a sanitizer build does not run (beyond its speed within the limits). */
std::map<std::string, std::string> SanitizerSkips() { return EntryList("sanitizer_skips.txt"); }

/** The output with mpirun's tags ("[1,R]<stdout>:") taken off each line. */
std::vector<std::string> Untagged(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("[1,", 0) == 0) {
      const size_t colon = line.find(">:");
      if (colon != std::string::npos) line = line.substr(colon + 2);
    }
    lines.push_back(line);
  }
  return lines;
}

/** runtests' success line: "No Errors" (or "No errors"), blanks around it allowed. */
bool IsNoErrors(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  const size_t last = line.find_last_not_of(" \t\r");
  if (first == std::string::npos) return false;
  const std::string word = line.substr(first, last - first + 1);
  return word == "No Errors" || word == "No errors";
}

/** What went wrong with a run, as runtests would see it; empty when it passed. */
std::string Judge(const Entry& e, const CommandResult& r) {
  const std::vector<std::string> out = Untagged(r.out + r.err);
  if (e.must_fail) {
    if (r.exit_code == 0) return "exit 0 where the program must fail";
    for (const std::string& line : out) {
      if (IsNoErrors(line)) return "printed No Errors but must fail";
    }
    return "";
  }
  if (r.exit_code != 0) return "exit " + std::to_string(r.exit_code);
  bool no_errors = false;
  for (const std::string& line : out) {
    if (IsNoErrors(line)) {
      no_errors = true;
    } else if (!line.empty()) {
      return "unexpected output: " + line;
    }
  }
  return no_errors ? "" : "no \" No Errors\" line";
}

/** The sources beside a program's own that the suite's Makefile.am builds it from. */
std::vector<std::string> ExtraSources(const Entry& e) {
  if (e.dir == "rma" && e.program == "mutex_bench") return {"mcs-mutex.c"};
  return {};
}

class MpichSuite : public ::testing::TestWithParam<Entry> {};

TEST_P(MpichSuite, PassesAsRuntestsJudges) {
  const Entry& e = GetParam();
  if (NICSIM_ADDRESS_SANITIZER) {
    const std::map<std::string, std::string> skips = SanitizerSkips();
    if (auto skip = skips.find(e.key()); skip != skips.end()) {
      GTEST_SKIP() << "not run under the sanitizers: " << skip->second;
    }
  }
  const fs::path source = SuiteDir() / e.dir / (e.program + ".c");
  const std::map<std::string, std::string> expected = ExpectedFailures();
  const auto listed = expected.find(e.key());
  ScratchDir scratch("mpich_" + e.program);
  ASSERT_FALSE(scratch.path().empty());
  std::string failure;
  CommandResult build;
  if (!fs::exists(source)) {
    failure = "no program " + source.string() + " in this copy of the suite";
  } else {
    const fs::path binary = scratch.path() / e.program;
    std::vector<std::string> cc = {NICSIM_MPICC, "-include",
                                   NICSIM_MPICH_HARNESS_DIR "/mpitestconf.h",
                                   "-I" + (SuiteDir() / "include").string(), source.string()};
    for (const std::string& extra : ExtraSources(e))
      cc.push_back((SuiteDir() / e.dir / extra).string());
    cc.insert(cc.end(), {NICSIM_MPICH_MTEST_LIBRARY, "-Wl,--wrap=MTest_Finalize", "-lm", "-o",
                         binary.string()});
    build = RunCommand(cc, scratch.path());
    if (build.exit_code != 0) {
      failure = "does not build";
    } else {
      // A run gets the testlist's limit, at most two minutes (under ASan, which runs the
      // simulator and the program several times slower, the testlist's own); one expected to
      // fail, 30 s.
      const int most_s = NICSIM_ADDRESS_SANITIZER ? e.time_limit_s : 120;
      const int limit_s = std::min(e.time_limit_s, listed != expected.end() ? 30 : most_s);
      std::vector<std::string> argv = {NICSIM_BINARY,
                                       "mpirun",
                                       "--set",
                                       "mpi.wall_limit=" + std::to_string(limit_s) + "s",
                                       "-n",
                                       std::to_string(e.ranks),
                                       "--quiet",
                                       "--out",
                                       scratch.path().string(),
                                       binary.string()};
      argv.insert(argv.end(), e.args.begin(), e.args.end());
      const CommandResult run = RunCommand(argv, scratch.path());
      failure = Judge(e, run);
      if (!failure.empty()) failure += "\n" + run.out + run.err;
    }
  }
  if (listed != expected.end()) {
    EXPECT_FALSE(failure.empty()) << e.key() << " now passes: take it off expected_failures.txt"
                                  << " (listed as: " << listed->second << ")";
    if (!failure.empty()) GTEST_SKIP() << "expected to fail: " << listed->second;
    return;
  }
  EXPECT_TRUE(failure.empty()) << e.key() << ": " << failure << build.err.substr(0, 4000);
}

TEST(MpichSuiteHarness, FindsTheSuiteOrSaysWhyNot) {
  if (!fs::exists(SuiteDir() / "pt2pt" / "testlist")) {
    GTEST_SKIP() << "the MPICH test suite is not at " << SuiteDir();
  }
  // Every entry of the expected failures names an entry of the testlists.
  std::map<std::string, bool> keys;
  for (const Entry& e : Entries()) keys[e.key()] = true;
  for (const auto& [key, reason] : ExpectedFailures()) {
    EXPECT_TRUE(keys.count(key)) << "expected_failures.txt lists " << key
                                 << ", which no testlist has";
  }
  for (const auto& [key, reason] : SanitizerSkips()) {
    EXPECT_TRUE(keys.count(key)) << "sanitizer_skips.txt lists " << key
                                 << ", which no testlist has";
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MpichSuite);
INSTANTIATE_TEST_SUITE_P(Testlists, MpichSuite, ::testing::ValuesIn(Entries()),
                         [](const ::testing::TestParamInfo<Entry>& param_info) {
                           const Entry& e = param_info.param;
                           std::string name =
                               e.dir + "_" + e.program + "_" + std::to_string(e.ranks);
                           for (const std::string& a : e.args) name += "_" + a;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace nicsim::testing
