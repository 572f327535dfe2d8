// SPDX-License-Identifier: Apache-2.0
// What the microcode engines share: the context of adapter-wide state they work on, drops,
// interrupt thresholds and the state-machine runner. Not part of the firmware's public seam.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "abi/fifo.h"
#include "abi/lmt.h"
#include "abi/rdma.h"
#include "firmware/channel_buffers.h"
#include "firmware/counters.h"
#include "firmware/interrupts.h"
#include "firmware/platform.h"
#include "firmware/rdma_state.h"
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
  RdmaState& rdma;
};

/** A StartTransmit's `count` packets join `window`'s readyToSend (its LMT entry `lmt`, written
 *  back), and the window's ready bit is set for the transmit tasks. */
inline void PostReadyToSend(Context& ctx, uint32_t window, abi::LmtEntry& lmt, uint32_t count) {
  lmt.ready_to_send += count;
  ctx.cbs.Write(window, lmt);
  ctx.work.SetReady(window, true);
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
#ifndef NICSIM_TRACE_COMPILED_OUT  // defined only by bench/trace_overhead's reference build
    if (platform.wants_state_events()) {
      platform.StateEntered(kind, task.id, static_cast<uint32_t>(state), task.window, task.cb,
                            task.dtb);
    }
#else
    static_cast<void>(platform);
    static_cast<void>(kind);
#endif
    if (state == State::kDone) return true;  // traced too: the task goes back to the pool
    const Step<State> next = (engine.*table[static_cast<size_t>(state)])(task);
    state = next.state;
    if (next.suspend) {
      task.state = static_cast<uint8_t>(state);
      return false;
    }
  }
}

/** True if the LMT's window is open (not closed, not stopped by an address exception). */
inline bool WindowOpen(const abi::LmtEntry& lmt) {
  return lmt.state == static_cast<uint32_t>(abi::WindowState::kOpen);
}

/** The drop reason for traffic to a window that is not open. */
inline DropReason NotOpenReason(const abi::LmtEntry& lmt) {
  return lmt.state == static_cast<uint32_t>(abi::WindowState::kFatal) ? DropReason::kWindowFatal
                                                                      : DropReason::kWindowClosed;
}

/**
 * Reserves the next receive frame of the window; false (and a counted kRxFifoFull drop) when
 * the FIFO is full. Early interrupt mode fires here.
 */
inline bool ReserveFrame(Context& ctx, const Task& task, abi::LmtEntry& lmt, uint32_t* seq) {
  const uint32_t free_frames = lmt.recv_returned + lmt.recv_fifo_frames - lmt.recv_next;
#ifdef NICSIM_MICROCODE_MUTANT  // tests/traces' mutant build: one deliberate one-line bug
  if (free_frames <= 1) {
#else
  if (free_frames == 0) {
#endif
    CountDrop(ctx, &task, DropReason::kRxFifoFull, task.window);
    return false;
  }
  *seq = lmt.recv_next++;
  if (lmt.intr_flags & abi::kEarlyInterrupt) {
    MaybeInterrupt(ctx, task.window, lmt.recv_next, lmt.recv_intr_threshold,
                   abi::InterruptCause::kRecvThreshold);
  }
  return true;
}

/** A reserved frame is coherent: advance the tail, maybe interrupt. */
inline void FrameWritten(Context& ctx, uint32_t window, abi::LmtEntry& lmt) {
  ++lmt.recv_tail;
  if (!(lmt.intr_flags & abi::kEarlyInterrupt)) {
    MaybeInterrupt(ctx, window, lmt.recv_tail, lmt.recv_intr_threshold,
                   abi::InterruptCause::kRecvThreshold);
  }
}

/**
 * Starts the DMA of a completion-record frame from (src_adapter, src_window) with `ulp_word`
 * to `frame_addr`: header and record fit the first cache line, so one DMA writes both and is
 * the arrival signal. Task `tag` resumes when it is coherent.
 */
inline void StartCompletionFrame(Context& ctx, uint64_t frame_addr, uint16_t src_adapter,
                                 uint16_t src_window, uint32_t ulp_word,
                                 const abi::CompletionRecord& record, TaskId tag) {
  abi::RecvFrameHeader frame{};
  frame.valid = abi::kRecvFrameValid;
  frame.type = static_cast<uint8_t>(abi::PacketType::kRdmaCompletion);
  frame.len_bytes = sizeof(abi::CompletionRecord);
  frame.src_adapter = src_adapter;
  frame.src_window = src_window;
  frame.ulp_word = ulp_word;
  DmaToHost dma;
  dma.host_addr = frame_addr;
  std::memcpy(dma.prefix, &frame, sizeof(frame));
  std::memcpy(dma.prefix + sizeof(frame), &record, sizeof(record));
  dma.prefix_len = sizeof(frame) + sizeof(record);
  dma.tag = tag;
  ctx.platform.StartDmaToHost(dma);
}

/** Host address of receive frame `seq` of the window. */
inline uint64_t FrameAddress(const abi::LmtEntry& lmt, uint32_t seq) {
  return lmt.recv_fifo_addr +
         static_cast<uint64_t>(seq % lmt.recv_fifo_frames) * abi::kRecvFrameBytes;
}

/**
 * An RDMA protection failure: the window becomes fatal (it stops all traffic until the job
 * closes it) and its owner is interrupted.
 */
inline void RaiseAddressException(Context& ctx, const Task& task, uint32_t window, uint64_t pvo) {
  CountDrop(ctx, &task, DropReason::kRdmaAddressException, window);
  abi::LmtEntry lmt = ctx.cbs.Read(window);
  ++lmt.address_exceptions;
  const bool was_open = WindowOpen(lmt);
  if (was_open) lmt.state = static_cast<uint32_t>(abi::WindowState::kFatal);
  ctx.cbs.Write(window, lmt);
  TraceEvent ev;
  ev.kind = TraceKind::kAddressException;
  ev.task = task.id;
  ev.window = window;
  ev.value = pvo;
  ctx.platform.Trace(ev);
  if (was_open) {
    ctx.work.SetReady(window, false);
    ctx.irq.Raise(window, abi::InterruptCause::kWindowFatal);
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
