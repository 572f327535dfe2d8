// SPDX-License-Identifier: Apache-2.0
// Parsing of --trace-window, --trace-adapters and --sample into one TraceSelection; every
// error names its flag.
#include "sim/observe/trace_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "base/text.h"
#include "base/units.h"

namespace nicsim::sim {
namespace {

constexpr uint32_t kAdapterIds = 0x10000;

/** A whole decimal number of at most `max`, or nothing. */
std::optional<uint64_t> Whole(std::string_view text, uint64_t max) {
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n > max) {
    return std::nullopt;
  }
  return n;
}

/** One side of START:END; empty gives `empty_ps`. */
Result<uint64_t> WindowEdge(std::string_view text, uint64_t empty_ps, const char* side) {
  text = Trim(text);
  if (text.empty()) return empty_ps;
  Result<int64_t> ps = ParseDuration(text);
  if (!ps.ok()) {
    return Status::Error(
        fmt::format("--trace-window: {} '{}': {}", side, Printable(text), ps.status().message()));
  }
  return static_cast<uint64_t>(*ps);
}

}  // namespace

Result<TraceSelection> TraceSelection::Parse(std::string_view window, std::string_view adapters,
                                             std::string_view sample) {
  TraceSelection s;
  if (!window.empty()) {
    const size_t colon = window.find(':');
    if (colon == std::string_view::npos || window.find(':', colon + 1) != std::string_view::npos) {
      return Status::Error(fmt::format("--trace-window: '{}': expected START:END (like 10us:2ms)",
                                       Printable(window)));
    }
    Result<uint64_t> start = WindowEdge(window.substr(0, colon), 0, "START");
    if (!start.ok()) return start.status();
    Result<uint64_t> end = WindowEdge(window.substr(colon + 1), kNoEndPs, "END");
    if (!end.ok()) return end.status();
    if (*end <= *start) {
      return Status::Error(
          fmt::format("--trace-window: '{}': END must be after START", Printable(window)));
    }
    s.start_ps_ = *start;
    s.end_ps_ = *end;
  }
  if (!adapters.empty()) {
    s.all_adapters_ = false;
    s.kept_.assign(kAdapterIds, false);
    for (const std::string_view item : SplitTrimmed(adapters, ',')) {
      const size_t dash = item.find('-');
      const std::optional<uint64_t> first = Whole(item.substr(0, dash), kAdapterIds - 1);
      const std::optional<uint64_t> last =
          dash == std::string_view::npos ? first : Whole(item.substr(dash + 1), kAdapterIds - 1);
      if (!first || !last || *last < *first) {
        return Status::Error(fmt::format(
            "--trace-adapters: '{}': expected an adapter id or a range FIRST-LAST (ids 0 to "
            "65535), as in 0,3,10-20",
            Printable(item)));
      }
      for (uint64_t id = *first; id <= *last; ++id) s.kept_[id] = true;
      s.max_listed_ = std::max<int32_t>(s.max_listed_, static_cast<int32_t>(*last));
    }
  }
  if (!sample.empty()) {
    const std::optional<uint64_t> every = Whole(Trim(sample), kAdapterIds);
    if (!every || *every == 0) {
      return Status::Error(
          fmt::format("--sample: '{}': expected a whole number from 1 to 65536 (every Nth adapter)",
                      Printable(sample)));
    }
    if (s.all_adapters_) {
      s.all_adapters_ = false;
      s.kept_.assign(kAdapterIds, true);
    }
    uint64_t rank = 0;
    for (uint32_t id = 0; id < kAdapterIds; ++id) {
      if (s.kept_[id]) s.kept_[id] = rank++ % *every == 0;
    }
  }
  return s;
}

}  // namespace nicsim::sim
