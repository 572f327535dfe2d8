// SPDX-License-Identifier: Apache-2.0
// The adapter's microcode processor: runs one microcode entry point at a time, charging each
// state it passes and each SRAM word it touches in adapter cycles, and runs ahead of SystemC
// time by up to the quantum (temporal decoupling with a TLM quantum keeper).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>

#include <systemc>
#include <tlm>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "kernel/event_action.h"
#include "kernel/event_queue.h"

namespace nicsim::hw::systemc {

/**
 * One microcode processor. A call runs as the event-queue owner that posted it (its
 * adapter's node): on the poster's stack, or in an event of that owner's that the thread
 * schedules, so what it records and schedules is keyed as that node's (docs/architecture.md,
 * "Event order").
 */
class Processor final : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Processor);
  Processor(sc_core::sc_module_name name, kernel::EventQueue& events);

  /**
   * Queues a microcode call that became due at `at_ps`; it runs when the processor is free,
   * and never before `at_ps` in the processor's (possibly decoupled) time. A call the thread
   * takes wakes it at `at_ps`.
   */
  void Post(kernel::EventAction&& call, uint64_t at_ps);
  /** Inside a call: the call has taken `ps` more. */
  void Charge(uint64_t ps);
  /** True while a call runs. */
  bool InStep() const { return in_step_; }
  /** The processor's time: SystemC time plus what the current call has used. */
  uint64_t NowPs() const;
  /** Runs every queued call at once (an MMIO read must see earlier commands done). */
  void DrainNow();

  uint64_t steps() const { return steps_; }
  uint64_t syncs() const { return syncs_; }
  /** Calls run directly on the poster's stack (within the quantum, no thread switch). */
  uint64_t direct_steps() const { return direct_steps_; }

 private:
  struct Call {
    kernel::EventAction fn;
    uint64_t at_ps;
    kernel::EventQueue::Owner owner;
  };
  void Run();
  /** The event the thread schedules: runs the call at the front of the inbox, then wakes it. */
  void StepFront();
  void Step(kernel::EventAction& fn, uint64_t at_ps);

  kernel::EventQueue& events_;
  /** The global quantum (read on every post; the reference saves the singleton lookup). */
  const tlm::tlm_global_quantum& quantum_ = tlm::tlm_global_quantum::instance();
  std::deque<Call> inbox_;
  sc_core::sc_event wake_;
  /** The thread's call has run (StepFront). */
  sc_core::sc_event stepped_;
  tlm_utils::tlm_quantumkeeper qk_;
  /** Time the current call has used past SystemC time (the quantum keeper's local time). */
  uint64_t local_ps_ = 0;
  /** When the processor finishes what it has started (absolute, ps). */
  uint64_t busy_until_ps_ = 0;
  bool in_step_ = false;
  uint64_t steps_ = 0;
  uint64_t syncs_ = 0;
  uint64_t direct_steps_ = 0;
};

}  // namespace nicsim::hw::systemc
