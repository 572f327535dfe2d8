// SPDX-License-Identifier: Apache-2.0
// Chrome trace-event JSON for a TimelineModel: compact one-line events, exact microsecond
// decimals.
#include "sim/observe/timeline_json.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace nicsim::sim {
namespace {

/** Microseconds as an exact decimal of the picosecond time. */
std::string Micros(uint64_t ps) { return fmt::format("{}.{:06}", ps / 1'000'000, ps % 1'000'000); }

std::string Quote(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

std::string TimelineJson(const TimelineModel& model) {
  std::string out = "{\"traceEvents\":[";
  bool first = true;
  auto add = [&](const std::string& event) {
    out += first ? "\n" : ",\n";
    out += event;
    first = false;
  };
  for (const uint16_t pid : model.processes()) {
    add(fmt::format(
        R"({{"ph":"M","pid":{},"tid":0,"name":"process_name","args":{{"name":"adapter {}"}}}})",
        pid, pid));
    add(fmt::format(
        R"({{"ph":"M","pid":{},"tid":0,"name":"process_sort_index","args":{{"sort_index":{}}}}})",
        pid, pid));
  }
  for (const auto& [pid, tid] : model.tracks()) {
    add(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":{}}}}})",
                    pid, tid, Quote(TimelineModel::TrackName(tid))));
    add(fmt::format(
        R"({{"ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})",
        pid, tid, tid));
  }
  for (const TimelineSlice& s : model.slices()) {
    if (s.ph == 'X') {
      add(fmt::format(
          R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":{},"cat":"{}","args":{}}})",
          s.pid, s.tid, Micros(s.ts_ps), Micros(s.dur_ps), Quote(s.name), s.cat, s.args));
    } else {
      add(fmt::format(
          R"({{"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"name":{},"cat":"{}","args":{}}})", s.pid,
          s.tid, Micros(s.ts_ps), Quote(s.name), s.cat, s.args));
    }
  }
  out += "\n],\"displayTimeUnit\":\"ns\"}\n";
  return out;
}

}  // namespace nicsim::sim
