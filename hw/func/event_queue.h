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
  using Action = std::function<void()>;

  /** Steps `cosim` together with the queue (nullptr: none). */
  void SetCoSimulator(CoSimulator* cosim) { cosim_ = cosim; }

  /** Current simulated time in picoseconds. */
  uint64_t now_ps() const { return now_ps_; }
  /** Events run so far. */
  uint64_t events_run() const { return events_run_; }
  bool empty() const { return heap_.empty(); }

  /** Runs `action` at `now + delay_ps`. */
  void After(uint64_t delay_ps, Action action) { At(now_ps_ + delay_ps, std::move(action)); }
  /** Runs `action` at absolute time `time_ps` (not before now). */
  void At(uint64_t time_ps, Action action) {
    // Actions stay put in a slot; the heap orders small (time, seq, slot) keys only.
    uint32_t slot;
    if (free_slots_.empty()) {
      slot = static_cast<uint32_t>(actions_.size());
      actions_.push_back(std::move(action));
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
      actions_[slot] = std::move(action);
    }
    heap_.push(Key{time_ps < now_ps_ ? now_ps_ : time_ps, next_seq_++, slot});
  }

  /** Runs the earliest event; false if none is left. */
  bool RunOne() {
    uint64_t cosim_ps;
    if (cosim_ != nullptr && cosim_->NextEventPs(&cosim_ps) &&
        (heap_.empty() || cosim_ps < heap_.top().time_ps)) {
      now_ps_ = std::max(now_ps_, cosim_ps);
      ++events_run_;
      cosim_->AdvanceTo(now_ps_);
      return true;
    }
    if (heap_.empty()) return false;
    const Key key = heap_.top();
    heap_.pop();
    Action action = std::move(actions_[key.slot]);
    free_slots_.push_back(key.slot);
    now_ps_ = key.time_ps;
    ++events_run_;
    action();
    return true;
  }
  /** Runs events while `keep_going()` is true and events remain. */
  template <typename Pred>
  void RunWhile(Pred keep_going) {
    while (keep_going() && RunOne()) {
    }
  }

 private:
  struct Key {
    uint64_t time_ps;
    uint64_t seq;
    uint32_t slot;
  };
  struct Later {
    bool operator()(const Key& a, const Key& b) const {
      return a.time_ps != b.time_ps ? a.time_ps > b.time_ps : a.seq > b.seq;
    }
  };
  std::priority_queue<Key, std::vector<Key>, Later> heap_;
  std::vector<Action> actions_;
  std::vector<uint32_t> free_slots_;
  uint64_t now_ps_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t events_run_ = 0;
  CoSimulator* cosim_ = nullptr;
};

}  // namespace nicsim::hw::func
