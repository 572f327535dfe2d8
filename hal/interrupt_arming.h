// SPDX-License-Identifier: Apache-2.0
// How a process that goes to sleep asks its window for the next receive interrupt: the
// threshold, and whether the adapter may interrupt early (before the frame is coherent).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "hal/window.h"

namespace nicsim::hal {

/** When the adapter should interrupt a sleeping process for a frame. */
enum class InterruptTiming : uint8_t {
  /** Once the frame is in host memory. */
  kCoherent,
  /** As soon as the frame is reserved; the woken process polls its first line until it lands. */
  kEarly,
  /** Early while the process's CPU has nothing else to run, coherent while it has. */
  kEarlyWhenIdle,
};

/**
 * Arms a window's receive interrupt for a process about to sleep. Early interrupts let the
 * host run the interrupt path while the adapter is still writing the data; that is only a
 * gain when a CPU is free to run it. A CPU with application work would instead be taken from
 * it to poll for data not yet there, so in kEarlyWhenIdle the mode is chosen afresh each time
 * the process sleeps: early when the CPU is idle (the process waits and nothing else is
 * queued on its CPU), coherent otherwise. The mode command goes to the adapter only when the
 * mode changes.
 */
class InterruptArming {
 public:
  InterruptArming(Window& window, InterruptTiming timing) : window_(window), timing_(timing) {}

  /**
   * How the process learns whether its CPU is idle (kEarlyWhenIdle); unset, the CPU counts as
   * idle: the process runs only when woken and nothing else shares its CPU.
   */
  void SetCpuIdleProbe(std::function<bool()> idle) { cpu_idle_ = std::move(idle); }

  /**
   * Asks for an interrupt when the receive FIFO has had `frames` frames written (or reserved,
   * in early mode), after setting the mode this sleep uses. Returns true if it is early.
   */
  bool Arm(uint64_t frames);
  /** What the probe says now (true without one). */
  bool CpuIdle() const { return !cpu_idle_ || cpu_idle_(); }
  /**
   * The CPU's state changed while the process sleeps armed for `frames`: if that changes the
   * choice, arms again with the new mode (the threshold is rewritten with it).
   */
  void Refresh(uint64_t frames);

  /** True if the last arm asked for an early interrupt. */
  bool armed_early() const { return mode_ == abi::kEarlyInterrupt; }
  /** Sleeps armed with early interrupts (Refresh's re-arms included). */
  uint64_t early_arms() const { return early_arms_; }
  /** Sleeps armed with interrupts once the data is coherent. */
  uint64_t coherent_arms() const { return coherent_arms_; }
  /** Mode commands written (the first arm's, then one per change). */
  uint64_t mode_writes() const { return mode_writes_; }

 private:
  bool WantsEarly() const;

  Window& window_;
  InterruptTiming timing_;
  std::function<bool()> cpu_idle_;
  /** The mode flags last written to the adapter (none yet: the first arm writes them). */
  std::optional<uint32_t> mode_;
  uint64_t early_arms_ = 0;
  uint64_t coherent_arms_ = 0;
  uint64_t mode_writes_ = 0;
};

}  // namespace nicsim::hal
