// SPDX-License-Identifier: Apache-2.0
// What the microcode engines share: the context of adapter-wide state they work on, drops,
// interrupt thresholds and the state-machine runner. Not part of the firmware's public seam.
#pragma once

#include <array>
#include <cstdint>

#include "abi/lmt.h"
#include "firmware/channel_buffers.h"
#include "firmware/counters.h"
#include "firmware/interrupts.h"
#include "firmware/platform.h"
#include "firmware/scheduler.h"
#include "firmware/task.h"
#include "firmware/work_manager.h"

namespace nicsim::fw {

/** Adapter-wide microcode state, shared by the engines. */
struct Context {
  Platform& platform;
  Counters& counters;
  TaskPool& tasks;
  Scheduler& scheduler;
  ChannelBuffers& cbs;
  WorkManager& work;
  InterruptController& irq;
};

/** A threshold of 0 or all ones means interrupts are off. */
inline bool ThresholdArmed(uint32_t threshold) {
  return threshold != abi::kInterruptsOff && threshold != abi::kInterruptsOffAllOnes;
}

/** True once a monotonic count has reached an armed threshold (wrap-safe). */
inline bool ThresholdReached(uint32_t count, uint32_t threshold) {
  return ThresholdArmed(threshold) && static_cast<int32_t>(count - threshold) >= 0;
}

/** Counts and traces a drop. */
inline void CountDrop(Context& ctx, const Task* task, DropReason reason, uint32_t window) {
  ++ctx.counters.drop(reason);
  TraceEvent ev;
  ev.kind = TraceKind::kDrop;
  ev.task = task ? task->id : kNoTask;
  ev.window = window;
  ev.cb = task ? task->cb : kNoCb;
  ev.dtb = task ? task->dtb : kNoDtb;
  ev.value = static_cast<uint64_t>(reason);
  ctx.platform.Trace(ev);
}

/**
 * Raises the window's interrupt if `count` reached `threshold`, then disarms it: the ULP
 * names the next count of interest with a new threshold command.
 */
inline void MaybeInterrupt(Context& ctx, uint32_t window, uint32_t count, uint32_t& threshold,
                           abi::InterruptCause cause) {
  if (!ThresholdReached(count, threshold)) return;
  threshold = abi::kInterruptsOff;
  ctx.irq.Raise(window, cause);
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
               Platform& platform, TraceKind kind, Task& task, State state) {
  for (;;) {
    task.state = static_cast<uint8_t>(state);
    TraceEvent ev;
    ev.kind = kind;
    ev.task = task.id;
    ev.state = static_cast<uint32_t>(state);
    ev.window = task.window;
    ev.cb = task.cb;
    ev.dtb = task.dtb;
    platform.Trace(ev);
    if (state == State::kDone) return true;  // traced too: the task goes back to the pool
    const Step<State> next = (engine.*table[static_cast<size_t>(state)])(task);
    state = next.state;
    if (next.suspend) {
      task.state = static_cast<uint8_t>(state);
      return false;
    }
  }
}

/** Returns the task's DTB (if it holds one) and wakes a task waiting for a DTB. */
inline void ReleaseTaskDtb(Context& ctx, Task& task) {
  if (task.dtb == kNoDtb) return;
  ctx.platform.ReleaseDtb(task.dtb);
  ctx.scheduler.Released(Resource::kDtb);
  task.dtb = kNoDtb;
}

/** Returns the task's header buffer (if it holds one) and wakes a waiter. */
inline void ReleaseTaskHeaderBuffer(Context& ctx, Task& task) {
  if (task.header_buffer == kNoHeaderBuffer) return;
  ctx.platform.ReleaseHeaderBuffer(task.header_buffer);
  ctx.scheduler.Released(Resource::kHeaderBuffer);
  task.header_buffer = kNoHeaderBuffer;
}

/** Drops the task's binding to its window's CB (if any) and wakes a task waiting for a CB. */
inline void UnbindTaskCb(Context& ctx, Task& task) {
  if (task.cb == kNoCb) return;
  ctx.cbs.Unbind(task.cb, task.kind);
  ctx.scheduler.Released(Resource::kChannelBuffer);
  task.cb = kNoCb;
}

/** True if the window the task holds a CB for was closed after the task started. */
inline bool ClosedUnderTask(Context& ctx, const Task& task) {
  return task.cb != kNoCb &&
         ctx.cbs.Lmt(task.cb).state != static_cast<uint32_t>(abi::WindowState::kOpen);
}

}  // namespace nicsim::fw
