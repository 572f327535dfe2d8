// SPDX-License-Identifier: Apache-2.0
// The SystemC kernel as a co-simulator of the event queue: the queue steps SystemC to the
// time of its next activity, so SystemC modules and the rest of the cluster share one clock.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "kernel/event_queue.h"

namespace sc_core {
class sc_event;
}  // namespace sc_core

namespace nicsim::hw::systemc {

/** The process's SystemC kernel. SystemC elaborates once per process: one cluster only. */
class Kernel final : public kernel::CoSimulator {
 public:
  /** The kernel, set to picosecond resolution; an error if a cluster already used it. */
  static Result<Kernel*> Claim();
  /** True once a cluster in this process has claimed the kernel. */
  static bool Claimed();
  /** Ends elaboration (modules must all exist by now) and sets the global quantum. */
  void Start(uint64_t quantum_ps);

  /**
   * The run is over: SystemC's tracers (the RTL blocks' VCD files) record a step's values
   * only once the kernel moves past it, so the kernel moves 1 ps on, and the last step every
   * adapter had is in its file whichever steps the process's other modules had after it.
   */
  void Finish();

  bool NextEventPs(uint64_t* time_ps) override;
  void AdvanceTo(uint64_t time_ps) override;

  /**
   * Code outside the kernel's own stepping notified a SystemC event (a module waking its
   * thread). SystemC's pending activity changes only that way or inside sc_start, which only
   * AdvanceTo calls in a cluster, so NextEventPs keeps its answer until either happens: the
   * event queue asks before every event, and asking SystemC costs several library calls.
   * Every notify outside sc_start must be followed by this call.
   */
  static void ActivityAdded() { next_event_known_ = false; }

  /**
   * Wakes a process waiting on `event` at cluster time `at_ps` (not before SystemC's own
   * time), and calls ActivityAdded. SystemC's time lags the cluster's while SystemC is idle,
   * by however long ago it last had activity, which depends on every module of the process;
   * a wake-up at SystemC's current time would start the process at an instant that changes
   * with the other adapters (and with how a split run groups them). Timed to the cluster's
   * instant, each adapter's processes run at times of its own.
   */
  static void NotifyAt(sc_core::sc_event& event, uint64_t at_ps);

 private:
  Kernel() = default;

  /** NextEventPs's last answer (whether SystemC has activity, and when), while valid. */
  static inline bool next_event_known_ = false;
  static inline bool next_event_pending_ = false;
  static inline uint64_t next_event_ps_ = 0;
};

}  // namespace nicsim::hw::systemc
