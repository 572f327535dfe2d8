// SPDX-License-Identifier: Apache-2.0
// `nicsim trace ...`: compare traces, rewrite a golden trace, replay a golden and compare.
// A golden is a directory holding scenario.toml and the trace.txt it produces.
#pragma once

#include <string>

namespace nicsim::sim {

/** `nicsim trace diff A B`: 0 if identical, 1 with a first-divergence report, 2 bad input. */
int TraceDiffCommand(const std::string& left, const std::string& right);
/** `nicsim trace bless DIR`: runs DIR/scenario.toml and writes DIR/trace.txt. */
int TraceBlessCommand(const std::string& dir);
/** `nicsim trace check DIR`: runs DIR/scenario.toml and compares with DIR/trace.txt. */
int TraceCheckCommand(const std::string& dir);

}  // namespace nicsim::sim
