// SPDX-License-Identifier: Apache-2.0
// The task scheduler: the dispatch queue that hardware events feed, the live and snapshot
// task views, and the lists of tasks suspended for a resource.
#pragma once

#include <array>
#include <cstdint>

#include "firmware/counters.h"
#include "firmware/platform.h"
#include "firmware/task.h"
#include "firmware/task_fifo.h"

namespace nicsim::fw {

/** Dispatch queue, task views and resource waits. */
class Scheduler {
 public:
  Scheduler(Platform& platform, Counters& counters) : platform_(platform), counters_(counters) {}

  /** Queues a task for dispatch (an event it waited for has happened). */
  void Wake(TaskId task);
  /** Pops the next task to run; false when the queue is empty. */
  bool Next(TaskId* task);

  /** Suspends `task` until `resource` is released. */
  void WaitFor(Task& task, Resource resource);
  /** A unit of `resource` came free: wakes the longest waiter, which retries. */
  void Released(Resource resource);

  /** The task started an operation: sets its live-view bit. */
  void BeginOperation(TaskId task);
  /** The task finished its operation: clears its bit in the live and snapshot views. */
  void EndOperation(TaskId task);
  /** A disruptive command: copies the live view into the snapshot view; returns it. */
  uint64_t TakeSnapshot();

  /** Drops every queued and waiting task (adapter reset). */
  void Reset();

 private:
  Platform& platform_;
  Counters& counters_;
  TaskFifo ready_;
  std::array<TaskFifo, static_cast<size_t>(Resource::kCount)> waiters_;
};

}  // namespace nicsim::fw
