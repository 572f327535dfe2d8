// SPDX-License-Identifier: Apache-2.0
// Stepping SystemC: sc_start(duration) stops before processes due at the end time, so each
// step ends with zero-time starts until nothing more is due now.
#include "hw/systemc/kernel.h"

#include <systemc>
#include <tlm>

namespace nicsim::hw::systemc {

namespace {
bool claimed = false;
}  // namespace

bool Kernel::Claimed() { return claimed; }

Result<Kernel*> Kernel::Claim() {
  static Kernel kernel;
  if (claimed) {
    return Status::Error(
        "backend systemc: SystemC elaborates once per process; this process already built a "
        "SystemC cluster");
  }
  claimed = true;
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  return &kernel;
}

void Kernel::Start(uint64_t quantum_ps) {
  tlm::tlm_global_quantum::instance().set(
      sc_core::sc_time(static_cast<double>(quantum_ps), sc_core::SC_PS));
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  next_event_known_ = false;
}

void Kernel::Finish() { sc_core::sc_start(sc_core::sc_time::from_value(1)); }

bool Kernel::NextEventPs(uint64_t* time_ps) {
  if (!next_event_known_) {
    next_event_known_ = true;
    next_event_pending_ = sc_core::sc_pending_activity();
    if (next_event_pending_) {
      const uint64_t now = sc_core::sc_time_stamp().value();
      next_event_ps_ = sc_core::sc_pending_activity_at_current_time()
                           ? now
                           : now + sc_core::sc_time_to_pending_activity().value();
    }
  }
  *time_ps = next_event_ps_;
  return next_event_pending_;
}

void Kernel::NotifyAt(sc_core::sc_event& event, uint64_t at_ps) {
  const uint64_t now = sc_core::sc_time_stamp().value();
  event.notify(sc_core::sc_time::from_value(at_ps > now ? at_ps - now : 0));
  ActivityAdded();
}

void Kernel::AdvanceTo(uint64_t time_ps) {
  const uint64_t now = sc_core::sc_time_stamp().value();
  if (time_ps > now) {
    sc_core::sc_start(sc_core::sc_time::from_value(time_ps - now));
  }
  while (sc_core::sc_pending_activity_at_current_time()) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  next_event_known_ = false;
}

}  // namespace nicsim::hw::systemc
