// SPDX-License-Identifier: Apache-2.0
// Processor thread: a call starts when the processor is free and no earlier than it was
// posted; its cost accumulates as local time; the thread yields to SystemC once the local
// time reaches the quantum.
#include "hw/systemc/processor.h"

#include <algorithm>

#include "hw/systemc/kernel.h"

namespace nicsim::hw::systemc {

Processor::Processor(sc_core::sc_module_name name, kernel::EventQueue& events)
    : sc_core::sc_module(name), events_(events) {
  SC_THREAD(Run);
}

void Processor::Post(kernel::EventAction&& call, uint64_t at_ps) {
  // Temporal decoupling: an idle processor that would start the call within a quantum of the
  // caller's time runs it at once, on the caller's stack, with its time annotated (as the
  // thread would, without a context switch or a kernel step). Lock-step (quantum 0) always
  // goes through the thread, which synchronises after every call.
  const uint64_t quantum = quantum_.get().value();
  if (quantum > 0 && inbox_.empty() && !in_step_ && busy_until_ps_ < at_ps + quantum) {
    Step(call, at_ps);
    ++direct_steps_;
    return;
  }
  inbox_.push_back(Call{std::move(call), at_ps, events_.owner()});
  Kernel::NotifyAt(wake_, at_ps);
}

void Processor::Charge(uint64_t ps) {
  if (in_step_) local_ps_ += ps;
}

uint64_t Processor::NowPs() const {
  const uint64_t now = sc_core::sc_time_stamp().value();
  return in_step_ ? now + local_ps_ : now;
}

void Processor::Step(kernel::EventAction& fn, uint64_t at_ps) {
  // SystemC time may lag the cluster's clock while SystemC is idle: the call's own time and
  // the processor's backlog decide when it starts, as local (decoupled) time.
  const uint64_t now = sc_core::sc_time_stamp().value();
  const uint64_t start = std::max({now, busy_until_ps_, at_ps});
  local_ps_ = start - now;
  in_step_ = true;
  fn();
  in_step_ = false;
  busy_until_ps_ = now + local_ps_;
  ++steps_;
}

void Processor::DrainNow() {
  while (!inbox_.empty()) {
    Call call = std::move(inbox_.front());
    inbox_.pop_front();
    kernel::EventQueue::OwnerScope as_poster(events_, call.owner);
    Step(call.fn, call.at_ps);
  }
}

void Processor::Run() {
  for (;;) {
    while (inbox_.empty()) wait(wake_);
    // The call at the front runs in an event of its poster's a picosecond from now, not inside
    // this SystemC step, which may hold other adapters' processes too: what the call records
    // and schedules is then keyed and ordered as any event's (docs/architecture.md, "Event
    // order"), however the cluster is split over processes.
    {
      kernel::EventQueue::OwnerScope as_poster(events_, inbox_.front().owner);
      events_.At(events_.now_ps() + 1, [this] { StepFront(); });
    }
    wait(stepped_);
    // The time the call used past SystemC's goes to the quantum keeper only here, where the
    // thread may sync.
    const uint64_t now = sc_core::sc_time_stamp().value();
    qk_.set(sc_core::sc_time::from_value(busy_until_ps_ > now ? busy_until_ps_ - now : 0));
    if (qk_.need_sync()) {
      ++syncs_;
      qk_.sync();
    }
  }
}

void Processor::StepFront() {
  // An MMIO read in between may have drained the call already (DrainNow).
  if (!inbox_.empty()) {
    Call call = std::move(inbox_.front());
    inbox_.pop_front();
    Step(call.fn, call.at_ps);
  }
  Kernel::NotifyAt(stepped_, events_.now_ps());
}

}  // namespace nicsim::hw::systemc
