// SPDX-License-Identifier: Apache-2.0
// The SystemC kernel as a co-simulator of the event queue: the queue steps SystemC to the
// time of its next activity, so SystemC modules and the rest of the cluster share one clock.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "hw/func/event_queue.h"

namespace nicsim::hw::systemc {

/** The process's SystemC kernel. SystemC elaborates once per process: one cluster only. */
class Kernel final : public func::CoSimulator {
 public:
  /** The kernel, set to picosecond resolution; an error if a cluster already used it. */
  static Result<Kernel*> Claim();
  /** True once a cluster in this process has claimed the kernel. */
  static bool Claimed();
  /** Ends elaboration (modules must all exist by now) and sets the global quantum. */
  void Start(uint64_t quantum_ps);

  bool NextEventPs(uint64_t* time_ps) override;
  void AdvanceTo(uint64_t time_ps) override;

 private:
  Kernel() = default;
};

}  // namespace nicsim::hw::systemc
