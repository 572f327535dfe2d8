// SPDX-License-Identifier: Apache-2.0
// The work manager's store: the ready bit vector (two 64-bit global registers), the
// round-robin cursor transmit tasks take ready windows from (moving on every k packets), and
// the StartTransmit counts queued for the work manager task while every transmit task is
// busy. It is the registers' only writer, so it reads its own copy of them (local store)
// instead of the registers.
#pragma once

#include <array>
#include <cstdint>

#include "abi/limits.h"

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
  /** Queues a StartTransmit's `count` for the work manager task. */
  void Post(uint32_t window, uint32_t count);
  /** Takes the lowest window with a queued count; false if none. */
  bool TakePosted(uint32_t* window, uint32_t* count);
  /** Clears the cursor, the queued counts and the ready vector (registers and copy). */
  void Reset();

 private:
  Platform& platform_;
  /** k: packets taken from one window before moving on. */
  uint32_t switch_every_;
  uint32_t cursor_ = 0;
  uint32_t taken_this_turn_ = 0;
  /** What the two ready registers hold (low, high). */
  uint64_t ready_[2] = {0, 0};
  /** StartTransmit counts queued for the work manager task, and which windows have one. */
  std::array<uint32_t, abi::kMaxWindows> posted_{};
  uint64_t posted_mask_[2] = {0, 0};
};

}  // namespace nicsim::fw
