// SPDX-License-Identifier: Apache-2.0
// Comparing firmware traces: the first line where two traces diverge, with context, so a
// change in microcode behaviour reads as a short report instead of a wall of diff.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "base/status.h"

namespace nicsim::sim {

/** Where two traces first differ. */
struct TraceDivergence {
  bool same = true;
  /** 0-based event index of the first difference. */
  size_t index = 0;
  /** The line on each side ("<end of trace>" when one side ran out). */
  std::string left;
  std::string right;
  /** Up to `context` lines both traces share just before the difference. */
  std::vector<std::string> before;
  size_t left_lines = 0;
  size_t right_lines = 0;
};

/** Compares two traces given as lines. */
TraceDivergence FirstDivergence(const std::vector<std::string>& left,
                                const std::vector<std::string>& right, size_t context = 3);

/** Reads a trace file as lines; an error names the file. */
Result<std::vector<std::string>> ReadTraceLines(const std::string& path);

/**
 * Reads trace text as lines, split at '\n' (a last line without one counts; nothing else is
 * stripped). ReadTraceLines(path) reads a file through this.
 */
std::vector<std::string> ReadTraceLines(std::istream& in);

/** The human-readable report for a divergence between `left_name` and `right_name`. */
std::string FormatDivergence(const TraceDivergence& d, const std::string& left_name,
                             const std::string& right_name);

}  // namespace nicsim::sim
