// SPDX-License-Identifier: Apache-2.0
// Scheduler: a FIFO dispatch queue, FIFO resource waits, and the task view registers kept
// in the global registers where the host can read them.
#include "firmware/scheduler.h"

#include <algorithm>

namespace nicsim::fw {

void Scheduler::Wake(TaskId task) {
  ready_.push_back(task);
  counters_.dispatch_queue_peak = std::max<uint64_t>(counters_.dispatch_queue_peak, ready_.size());
}

bool Scheduler::Next(TaskId* task) {
  if (ready_.empty()) return false;
  *task = ready_.front();
  ready_.pop_front();
  ++counters_.dispatches;
  return true;
}

void Scheduler::WaitFor(Task& task, Resource resource) {
  task.waiting = resource;
  waiters_[static_cast<size_t>(resource)].push_back(task.id);
  ++counters_.waits[static_cast<size_t>(resource)];
  TraceEvent ev;
  ev.kind = TraceKind::kWait;
  ev.task = task.id;
  ev.window = task.window;
  ev.cb = task.cb;
  ev.dtb = task.dtb;
  ev.value = static_cast<uint64_t>(resource);
  platform_.Trace(ev);
}

void Scheduler::Released(Resource resource) {
  auto& q = waiters_[static_cast<size_t>(resource)];
  if (q.empty()) return;
  Wake(q.front());
  q.pop_front();
}

void Scheduler::BeginOperation(TaskId task) {
  const uint64_t live = platform_.ReadGlobalReg(abi::GlobalReg::kLiveTaskView);
  platform_.WriteGlobalReg(abi::GlobalReg::kLiveTaskView, live | (uint64_t{1} << task));
}

void Scheduler::EndOperation(TaskId task) {
  const uint64_t bit = uint64_t{1} << task;
  const uint64_t live = platform_.ReadGlobalReg(abi::GlobalReg::kLiveTaskView);
  platform_.WriteGlobalReg(abi::GlobalReg::kLiveTaskView, live & ~bit);
  const uint64_t snapshot = platform_.ReadGlobalReg(abi::GlobalReg::kSnapshotView);
  if ((snapshot & bit) == 0) return;
  // A task that was live at a disruptive command has finished: the host is waiting for this.
  platform_.WriteGlobalReg(abi::GlobalReg::kSnapshotView, snapshot & ~bit);
  TraceEvent ev;
  ev.kind = TraceKind::kSnapshot;
  ev.task = task;
  ev.value = snapshot & ~bit;
  platform_.Trace(ev);
}

uint64_t Scheduler::TakeSnapshot() {
  const uint64_t live = platform_.ReadGlobalReg(abi::GlobalReg::kLiveTaskView);
  platform_.WriteGlobalReg(abi::GlobalReg::kSnapshotView, live);
  return live;
}

void Scheduler::Reset() {
  ready_.clear();
  for (auto& q : waiters_) q.clear();
  platform_.WriteGlobalReg(abi::GlobalReg::kLiveTaskView, 0);
  platform_.WriteGlobalReg(abi::GlobalReg::kSnapshotView, 0);
}

}  // namespace nicsim::fw
