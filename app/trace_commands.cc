// SPDX-License-Identifier: Apache-2.0
// Golden trace commands. A golden changes only through `bless`, whose diff is reviewed in the
// commit; `check` is what ctest runs for every directory under traces/.
#include "app/trace_commands.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/status.h"
#include "sim/config/scenario.h"
#include "sim/run/run_scenario.h"
#include "sim/observe/trace_diff.h"

namespace nicsim::sim {
namespace {

namespace fs = std::filesystem;

/**
 * Runs DIR/scenario.toml with its trace written to `trace_path` (created as a new file when
 * `create_new`); prints errors.
 */
int RunGolden(const std::string& dir, const std::string& trace_path, bool create_new) {
  Result<Scenario> scenario = LoadScenarioFile((fs::path(dir) / "scenario.toml").string());
  if (!scenario.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", scenario.status().message().c_str());
    return Status::kBadInputExit;
  }
  RunOptions options;
  options.trace_path = trace_path;
  options.trace_create_new = create_new;
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
  if (int rc = RunGolden(dir, golden, false); rc != 0) return rc;
  Result<std::vector<std::string>> lines = ReadTraceLines(golden);
  std::printf("blessed %s (%zu events)\n", golden.c_str(), lines.ok() ? lines->size() : 0);
  return 0;
}

Result<std::string> MakeTraceCheckDir(const std::string& golden_dir, const std::string& temp_root) {
  // "traces/a/" is named like "traces/a": a trailing slash leaves path::filename() empty.
  std::string name = fs::path(golden_dir).lexically_normal().filename().string();
  if (name.empty() || name == "." || name == "..") {
    name = fs::path(golden_dir).lexically_normal().parent_path().filename().string();
  }
  if (name.empty() || name == "." || name == "..") name = "golden";
  const std::string pattern = (fs::path(temp_root) / ("nicsim-trace-" + name + "-XXXXXX")).string();
  // mkdtemp picks a name nobody has and creates it with mode 0700, or fails.
  std::string made = pattern;
  if (::mkdtemp(made.data()) == nullptr) {
    return Status::Error(fmt::format("trace check: cannot make a directory like {}: {}", pattern,
                                     std::strerror(errno)));
  }
  return made;
}

int TraceCheckCommand(const std::string& dir) {
  const std::string golden = (fs::path(dir) / "trace.txt").string();
  std::error_code ec;
  const fs::path temp_root = fs::temp_directory_path(ec);
  if (ec) {
    std::fprintf(stderr, "nicsim: trace check: no temporary directory: %s\n", ec.message().c_str());
    return Status::kBadInputExit;
  }
  Result<std::string> scratch = MakeTraceCheckDir(dir, temp_root.string());
  if (!scratch.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", scratch.status().message().c_str());
    return Status::kBadInputExit;
  }
  const std::string fresh = (fs::path(*scratch) / "trace.txt").string();
  int rc = RunGolden(dir, fresh, true);
  if (rc == 0) rc = TraceDiffCommand(golden, fresh);
  if (rc == 1) {
    // The traces differ: keep the fresh one for the user to look at.
    std::printf("fresh trace kept in %s\n", fresh.c_str());
  } else {
    fs::remove_all(*scratch, ec);
  }
  return rc;
}

}  // namespace nicsim::sim
