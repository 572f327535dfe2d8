// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/copy_clock.h"

#include <utility>

namespace nicsim::mpi {

void CopyClock::After(std::function<void()> fn) {
  const uint64_t now = host_.NowPs();
  const uint64_t done = copies_.DoneAtPs(now);
  if (done == now && waiting_ == 0) {
    fn();
    return;
  }
  // Timers due at the same time run in the order they were set: what waits keeps its order.
  ++waiting_;
  timers_.After(done - now, [this, fn = std::move(fn)] {
    --waiting_;
    fn();
  });
}

void CopyClock::Spend() {
  const uint64_t now = host_.NowPs();
  const uint64_t done = copies_.DoneAtPs(now);
  if (done > now) blocker_.Spend(done - now);
}

}  // namespace nicsim::mpi
