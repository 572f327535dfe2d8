// SPDX-License-Identifier: Apache-2.0
// Drives the Verilated SystemC model of rx_dma_sequencer.sv one clock at a time, with the same
// Reset/Clock/Outputs interface as RxDmaSequencerModel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hw/rtl/rx_dma_sequencer_model.h"

namespace nicsim::hw::rtl {

/**
 * Owns a Verilated `rx_dma_sequencer` SystemC module, the signals bound to its ports and the clock,
 * which it toggles itself (1 ns low, 1 ns high per cycle) by calling sc_start(); the clock drives
 * only this module, while simulated time is shared by every driver.
 *
 * SystemC allows one elaboration per process: construct every driver before the first Reset() or
 * Clock() of any of them, and keep one per process (e.g. a lazily created static).
 *
 * Tracing: a non-empty `vcd_path`, or else the environment variable NICSIM_RTL_VCD, names a VCD
 * file; the instance name is inserted before its extension (waves.vcd -> waves.rx_sequencer.vcd).
 */
class RxDmaSequencerDriver {
 public:
  /** Builds and binds the module `name`; tracing as described above. */
  explicit RxDmaSequencerDriver(const std::string& name = "rx_sequencer",
                                const std::string& vcd_path = "");
  ~RxDmaSequencerDriver();
  RxDmaSequencerDriver(const RxDmaSequencerDriver&) = delete;
  RxDmaSequencerDriver& operator=(const RxDmaSequencerDriver&) = delete;

  /** Holds rst_n low for two clocks, then releases it; outputs show the reset state. */
  void Reset();
  /** Applies `in` and runs one rising clock edge. Inputs are truncated to port widths. */
  void Clock(const SequencerInputs& in);
  /** The module's outputs as they stand after the last edge. */
  SequencerOutputs Outputs() const;
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
