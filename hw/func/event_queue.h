// SPDX-License-Identifier: Apache-2.0
// A deterministic discrete-event queue: events run in time order, ties in schedule order.
// The functional model and the fabric share one queue per simulation.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace nicsim::hw::func {

/** Discrete-event scheduler with picosecond time. */
class EventQueue {
 public:
  using Action = std::function<void()>;

  /** Current simulated time in picoseconds. */
  uint64_t now_ps() const { return now_ps_; }
  /** Events run so far. */
  uint64_t events_run() const { return events_run_; }
  bool empty() const { return queue_.empty(); }

  /** Runs `action` at `now + delay_ps`. */
  void After(uint64_t delay_ps, Action action) { At(now_ps_ + delay_ps, std::move(action)); }
  /** Runs `action` at absolute time `time_ps` (not before now). */
  void At(uint64_t time_ps, Action action) {
    queue_.push(Event{time_ps < now_ps_ ? now_ps_ : time_ps, next_seq_++, std::move(action)});
  }

  /** Runs the earliest event; false if none is left. */
  bool RunOne() {
    if (queue_.empty()) return false;
    Event ev = std::move(const_cast<Event&>(queue_.top()));
    queue_.pop();
    now_ps_ = ev.time_ps;
    ++events_run_;
    ev.action();
    return true;
  }
  /** Runs events while `keep_going()` is true and events remain. */
  template <typename Pred>
  void RunWhile(Pred keep_going) {
    while (keep_going() && RunOne()) {
    }
  }

 private:
  struct Event {
    uint64_t time_ps;
    uint64_t seq;
    Action action;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time_ps != b.time_ps ? a.time_ps > b.time_ps : a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> queue_;
  uint64_t now_ps_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t events_run_ = 0;
};

}  // namespace nicsim::hw::func
