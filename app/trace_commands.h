// SPDX-License-Identifier: Apache-2.0
// `nicsim trace ...`: compare traces, rewrite a golden trace, replay a golden and compare.
// A golden is a directory holding scenario.toml and the trace.txt it produces.
#pragma once

#include <string>

#include "base/status.h"

namespace nicsim::sim {

/** `nicsim trace diff A B`: 0 if identical, 1 with a first-divergence report, 2 bad input. */
int TraceDiffCommand(const std::string& left, const std::string& right);
/** `nicsim trace bless DIR`: runs DIR/scenario.toml and writes DIR/trace.txt. */
int TraceBlessCommand(const std::string& dir);
/**
 * `nicsim trace check DIR`: runs DIR/scenario.toml and compares with DIR/trace.txt. The fresh
 * trace is written into a private directory from MakeTraceCheckDir, removed afterwards unless
 * the traces differ (then its path is printed).
 */
int TraceCheckCommand(const std::string& dir);

/**
 * Makes a new directory, mode 0700, under `temp_root` for a check of `golden_dir`:
 * TEMP/nicsim-trace-NAME-XXXXXX, NAME the golden's directory name (trailing slashes ignored)
 * and XXXXXX unique (mkdtemp), so concurrent checks never share a file and nothing planted
 * in the shared temp directory is written through.
 */
Result<std::string> MakeTraceCheckDir(const std::string& golden_dir, const std::string& temp_root);

}  // namespace nicsim::sim
