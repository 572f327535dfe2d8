// SPDX-License-Identifier: Apache-2.0
// Trace comparison and its report.
#include "sim/observe/trace_diff.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace nicsim::sim {

TraceDivergence FirstDivergence(const std::vector<std::string>& left,
                                const std::vector<std::string>& right, size_t context) {
  TraceDivergence d;
  d.left_lines = left.size();
  d.right_lines = right.size();
  const size_t common = std::min(left.size(), right.size());
  size_t i = 0;
  while (i < common && left[i] == right[i]) ++i;
  if (i == left.size() && i == right.size()) return d;
  d.same = false;
  d.index = i;
  d.left = i < left.size() ? left[i] : "<end of trace>";
  d.right = i < right.size() ? right[i] : "<end of trace>";
  for (size_t j = i >= context ? i - context : 0; j < i; ++j) d.before.push_back(left[j]);
  return d;
}

Result<std::vector<std::string>> ReadTraceLines(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return Status::Error(fmt::format("{}: cannot open file: {}", path, std::strerror(errno)));
  return ReadTraceLines(in);
}

std::vector<std::string> ReadTraceLines(std::istream& in) {
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string FormatDivergence(const TraceDivergence& d, const std::string& left_name,
                             const std::string& right_name) {
  if (d.same) return fmt::format("traces are identical ({} events)\n", d.left_lines);
  std::string out = fmt::format("traces diverge at event {} ({}: {} events, {}: {} events)\n",
                                d.index, left_name, d.left_lines, right_name, d.right_lines);
  for (size_t k = 0; k < d.before.size(); ++k) {
    out += fmt::format("  {:>8}   {}\n", d.index - d.before.size() + k, d.before[k]);
  }
  out += fmt::format("- {:>8}   {}\n", d.index, d.left);
  out += fmt::format("+ {:>8}   {}\n", d.index, d.right);
  return out;
}

}  // namespace nicsim::sim
