// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the golden-trace reader. Input: the context line count (one byte), then two
// traces split at the first NUL. Both are read, compared and reported; the comparison must
// agree with the lines, and the lines joined again must give back the text.
#include <sstream>
#include <string>

#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_targets.h"
#include "sim/observe/trace_diff.h"

namespace nicsim::fuzz {
namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> lines = sim::ReadTraceLines(in);
  // Joined with '\n' (plus the one a final line had) the lines are the text again.
  std::string joined;
  for (const std::string& line : lines) joined += line + "\n";
  const bool last_newline = !text.empty() && text.back() == '\n';
  if (!joined.empty() && !last_newline) joined.pop_back();
  NICSIM_CHECK(joined == text, "lines do not join back into the trace text");
  return lines;
}

}  // namespace

int FuzzTraceDiff(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const size_t context = in.U8() % 16;
  std::string_view text = in.Rest();
  const size_t cut = text.find('\0');
  const std::string_view left_text = text.substr(0, cut);
  const std::string_view right_text =
      cut == std::string_view::npos ? std::string_view() : text.substr(cut + 1);
  const std::vector<std::string> left = Lines(left_text);
  const std::vector<std::string> right = Lines(right_text);

  const sim::TraceDivergence d = sim::FirstDivergence(left, right, context);
  NICSIM_CHECK(d.same == (left == right), "same is %d for traces that %s", d.same,
               left == right ? "are equal" : "differ");
  NICSIM_CHECK(d.left_lines == left.size() && d.right_lines == right.size(), "line counts");
  if (!d.same) {
    NICSIM_CHECK(d.index <= left.size() && d.index <= right.size(), "index past both traces");
    for (size_t i = 0; i < d.index; ++i) NICSIM_CHECK(left[i] == right[i], "line %zu differs", i);
    NICSIM_CHECK(
        d.index == left.size() || d.index == right.size() || left[d.index] != right[d.index],
        "the first divergence is a common line");
    NICSIM_CHECK(d.before.size() == std::min(context, d.index), "context lines");
  }
  const std::string report = sim::FormatDivergence(d, "left", "right");
  NICSIM_CHECK(!report.empty() && report.back() == '\n', "report");
  return 0;
}

}  // namespace nicsim::fuzz
