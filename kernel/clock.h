// SPDX-License-Identifier: Apache-2.0
// Time and timers as a process sees them: simulated time on an event queue, or the wall
// clock for a process whose peer is another real process (a retransmit timeout must then
// mean real time, not the local queue's time, which jumps ahead whenever it has nothing to
// do).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "kernel/event_queue.h"

namespace nicsim::kernel {

/** Now, and timers. */
class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t NowPs() = 0;
  /** Runs `fn` after `delay_ps`. */
  virtual void After(uint64_t delay_ps, std::function<void()> fn) = 0;
  /**
   * A housekeeping timer: runs `fn` after `delay_ps` if the process still has other work
   * then, and never keeps a simulation alive by itself (EventQueue::Background).
   */
  virtual void Background(uint64_t delay_ps, std::function<void()> fn) = 0;
};

/** Simulated time: the event queue's. */
class QueueClock final : public Clock {
 public:
  explicit QueueClock(EventQueue& events) : events_(events) {}
  uint64_t NowPs() override { return events_.now_ps(); }
  void After(uint64_t delay_ps, std::function<void()> fn) override {
    events_.After(delay_ps, std::move(fn));
  }
  void Background(uint64_t delay_ps, std::function<void()> fn) override {
    events_.Background(delay_ps, std::move(fn));
  }

 private:
  EventQueue& events_;
};

/** Wall-clock time since construction; timers run when the owner's loop calls RunDue. */
class WallClock final : public Clock {
 public:
  WallClock() : start_(std::chrono::steady_clock::now()) {}
  uint64_t NowPs() override {
    const auto since = std::chrono::steady_clock::now() - start_;
    return static_cast<uint64_t>(
               std::chrono::duration_cast<std::chrono::nanoseconds>(since).count()) *
           1000;
  }
  void After(uint64_t delay_ps, std::function<void()> fn) override {
    timers_.push(Timer{NowPs() + delay_ps, next_order_++, std::move(fn)});
  }
  /** The owner's loop runs as long as it likes: a housekeeping timer is a timer. */
  void Background(uint64_t delay_ps, std::function<void()> fn) override {
    After(delay_ps, std::move(fn));
  }
  /** Runs every timer that is due by now; returns how many ran. */
  uint32_t RunDue() {
    uint32_t ran = 0;
    const uint64_t now = NowPs();
    while (!timers_.empty() && timers_.top().due_ps <= now) {
      std::function<void()> fn = timers_.top().fn;
      timers_.pop();
      fn();
      ++ran;
    }
    return ran;
  }
  /** Drops every pending timer without running it. */
  void Clear() { timers_ = {}; }

 private:
  struct Timer {
    uint64_t due_ps;
    uint64_t order;
    std::function<void()> fn;
  };
  struct Later {
    bool operator()(const Timer& a, const Timer& b) const {
      return a.due_ps != b.due_ps ? a.due_ps > b.due_ps : a.order > b.order;
    }
  };
  std::chrono::steady_clock::time_point start_;
  uint64_t next_order_ = 0;
  std::priority_queue<Timer, std::vector<Timer>, Later> timers_;
};

}  // namespace nicsim::kernel
