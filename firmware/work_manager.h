// SPDX-License-Identifier: Apache-2.0
// The work manager: keeps the ready bit vector (two 64-bit global registers) and hands ready
// windows to transmit tasks round robin, moving on every k packets. It is the registers' only
// writer, so it reads its own copy of them (local store) instead of the registers.
#pragma once

#include <cstdint>

#include "firmware/platform.h"

namespace nicsim::fw {

/** Transmit work distribution. */
class WorkManager {
 public:
  WorkManager(Platform& platform, uint32_t switch_every)
      : platform_(platform), switch_every_(switch_every) {}

  /** Sets or clears a window's ready bit. */
  void SetReady(uint32_t window, bool on);
  /** True if any window is ready (NextWindow would find one). */
  bool AnyReady() const { return (ready_[0] | ready_[1]) != 0; }
  /** The window a transmit task should serve next, from the round-robin cursor. */
  bool NextWindow(uint32_t* window) const;
  /** A task claimed a packet of `window`, leaving `remaining` ready. */
  void Claimed(uint32_t window, uint32_t remaining);
  /** Clears the cursor and the ready vector (registers and copy). */
  void Reset();

 private:
  Platform& platform_;
  /** k: packets taken from one window before moving on. */
  uint32_t switch_every_;
  uint32_t cursor_ = 0;
  uint32_t taken_this_turn_ = 0;
  /** What the two ready registers hold (low, high). */
  uint64_t ready_[2] = {0, 0};
};

}  // namespace nicsim::fw
