// SPDX-License-Identifier: Apache-2.0
// InterruptArming: the early-or-coherent choice made each time a process sleeps, then the
// receive threshold.
#include "hal/interrupt_arming.h"

namespace nicsim::hal {

bool InterruptArming::WantsEarly() const {
  switch (timing_) {
    case InterruptTiming::kCoherent:
      return false;
    case InterruptTiming::kEarly:
      return true;
    case InterruptTiming::kEarlyWhenIdle:
      // Early notification pays only when a CPU is free to take the interrupt at once.
      return CpuIdle();
  }
  return false;
}

bool InterruptArming::Arm(uint64_t frames) {
  const bool early = WantsEarly();
  const uint32_t mode = early ? abi::kEarlyInterrupt : 0;
  // The mode goes first: a threshold already reached fires as soon as it is set, counting
  // reserved frames in early mode and written ones otherwise.
  if (mode_ != mode) {
    window_.SetInterruptMode(mode);
    mode_ = mode;
    ++mode_writes_;
  }
  window_.recv().SetInterruptThreshold(static_cast<uint32_t>(frames));
  ++(early ? early_arms_ : coherent_arms_);
  return early;
}

void InterruptArming::Refresh(uint64_t frames) {
  const uint32_t mode = WantsEarly() ? abi::kEarlyInterrupt : 0;
  if (mode_ != mode) Arm(frames);
}

}  // namespace nicsim::hal
