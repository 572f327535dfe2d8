// SPDX-License-Identifier: Apache-2.0
// The SystemC kernel as a co-simulator of the event queue: the queue steps SystemC to the
// time of its next activity, so SystemC modules and the rest of the cluster share one clock.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "kernel/event_queue.h"

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

 private:
  Kernel() = default;

  /** NextEventPs's last answer (whether SystemC has activity, and when), while valid. */
  static inline bool next_event_known_ = false;
  static inline bool next_event_pending_ = false;
  static inline uint64_t next_event_ps_ = 0;
};

}  // namespace nicsim::hw::systemc
