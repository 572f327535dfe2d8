// SPDX-License-Identifier: Apache-2.0
// Golden trace commands. A golden changes only through `bless`, whose diff is reviewed in the
// commit; `check` is what ctest runs for every directory under traces/.
#include "sim/trace_commands.h"

#include <cstdio>
#include <filesystem>

#include "base/status.h"
#include "sim/config/scenario.h"
#include "sim/run_scenario.h"
#include "sim/trace_diff.h"

namespace nicsim::sim {
namespace {

namespace fs = std::filesystem;

/** Runs DIR/scenario.toml with its trace written to `trace_path`; prints errors. */
int RunGolden(const std::string& dir, const std::string& trace_path) {
  Result<Scenario> scenario = LoadScenarioFile((fs::path(dir) / "scenario.toml").string());
  if (!scenario.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", scenario.status().message().c_str());
    return Status::kBadInputExit;
  }
  RunOptions options;
  options.trace_path = trace_path;
  Result<RunOutcome> outcome = RunScenario(*scenario, options);
  if (!outcome.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", outcome.status().message().c_str());
    return Status::kBadInputExit;
  }
  return 0;
}

}  // namespace

int TraceDiffCommand(const std::string& left, const std::string& right) {
  Result<std::vector<std::string>> a = ReadTraceLines(left);
  Result<std::vector<std::string>> b = ReadTraceLines(right);
  for (const auto* r : {&a, &b}) {
    if (!r->ok()) {
      std::fprintf(stderr, "nicsim: %s\n", r->status().message().c_str());
      return Status::kBadInputExit;
    }
  }
  const TraceDivergence d = FirstDivergence(*a, *b);
  std::fputs(FormatDivergence(d, left, right).c_str(), stdout);
  return d.same ? 0 : 1;
}

int TraceBlessCommand(const std::string& dir) {
  const std::string golden = (fs::path(dir) / "trace.txt").string();
  if (int rc = RunGolden(dir, golden); rc != 0) return rc;
  Result<std::vector<std::string>> lines = ReadTraceLines(golden);
  std::printf("blessed %s (%zu events)\n", golden.c_str(), lines.ok() ? lines->size() : 0);
  return 0;
}

int TraceCheckCommand(const std::string& dir) {
  const std::string golden = (fs::path(dir) / "trace.txt").string();
  const std::string fresh = (fs::temp_directory_path() /
                             ("nicsim-trace-" + fs::path(dir).filename().string() + ".txt"))
                                .string();
  if (int rc = RunGolden(dir, fresh); rc != 0) return rc;
  const int rc = TraceDiffCommand(golden, fresh);
  std::error_code ec;
  if (rc == 0) fs::remove(fresh, ec);
  return rc;
}

}  // namespace nicsim::sim
