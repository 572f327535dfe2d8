// SPDX-License-Identifier: Apache-2.0
// A deterministic discrete-event queue: events run in time order, ties in schedule order.
// The functional model and the fabric share one queue per simulation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/check.h"
#include "kernel/event_action.h"

namespace nicsim::kernel {

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
  using Action = EventAction;

  /** One scheduling call: the time it was made and the time its event is due. */
  struct Scheduled {
    uint64_t made_ps;
    uint64_t due_ps;
  };
  /**
   * Appends every scheduling call from now on to `log` (nullptr: stop), so a benchmark can
   * replay a run's own schedule through the queue alone.
   */
  void RecordSchedule(std::vector<Scheduled>* log) { schedule_log_ = log; }

  /** Steps `cosim` together with the queue (nullptr: none). */
  void SetCoSimulator(kernel::CoSimulator* cosim) { cosim_ = cosim; }

  /** Current simulated time in picoseconds. */
  uint64_t now_ps() const { return now_ps_; }
  /** Events run so far. */
  uint64_t events_run() const { return events_run_; }
  bool empty() const { return heap_.empty(); }

  /** Runs `action` (a callable) at `now + delay_ps`. */
  template <typename F>
  void After(uint64_t delay_ps, F&& action) {
    At(now_ps_ + delay_ps, std::forward<F>(action));
  }
  /** Runs `action` (a callable) at absolute time `time_ps` (not before now). */
  template <typename F>
  void At(uint64_t time_ps, F&& action) {
    // Actions stay put in a slot (addresses never move, so an action runs in place); the
    // heap orders 16-byte keys: time, then schedule order, with the slot in the low bits.
    uint32_t slot;
    if (free_slots_.empty()) {
      slot = slots_used_++;
      NICSIM_CHECK(slot <= kSlotMask, "more than %u events pending", kSlotMask + 1);
      if ((slot >> kChunkShift) == chunks_.size()) {
        chunks_.push_back(std::make_unique<Action[]>(size_t{1} << kChunkShift));
      }
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    SlotAction(slot).Emplace(std::forward<F>(action));
    const uint64_t time = time_ps < now_ps_ ? now_ps_ : time_ps;
    if (schedule_log_ != nullptr) schedule_log_->push_back(Scheduled{now_ps_, time});
    heap_.push_back((Key{time} << 64) | (Key{next_seq_++} << kSlotBits) | slot);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<Key>());
  }

  /** Runs the earliest event; false if none is left. */
  bool RunOne() {
    uint64_t cosim_ps;
    if (cosim_ != nullptr && cosim_->NextEventPs(&cosim_ps) &&
        (heap_.empty() || cosim_ps < TimeOf(heap_.front()))) {
      now_ps_ = std::max(now_ps_, cosim_ps);
      ++events_run_;
      cosim_->AdvanceTo(now_ps_);
      return true;
    }
    if (heap_.empty()) return false;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<Key>());
    const Key key = heap_.back();
    heap_.pop_back();
    const auto slot = static_cast<uint32_t>(key) & kSlotMask;
    now_ps_ = TimeOf(key);
    ++events_run_;
    // In place: the slot is not reused until it is freed below.
    SlotAction(slot).RunOnce();
    free_slots_.push_back(slot);
    return true;
  }
  /** Runs events while `keep_going()` is true and events remain. */
  template <typename Pred>
  void RunWhile(Pred keep_going) {
    while (keep_going() && RunOne()) {
    }
  }

 private:
  using Key = unsigned __int128;
  static constexpr uint32_t kSlotBits = 24;
  static constexpr uint32_t kSlotMask = (1u << kSlotBits) - 1;
  static constexpr uint32_t kChunkShift = 10;
  static uint64_t TimeOf(Key key) { return static_cast<uint64_t>(key >> 64); }
  Action& SlotAction(uint32_t slot) {
    return chunks_[slot >> kChunkShift][slot & ((1u << kChunkShift) - 1)];
  }

  std::vector<Key> heap_;
  /** Action storage in fixed chunks, so a running action's address stays valid. */
  std::vector<std::unique_ptr<Action[]>> chunks_;
  uint32_t slots_used_ = 0;
  std::vector<uint32_t> free_slots_;
  uint64_t now_ps_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t events_run_ = 0;
  kernel::CoSimulator* cosim_ = nullptr;
  std::vector<Scheduled>* schedule_log_ = nullptr;
};

}  // namespace nicsim::kernel
