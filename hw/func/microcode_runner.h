// SPDX-License-Identifier: Apache-2.0
// How the adapter runs a microcode entry point that became due: at once (the functional
// model), or handed to a timed model's executor (hw/systemc's processor).
#pragma once

#include <utility>

#include "kernel/event_queue.h"

namespace nicsim::hw::func {

/**
 * Runs microcode entry points for a timed model (hw/systemc: a processor that charges each
 * call its cycles and may queue it). Without one, the functional model runs them at once.
 */
class MicrocodeExecutor {
 public:
  virtual ~MicrocodeExecutor() = default;
  /** Runs or queues `call`, a microcode entry point that became due now. */
  virtual void Execute(kernel::EventAction&& call) = 0;
  /** Runs every call already queued (an MMIO read waits for them). */
  virtual void Flush() = 0;
};

/** Runs microcode entry points: at once, or through the executor when there is one. */
class MicrocodeRunner {
 public:
  /**
   * Entry points go to `executor` from now on. Without one (the functional model) they run
   * at once, for free, with no callable built or dispatched.
   */
  void set_executor(MicrocodeExecutor* executor) { executor_ = executor; }

  /** Runs `call`, a microcode entry point that became due now. */
  template <typename F>
  void Run(F&& call) {
    if (executor_ == nullptr) {
      call();
    } else {
      executor_->Execute(kernel::EventAction(std::forward<F>(call)));
    }
  }

  /** Runs every entry point already handed to the executor (an MMIO read waits for them). */
  void Flush() {
    if (executor_ != nullptr) executor_->Flush();
  }

 private:
  MicrocodeExecutor* executor_ = nullptr;
};

}  // namespace nicsim::hw::func
