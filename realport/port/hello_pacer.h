// SPDX-License-Identifier: Apache-2.0
// When `nicsim port`'s modes send a periodic HELLO to their peer.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "base/backoff.h"
#include "realport/port/clock.h"

namespace nicsim::sim {

/** The shortest HELLO period: while there is something to tell the peer. */
inline constexpr auto kHelloInterval = std::chrono::milliseconds(1);

/**
 * When the next periodic HELLO is due. The first is due at once; then one every
 * kHelloInterval while the caller has something to tell the peer (it has not heard the peer,
 * or the peer has not been told its count), else every kHelloKeepalive (in case one was
 * lost); and each HELLO given while the peer has sent none back since the one before doubles
 * the period, up to kHelloQuietMax. Every HELLO takes a frame of the peer's receive FIFO,
 * and a peer whose host has not started reading, or has stalled, frees none: at a fixed
 * period a host held up for a few hundred milliseconds would find its FIFO full of HELLOs
 * and drop the messages behind them, which nothing resends.
 */
class HelloPacer {
 public:
  static constexpr auto kHelloKeepalive = std::chrono::milliseconds(50);
  static constexpr auto kHelloQuietMax = std::chrono::milliseconds(1600);

  /** True if a HELLO is due at `now` (it is then taken as given). `reporting`: the caller
   *  has something to tell; `heard`: HELLOs received from the peer so far. */
  bool Due(PortClock::time_point now, bool reporting, uint64_t heard) {
    const PortClock::duration base =
        reporting ? PortClock::duration(kHelloInterval) : PortClock::duration(kHelloKeepalive);
    const Backoff backoff{kMaxDoublings,
                          static_cast<uint64_t>(PortClock::duration(kHelloQuietMax).count())};
    const PortClock::duration period(static_cast<PortClock::rep>(
        backoff.Wait(static_cast<uint64_t>(base.count()), unanswered_)));
    if (given_ && now - last_ < period) return false;
    unanswered_ = given_ && heard == heard_at_last_ ? std::min(unanswered_ + 1, kMaxDoublings) : 0;
    heard_at_last_ = heard;
    given_ = true;
    last_ = now;
    return true;
  }

 private:
  static constexpr uint32_t kMaxDoublings = 16;
  bool given_ = false;
  PortClock::time_point last_{};
  /** HELLOs heard when the last one was given, and how many were given in a row unanswered. */
  uint64_t heard_at_last_ = 0;
  uint32_t unanswered_ = 0;
};

}  // namespace nicsim::sim
