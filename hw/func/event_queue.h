// SPDX-License-Identifier: Apache-2.0
// A deterministic discrete-event queue: events run in time order, ties in schedule order.
// The functional model and the fabric share one queue per simulation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace nicsim::hw::func {

/**
 * Another simulation kernel stepped in lock-step with the queue (the SystemC kernel): the
 * queue runs whichever has the earlier next event, so both share one notion of time.
 */
class CoSimulator {
 public:
  virtual ~CoSimulator() = default;
  /** The time of the co-simulator's next activity; false if it has none. */
  virtual bool NextEventPs(uint64_t* time_ps) = 0;
  /** Runs the co-simulator up to and including everything due at `time_ps`. */
  virtual void AdvanceTo(uint64_t time_ps) = 0;
};

/** Discrete-event scheduler with picosecond time. */
class EventQueue {
 public:
  /** Steps `cosim` together with the queue (nullptr: none). */
  void SetCoSimulator(CoSimulator* cosim) { cosim_ = cosim; }
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
    uint64_t cosim_ps;
    if (cosim_ != nullptr && cosim_->NextEventPs(&cosim_ps) &&
        (queue_.empty() || cosim_ps < queue_.top().time_ps)) {
      now_ps_ = std::max(now_ps_, cosim_ps);
      ++events_run_;
      cosim_->AdvanceTo(now_ps_);
      return true;
    }
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
  CoSimulator* cosim_ = nullptr;
};

}  // namespace nicsim::hw::func
