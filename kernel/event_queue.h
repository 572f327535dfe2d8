// SPDX-License-Identifier: Apache-2.0
// A deterministic discrete-event queue: events run in time order, ties by a key no split of
// the cluster can change (the scheduling owner, then that owner's own count of schedules).
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

/**
 * Discrete-event scheduler with picosecond time.
 *
 * Every event has an owner: the node whose state it runs on (or kGlobalOwner for drivers of
 * the whole run). Events due at the same time run in the order of their key (the owner that
 * scheduled them, then the number of events that owner had scheduled before), not in global
 * schedule order, so the order cannot depend on what other owners did in between, and a
 * cluster split across processes (docs/architecture.md, "Event order") runs every owner's
 * events in the same order. An event runs as its owner; what it schedules is keyed by that
 * owner and runs as it too, unless it is handed to another owner (AtFor).
 */
class EventQueue {
 public:
  using Action = EventAction;
  /** Who an event belongs to: a node id, or kGlobalOwner. */
  using Owner = uint32_t;
  /** Bits of an owner in the tie key; the rest count that owner's schedules. */
  static constexpr uint32_t kOwnerBits = 20;
  /** The owner of work that belongs to no node (workload drivers, samplers, set-up). */
  static constexpr Owner kGlobalOwner = (1u << kOwnerBits) - 1;
  /** The tie-break of one event: (owner that scheduled it << kSeqBits) | that owner's count. */
  static constexpr uint32_t kSeqBits = 64 - kOwnerBits;

  /**
   * Runs the code of its scope (outside any event: set-up, an MPI rank resumed between
   * events) as `owner`: what it schedules is keyed by and runs as `owner`.
   */
  class OwnerScope {
   public:
    OwnerScope(EventQueue& events, Owner owner) : events_(events), saved_(events.owner_) {
      events_.SetOwner(owner);
    }
    ~OwnerScope() { events_.SetOwner(saved_); }
    OwnerScope(const OwnerScope&) = delete;
    OwnerScope& operator=(const OwnerScope&) = delete;

   private:
    EventQueue& events_;
    Owner saved_;
  };

  EventQueue() : seqs_(1, 0), seq_(&seqs_[0]) {}
  /** Not copied or moved: seq_ points into seqs_. */
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

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

  /**
   * Keeps only the events of the owners marked in `local` (indexed by node; owners past its
   * end, the global owner among them, are kept): a process of a split run builds every node
   * but runs its own partition's (docs/architecture.md, "Distribution over MPI"). An event
   * for another owner still takes its tie, so every owner's count stays what it is in one
   * process. nullptr: keep everything.
   */
  void KeepOnly(const std::vector<uint8_t>* local) { local_ = local; }
  /** The tie key of the running event (what orders it among events of its time). */
  uint64_t running_tie() const { return running_tie_; }

  /**
   * Calls `tick(owner)` after every `every`-th event that runs as an owner below `owners`
   * (each owner counted apart; every = 0: never). An owner's events are the same however a
   * run is split over processes, so what a tick measures of its node is too.
   */
  void SetOwnerTick(uint32_t every, uint32_t owners, std::function<void(Owner)> tick) {
    owner_tick_every_ = every;
    owner_runs_.assign(every == 0 ? 0 : owners, 0);
    owner_tick_ = std::move(tick);
  }

  /** Steps `cosim` together with the queue (nullptr: none). */
  void SetCoSimulator(kernel::CoSimulator* cosim) { cosim_ = cosim; }

  /** Current simulated time in picoseconds. */
  uint64_t now_ps() const { return now_ps_; }
  /** Events run so far (a co-simulator's steps are not events). */
  uint64_t events_run() const { return events_run_; }
  /** The owner of the running event (or of the current OwnerScope). */
  Owner owner() const { return owner_; }
  /** How many events `owner` has scheduled so far (its next tie key's count). */
  uint64_t scheduled_by(Owner owner) const {
    const uint32_t i = IndexOf(owner);
    return i < seqs_.size() ? seqs_[i] : 0;
  }
  /** True if no foreground event is pending (background events alone do not count). */
  bool empty() const { return foreground_ == 0; }
  /**
   * The time of the earliest pending event (not counting a co-simulator), background ones
   * included; UINT64_MAX if no foreground event is pending, since then none of them runs.
   */
  uint64_t next_time_ps() const { return foreground_ == 0 ? UINT64_MAX : heap_.front().time; }
  /** Background events pending (Background), which run only while foreground work does. */
  size_t background_pending() const { return heap_.size() - foreground_; }

