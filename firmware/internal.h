// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the microcode engines only: LMT access, drops, interrupt thresholds.
// Not part of the firmware's public seam.
#pragma once

#include <array>
#include <cstdint>

#include "abi/lmt.h"
#include "firmware/counters.h"
#include "firmware/platform.h"
#include "firmware/task.h"

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

/** What an engine state decided: the state to run next, and whether to wait for an event. */
template <typename State>
struct Step {
  State state;
  bool suspend;
};

/**
 * Runs `task` through an engine's state table from `state` until it suspends (its resume
 * state is kept in the task) or reaches State::kDone. Returns true once done.
 */
template <typename Engine, typename State, size_t N>
bool RunStates(Engine& engine, const std::array<Step<State> (Engine::*)(Task&), N>& table,
               Platform& platform, Task& task, State state) {
  for (;;) {
    task.state = static_cast<uint8_t>(state);
    if (state == State::kDone) return true;
    platform.Trace(TraceKind::kTaskState, task.id, static_cast<uint32_t>(state), task.window);
    const Step<State> next = (engine.*table[static_cast<size_t>(state)])(task);
    state = next.state;
    if (next.suspend) {
      task.state = static_cast<uint8_t>(state);
      return false;
    }
  }
}

}  // namespace nicsim::fw
