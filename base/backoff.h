// SPDX-License-Identifier: Apache-2.0
// Exponential back-off: how long to wait before trying again.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace nicsim {

/**
 * A base wait doubled once per earlier try, at most `max_doublings` times, and never longer
 * than `ceiling`. The base is the caller's (a timeout, a round trip, a transfer's time); the
 * policy is only how it grows.
 */
struct Backoff {
  uint32_t max_doublings = 0;
  uint64_t ceiling = std::numeric_limits<uint64_t>::max();

  /** The wait after `tries` earlier tries: `base` at 0. */
  constexpr uint64_t Wait(uint64_t base, uint32_t tries) const {
    return std::min(base << std::min(tries, max_doublings), ceiling);
  }
};

}  // namespace nicsim
