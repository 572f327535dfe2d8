// SPDX-License-Identifier: Apache-2.0
// Which part of a run the --timeline and --pcap files show: a window of simulated time and a
// set of adapters (--trace-window, --trace-adapters, --sample), for runs of 1,000+ nodes.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace nicsim::sim {

/**
 * A window of simulated time [start_ps, end_ps) and a set of adapter ids. The default keeps
 * everything. A timeline keeps the events of the selected adapters, slices clipped to the
 * window and instants inside it; a capture keeps the frames that arrive inside the window and
 * that a selected adapter sent or receives.
 */
class TraceSelection {
 public:
  /** No end: the window runs to the end of the run. */
  static constexpr uint64_t kNoEndPs = std::numeric_limits<uint64_t>::max();

  /**
   * Builds a selection from the three flags' texts (empty: that flag was not given).
   *  - window "START:END", durations in the units of parameters ("10us:2.5ms"); either side
   *    may be empty (":1ms" from the start, "1ms:" to the end); END must be after START.
   *  - adapters "0,3,10-20": ids and inclusive ranges, each at most 65535.
   *  - sample "N" (N >= 1): every Nth of the adapters selected so far, in id order, starting
   *    with the first (with no --trace-adapters: ids 0, N, 2N, ...).
   * An error names the flag and the part of its value at fault.
   */
  static Result<TraceSelection> Parse(std::string_view window, std::string_view adapters,
                                      std::string_view sample);

  /** True when the window is the whole run. */
  bool whole_run() const { return start_ps_ == 0 && end_ps_ == kNoEndPs; }
  uint64_t start_ps() const { return start_ps_; }
  uint64_t end_ps() const { return end_ps_; }
  /** True when `time_ps` is inside the window. */
  bool KeepsTime(uint64_t time_ps) const { return time_ps >= start_ps_ && time_ps < end_ps_; }
  /** True when adapter `id` is selected. */
  bool KeepsAdapter(uint16_t id) const { return all_adapters_ || kept_[id]; }
  /** A frame from `src` to `dest` arriving at `time_ps`: inside the window, and a kept
   *  adapter sent or receives it. */
  bool KeepsFrame(uint64_t time_ps, uint16_t src, uint16_t dest) const {
    return KeepsTime(time_ps) && (KeepsAdapter(src) || KeepsAdapter(dest));
  }
  /** The largest selected adapter id; -1 when every adapter is kept or none is listed. */
  int32_t max_listed_adapter() const { return max_listed_; }

 private:
  uint64_t start_ps_ = 0;
  uint64_t end_ps_ = kNoEndPs;
  bool all_adapters_ = true;
  int32_t max_listed_ = -1;
  /** Indexed by adapter id (65,536 entries) when not all_adapters_. */
  std::vector<bool> kept_;
};

}  // namespace nicsim::sim
