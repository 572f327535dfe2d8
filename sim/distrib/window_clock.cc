// SPDX-License-Identifier: Apache-2.0
// Window ends of the conservative synchronisation, and the check that makes a lookahead
// violation a loud error instead of a silently different run.
#include "sim/distrib/window_clock.h"

#include <string>

namespace nicsim::sim::distrib {

bool WindowClock::Advance(uint64_t global_next_ps) {
  if (global_next_ps == UINT64_MAX) return false;
  end_ps_ =
      global_next_ps > UINT64_MAX - lookahead_ps_ ? UINT64_MAX : global_next_ps + lookahead_ps_;
  ++windows_;
  return true;
}

Status WindowClock::CheckArrival(uint64_t time_ps, uint32_t from) const {
  if (time_ps >= end_ps_) return Status();
  return Status::Error("lookahead violation: a frame from partition " + std::to_string(from) +
                       " is due at t=" + std::to_string(time_ps) +
                       "ps, before the end of the window it was sent in (" +
                       std::to_string(end_ps_) + "ps, lookahead " + std::to_string(lookahead_ps_) +
                       "ps)");
}

}  // namespace nicsim::sim::distrib
