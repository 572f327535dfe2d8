// SPDX-License-Identifier: Apache-2.0
// The host CPU time that copies of message data take: one copy after another at the host's
// copy bandwidth, so a layer knows when what follows a copy may happen (0 ps per byte: free).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace nicsim::ulp {

/**
 * One layer's copies on one task's CPU. The CPU copies one buffer at a time: a copy that
 * starts while an earlier one is still going starts when that one is done. Deterministic:
 * a copy of n bytes takes ceil(n x ps_per_byte) picoseconds.
 */
class HostCopyTime {
 public:
  /** `ps_per_byte`: the inverse of the host's copy bandwidth; 0 makes every copy free. */
  explicit HostCopyTime(double ps_per_byte) : ps_per_byte_(ps_per_byte) {}

  /** True when copies take no time (nothing need wait for them). */
  bool free() const { return ps_per_byte_ <= 0; }
  /** Time a copy of `bytes` alone takes. */
  uint64_t CostPs(uint64_t bytes) const {
    return free() ? 0 : static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) * ps_per_byte_));
  }
  /** A copy of `bytes` made at `now_ps`, after the copies before it: when it is done. */
  uint64_t Copy(uint64_t now_ps, uint64_t bytes) {
    busy_until_ps_ = DoneAtPs(now_ps) + CostPs(bytes);
    return busy_until_ps_;
  }
  /** When the copies made so far are done: `now_ps` if they are. */
  uint64_t DoneAtPs(uint64_t now_ps) const { return std::max(now_ps, busy_until_ps_); }

  /**
   * Runs `fn` once a copy of `bytes` made at `now_ps` (0: none, only the copies before) is
   * done: at once if that is now, else through `timers` (anything with After(delay_ps, fn)).
   * What follows a copy in the layer (a post, a hand-over, a completion) waits for it here.
   */
  template <typename Timers, typename Fn>
  void Then(uint64_t now_ps, uint64_t bytes, Timers& timers, Fn&& fn) {
    const uint64_t done = bytes > 0 ? Copy(now_ps, bytes) : DoneAtPs(now_ps);
    if (done == now_ps) {
      fn();
      return;
    }
    timers.After(done - now_ps, std::forward<Fn>(fn));
  }

 private:
  double ps_per_byte_;
  uint64_t busy_until_ps_ = 0;
};

}  // namespace nicsim::ulp
