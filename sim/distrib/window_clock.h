// SPDX-License-Identifier: Apache-2.0
// The conservative synchronisation windows of a split run: each window is [T, T + lookahead)
// from the least next event time over every partition, and no hand-over may arrive inside it.
#pragma once

#include <cstdint>

#include "base/status.h"

namespace nicsim::sim::distrib {

/**
 * Windows of simulated time that every partition runs independently. The lookahead is the
 * least time from the event that routes a frame to the frame's hand-over to the destination's
 * node (link delay plus hop latency), so a hand-over made inside a window is due at or after
 * the window's end: the receiver can take it before running anything it could precede.
 */
class WindowClock {
 public:
  explicit WindowClock(uint64_t lookahead_ps) : lookahead_ps_(lookahead_ps) {}

  uint64_t lookahead_ps() const { return lookahead_ps_; }
  /** Events strictly before this time belong to the current window. */
  uint64_t window_end_ps() const { return end_ps_; }
  /** Windows started so far (empty stretches of time are skipped, not counted). */
  uint64_t windows() const { return windows_; }

  /**
   * Starts the next window at `global_next_ps`, the least next event time over every
   * partition after the exchange; false (and no window) when it is UINT64_MAX: every
   * partition is idle and nothing is in flight, so the run is over.
   */
  bool Advance(uint64_t global_next_ps);

  /**
   * A hand-over from partition `from` due at `time_ps`, received at the end of the current
   * window: an error (a lookahead violation) if it is due before the window's end, because
   * the receiver may already have run events after that time.
   */
  Status CheckArrival(uint64_t time_ps, uint32_t from) const;

 private:
  uint64_t lookahead_ps_;
  uint64_t end_ps_ = 0;
  uint64_t windows_ = 0;
};

}  // namespace nicsim::sim::distrib