  /** next_time_ps, or the co-simulator's next step if that is earlier. */
  uint64_t next_any_time_ps() {
    uint64_t cosim_ps;
    if (cosim_ != nullptr && cosim_->NextEventPs(&cosim_ps)) {
      return std::min(next_time_ps(), cosim_ps);
    }
    return next_time_ps();
  }

  /** Runs `action` (a callable) at `now + delay_ps`. */
  template <typename F>
  void After(uint64_t delay_ps, F&& action) {
    At(now_ps_ + delay_ps, std::forward<F>(action));
  }
  /** Runs `action` (a callable) at absolute time `time_ps` (not before now), as this owner. */
  template <typename F>
  void At(uint64_t time_ps, F&& action) {
    Push(time_ps, TakeTie(), owner_, std::forward<F>(action));
  }
  /**
   * A background event: runs `action` at `now + delay_ps` as this owner, in order with the
   * others, but only while a foreground event or a co-simulator step is still pending. It
   * keeps no run alive: a queue holding only background events counts as empty, and its
   * clock stays at the last foreground event (a housekeeping tick, such as registration
   * aging, neither stretches a run's simulated time nor hides a deadlock). Its action should
   * schedule only background events.
   */
  template <typename F>
  void Background(uint64_t delay_ps, F&& action) {
    Push(now_ps_ + delay_ps, TakeTie(), owner_, std::forward<F>(action), kBackgroundBit);
  }
  /**
   * Hands `action` to `target` (a frame crossing to another node): keyed by the scheduling
   * owner like any event it schedules, but run as `target`, so what it schedules in turn
   * belongs to `target`.
   */
  template <typename F>
  void AtFor(Owner target, uint64_t time_ps, F&& action) {
    AtKeyed(time_ps, TakeTie(), target, std::forward<F>(action));
  }
  /**
   * The tie key the running owner gives its next event, taken (the owner's count advances):
   * a hand-over to a node in another process carries it there (AtKeyed).
   */
  uint64_t TakeTie() {
    const uint64_t seq = (*seq_)++;
    NICSIM_CHECK(seq < kSeqLimit, "owner %u scheduled more than 2^%u events", owner_, kSeqBits);
    return (uint64_t{owner_} << kSeqBits) | seq;
  }
  /** Runs `action` as `runs_as` at `time_ps`, ordered by a tie key taken by TakeTie. */
  template <typename F>
  void AtKeyed(uint64_t time_ps, uint64_t tie, Owner runs_as, F&& action) {
    NICSIM_CHECK(runs_as <= kGlobalOwner, "event owner %u out of range", runs_as);
    Push(time_ps, tie, runs_as, std::forward<F>(action));
  }

  /** Runs the earliest event; false if none is left (background events alone do not run). */
  bool RunOne() {
    uint64_t cosim_ps;
    const bool cosim_busy = cosim_ != nullptr && cosim_->NextEventPs(&cosim_ps);
    if (cosim_busy && (heap_.empty() || cosim_ps < heap_.front().time)) {
      now_ps_ = std::max(now_ps_, cosim_ps);
      // Not counted in events_run: how many steps a co-simulator takes depends on every
      // module it holds (a split run's processes hold different ones). Its processes run as
      // the owner that handed them their work (hw/systemc); what else runs is global.
      OwnerScope global(*this, kGlobalOwner);
      cosim_->AdvanceTo(now_ps_);
      return true;
    }
    if (heap_.empty() || (foreground_ == 0 && !cosim_busy)) return false;
    std::pop_heap(heap_.begin(), heap_.end(), Later());
    const Entry entry = heap_.back();
    heap_.pop_back();
    const uint32_t slot = entry.slot & kSlotMask;
    if ((entry.slot & kBackgroundBit) == 0) --foreground_;
    // The next event's action (up to two lines) starts loading while this one runs: one
    // scheduled long before it runs has often left the cache by then in a large cluster.
    if (!heap_.empty()) {
      const char* next = reinterpret_cast<const char*>(&SlotAction(heap_.front().slot & kSlotMask));
      __builtin_prefetch(next);
      __builtin_prefetch(next + sizeof(Action) - 1);
    }
    // max: AdvanceClock may have passed a background event while nothing else was pending.
    now_ps_ = std::max(now_ps_, entry.time);
    running_tie_ = entry.tie;
    ++events_run_;
    SetOwner(entry.runs_as);
    // In place: the slot is not reused until it is freed below.
    SlotAction(slot).RunOnce();
    free_slots_.push_back(slot);
    if (entry.runs_as < owner_runs_.size() && ++owner_runs_[entry.runs_as] == owner_tick_every_) {
      owner_runs_[entry.runs_as] = 0;
      owner_tick_(entry.runs_as);
    }
    return true;
  }
  /**
   * Moves the clock forward to `time_ps` with no event: a split run's partitions agree on one
   * instant after each ran its own last event (docs/architecture.md). Never moves it back or
   * past a pending event.
   */
  void AdvanceClock(uint64_t time_ps) {
    NICSIM_CHECK(time_ps <= next_time_ps(), "clock moved past a pending event");
    now_ps_ = std::max(now_ps_, time_ps);
  }
  /** Runs events while `keep_going()` is true and events remain. */
  template <typename Pred>
  void RunWhile(Pred keep_going) {
    while (keep_going() && RunOne()) {
    }
  }

