// SPDX-License-Identifier: Apache-2.0
// Drives the Verilated SystemC model of task_buffer_allocator.sv one clock at a time, with the same
// Reset/Clock/Outputs interface as TaskBufferAllocatorModel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hw/rtl/task_buffer_allocator_model.h"

namespace nicsim::hw::rtl {

/**
 * Owns a Verilated `task_buffer_allocator` SystemC module, the signals bound to its ports and the
 * clock, which it toggles itself (1 ns low, 1 ns high per cycle) by calling sc_start(); the clock
 * drives only this module, while simulated time is shared by every driver.
 *
 * SystemC allows one elaboration per process: construct every driver before the first Reset() or
 * Clock() of any of them, and keep one per process (e.g. a lazily created static). The Verilated
 * model has the default AllocatorParams.
 *
 * Tracing: a non-empty `vcd_path`, or else the environment variable NICSIM_RTL_VCD, names a VCD
 * file; the instance name is inserted before its extension (waves.vcd -> waves.allocator.vcd) so
 * several drivers can share one setting.
 */
class TaskBufferAllocatorDriver {
 public:
  /** Builds and binds the module `name`; tracing as described above. */
  explicit TaskBufferAllocatorDriver(const std::string& name = "allocator",
                                     const std::string& vcd_path = "");
  ~TaskBufferAllocatorDriver();
  TaskBufferAllocatorDriver(const TaskBufferAllocatorDriver&) = delete;
  TaskBufferAllocatorDriver& operator=(const TaskBufferAllocatorDriver&) = delete;

  /** Holds rst_n low for two clocks, then releases it; outputs show the reset state. */
  void Reset();
  /** Applies `in` and runs one rising clock edge. Inputs are truncated to port widths. */
  void Clock(const AllocatorInputs& in);
  /** The module's outputs as they stand after the last edge. */
  AllocatorOutputs Outputs() const;
  /** Rising edges run so far, reset included. */
  uint64_t cycles() const;
  /** The VCD file being written, or empty. */
  const std::string& vcd_path() const;
  /** Writes buffered trace data to the VCD file (no-op without tracing). */
  void FlushTrace();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nicsim::hw::rtl
