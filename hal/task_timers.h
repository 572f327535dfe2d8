// SPDX-License-Identifier: Apache-2.0
// Timers on a task's clock that do nothing once their owner is gone.
#pragma once

#include <cstdint>
#include <utility>

#include "base/life_token.h"
#include "hal/task_host.h"

namespace nicsim::hal {

/**
 * Runs callbacks on the task's clock (TaskHost::After) while its owner lives: a member of the
 * owner, it is destroyed with it, and the callbacks due later then do nothing.
 */
class TaskTimers {
 public:
  explicit TaskTimers(TaskHost& host) : host_(host) {}
  TaskTimers(const TaskTimers&) = delete;
  TaskTimers& operator=(const TaskTimers&) = delete;

  /** Runs `fn` after `delay_ps` unless this is destroyed first. */
  template <typename Fn>
  void After(uint64_t delay_ps, Fn fn) {
    host_.After(delay_ps, [alive = life_.watch(), fn = std::move(fn)]() mutable {
      if (alive.alive()) fn();
    });
  }

 private:
  TaskHost& host_;
  LifeToken life_;
};

}  // namespace nicsim::hal
