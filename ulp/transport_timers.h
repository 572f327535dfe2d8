// SPDX-License-Identifier: Apache-2.0
// Timers of one task's transport: retransmissions, chunk redrives and the software overheads
// all wait on the task's clock, and must do nothing if the transport is gone by then.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "hal/task_host.h"

namespace nicsim::ulp {

/** Runs callbacks on the task's clock while its owner lives; those due later do nothing. */
class TransportTimers {
 public:
  explicit TransportTimers(hal::TaskHost& host) : host_(host) {}
  ~TransportTimers() { *alive_ = false; }
  TransportTimers(const TransportTimers&) = delete;
  TransportTimers& operator=(const TransportTimers&) = delete;

  /** Runs `fn` after `delay_ps` unless this is destroyed first. */
  template <typename Fn>
  void After(uint64_t delay_ps, Fn fn) {
    host_.After(delay_ps, [alive = alive_, fn = std::move(fn)]() mutable {
      if (*alive) fn();
    });
  }

 private:
  hal::TaskHost& host_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace nicsim::ulp
