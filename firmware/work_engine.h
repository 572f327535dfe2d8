// SPDX-License-Identifier: Apache-2.0
// The work manager task: a StartTransmit that finds every transmit task busy leaves its count
// with it; the task adds the counts to the windows' readyToSend and sets their ready bits. The
// busy transmit tasks take the ready windows round robin as they finish their packets.
#pragma once

#include <array>
#include <cstdint>

#include "firmware/internal.h"
#include "firmware/states.h"
#include "firmware/task.h"

namespace nicsim::fw {

/** Runs the work manager task through WorkState. */
class WorkEngine {
 public:
  explicit WorkEngine(Context& ctx) : ctx_(ctx) {}

  /** Queues a StartTransmit of `count` packets on `window` and wakes the task if idle. */
  void Notify(uint32_t window, uint32_t count);
  /** Runs the dispatched task from where it suspended. */
  void Resume(Task& task) { Run(task, static_cast<WorkState>(task.state)); }

 private:
  using Next = Step<WorkState>;
  void Run(Task& task, WorkState state);
  Next Post(Task& task);

  using StateFn = Next (WorkEngine::*)(Task&);
  static constexpr std::array<StateFn, static_cast<size_t>(WorkState::kDone)> kStates = {
      &WorkEngine::Post};

  Context& ctx_;
};

}  // namespace nicsim::fw