 private:
  /** A pending event: ordered by (time, tie); the action waits in its slot. */
  struct Entry {
    uint64_t time;
    /** (owner that scheduled it << kSeqBits) | that owner's schedule count. */
    uint64_t tie;
    uint32_t slot;
    /** The owner the event runs as. */
    Owner runs_as;
  };
  /** A max-heap comparison that makes the heap's front the earliest key. */
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      using Wide = unsigned __int128;
      return ((Wide{a.time} << 64) | a.tie) > ((Wide{b.time} << 64) | b.tie);
    }
  };
  static constexpr uint32_t kSlotBits = 24;
  static constexpr uint32_t kSlotMask = (1u << kSlotBits) - 1;
  static constexpr uint32_t kBackgroundBit = 1u << 31;
  static constexpr uint32_t kChunkShift = 10;
  static constexpr uint64_t kSeqLimit = uint64_t{1} << kSeqBits;
  /** Where an owner's count lives: the global owner first, then node n at n + 1. */
  static uint32_t IndexOf(Owner owner) { return (owner + 1) & kGlobalOwner; }
  Action& SlotAction(uint32_t slot) {
    return chunks_[slot >> kChunkShift][slot & ((1u << kChunkShift) - 1)];
  }
  void SetOwner(Owner owner) {
    owner_ = owner;
    const uint32_t i = IndexOf(owner);
    if (i >= seqs_.size()) seqs_.resize(size_t{i} + 1, 0);
    seq_ = &seqs_[i];
  }
  template <typename F>
  void Push(uint64_t time_ps, uint64_t tie, Owner runs_as, F&& action, uint32_t flags = 0) {
    if (local_ != nullptr && runs_as < local_->size() && (*local_)[runs_as] == 0) return;
    // Actions stay put in a slot (addresses never move, so an action runs in place); the
    // heap orders small entries.
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
    heap_.push_back(Entry{time, tie, slot | flags, runs_as});
    if (flags == 0) ++foreground_;
    std::push_heap(heap_.begin(), heap_.end(), Later());
  }

  std::vector<Entry> heap_;
  /** Action storage in fixed chunks, so a running action's address stays valid. */
  std::vector<std::unique_ptr<Action[]>> chunks_;
  uint32_t slots_used_ = 0;
  std::vector<uint32_t> free_slots_;
  uint64_t now_ps_ = 0;
  /** Pending events that are not background ones. */
  size_t foreground_ = 0;
  /** Schedules made by each owner, at IndexOf(owner). */
  std::vector<uint64_t> seqs_;
  /** The running owner and its count in seqs_. */
  Owner owner_ = kGlobalOwner;
  uint64_t* seq_;
  uint64_t events_run_ = 0;
  /** SetOwnerTick: events run per owner since its last tick. */
  std::vector<uint32_t> owner_runs_;
  uint32_t owner_tick_every_ = 0;
  std::function<void(Owner)> owner_tick_;
  kernel::CoSimulator* cosim_ = nullptr;
  const std::vector<uint8_t>* local_ = nullptr;
  uint64_t running_tie_ = 0;
  std::vector<Scheduled>* schedule_log_ = nullptr;
};

}  // namespace nicsim::kernel
