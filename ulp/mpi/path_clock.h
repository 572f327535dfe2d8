// SPDX-License-Identifier: Apache-2.0
// The simulated-time plumbing the shared-memory paths share: callbacks that wait for a copy
// keep their order, and a rank's poll is set once per distinct time.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <utility>

#include "hal/task_host.h"
#include "hal/task_timers.h"

namespace nicsim::mpi {

/** One rank's timers for its path: ordered hand-overs and deduplicated polls. */
class PathClock {
 public:
  explicit PathClock(hal::TaskHost& host) : host_(host), timers_(host) {}

  uint64_t NowPs() const { return host_.NowPs(); }

  /** Runs `fn` at `at_ps` (now if it is now and nothing earlier waits). */
  void At(uint64_t at_ps, std::function<void()> fn) {
    const uint64_t now = host_.NowPs();
    if (at_ps <= now && waiting_at_ == 0) {
      fn();
      return;
    }
    // Callbacks due at one time run in the order they were set: what waits keeps its order.
    ++waiting_at_;
    timers_.After(at_ps > now ? at_ps - now : 0, [this, fn = std::move(fn)] {
      --waiting_at_;
      fn();
    });
  }

  /** Runs `poll` `delay_ps` from now, unless a poll is already set for that time. */
  template <typename Fn>
  void PollAfter(uint64_t delay_ps, Fn poll) {
    const uint64_t at = host_.NowPs() + delay_ps;
    if (!polls_at_.insert(at).second) return;
    timers_.After(delay_ps, [this, at, poll = std::move(poll)]() mutable {
      polls_at_.erase(at);
      poll();
    });
  }

 private:
  hal::TaskHost& host_;
  hal::TaskTimers timers_;
  std::set<uint64_t> polls_at_;  // times a poll is set for
  uint32_t waiting_at_ = 0;      // callbacks set through At and not yet run
};

}  // namespace nicsim::mpi
