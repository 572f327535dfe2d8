// SPDX-License-Identifier: Apache-2.0
// Work manager task states.
#include "firmware/work_engine.h"

namespace nicsim::fw {

void WorkEngine::Notify(uint32_t window, uint32_t count) {
  ctx_.work.Post(window, count);
  Task& task = ctx_.tasks.work_manager();
  // Already woken: the counts queued since are taken in the same run.
  if (task.state != static_cast<uint8_t>(WorkState::kDone)) return;
  task.state = static_cast<uint8_t>(WorkState::kPost);
  task.window = window;  // the first window it serves, in the trace of its post
  ctx_.scheduler.Wake(task.id);
}

void WorkEngine::Run(Task& task, WorkState state) {
  // kDone leaves the task allocated, idle until the next notification.
  RunStates(*this, kStates, ctx_.platform, TraceKind::kWorkState, task, state);
}

WorkEngine::Next WorkEngine::Post(Task& task) {
  // The task reads and writes LMTs, so a close waits for it like for any other task.
  ctx_.scheduler.BeginOperation(task.id);
  uint32_t window;
  uint32_t count;
  while (ctx_.work.TakePosted(&window, &count)) {
    task.window = window;
    abi::LmtEntry lmt = ctx_.cbs.Read(window);
    if (!WindowOpen(lmt)) {
      // Not open any more (an address exception in the same dispatch): refused.
      ++ctx_.counters.bad_mmio;
      continue;
    }
    PostReadyToSend(ctx_, window, lmt, count);
    ++ctx_.counters.work_manager_posts;
  }
  ctx_.scheduler.EndOperation(task.id);
  return Next{WorkState::kDone, false};
}

}  // namespace nicsim::fw
