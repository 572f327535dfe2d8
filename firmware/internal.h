// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the microcode engines only: LMT access, drops, interrupt thresholds.
// Not part of the firmware's public seam.
#pragma once

#include <cstdint>

#include "abi/lmt.h"
#include "firmware/counters.h"
#include "firmware/platform.h"

namespace nicsim::fw {

inline abi::LmtEntry LoadLmt(Platform& platform, uint32_t window) {
  abi::LmtEntry lmt;
  platform.SramRead(abi::LmtAddr(window), &lmt, sizeof(lmt));
  return lmt;
}

inline void StoreLmt(Platform& platform, uint32_t window, const abi::LmtEntry& lmt) {
  platform.SramWrite(abi::LmtAddr(window), &lmt, sizeof(lmt));
}

/** A threshold of 0 or all ones means interrupts are off. */
inline bool ThresholdArmed(uint32_t threshold) {
  return threshold != abi::kInterruptsOff && threshold != abi::kInterruptsOffAllOnes;
}

/** True once a monotonic count has reached an armed threshold (wrap-safe). */
inline bool ThresholdReached(uint32_t count, uint32_t threshold) {
  return ThresholdArmed(threshold) && static_cast<int32_t>(count - threshold) >= 0;
}

/** Counts and traces a drop. */
inline void CountDrop(Platform& platform, Counters& counters, TaskId task, DropReason reason,
                      uint32_t window) {
  ++counters.drop(reason);
  platform.Trace(TraceKind::kDrop, task, static_cast<uint32_t>(reason), window);
}

/**
 * Raises the window's interrupt if `count` reached `threshold`, then disarms it: the
 * ULP names the next count of interest with a new threshold command.
 */
inline void MaybeInterrupt(Platform& platform, Counters& counters, uint32_t window,
                           uint32_t count, uint32_t& threshold, abi::InterruptCause cause) {
  if (!ThresholdReached(count, threshold)) return;
  threshold = abi::kInterruptsOff;
  ++counters.interrupts;
  platform.Trace(TraceKind::kInterrupt, kNoTask, window, static_cast<uint32_t>(cause));
  platform.RaiseInterrupt(window, static_cast<uint32_t>(cause));
}

}  // namespace nicsim::fw
