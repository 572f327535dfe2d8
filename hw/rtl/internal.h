// SPDX-License-Identifier: Apache-2.0
// Shared by the RTL drivers only: the hand-toggled SystemC clock, signal naming and the optional
// VCD trace of a Verilated SystemC module.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "systemc.h"
#include "verilated.h"
#include "verilated_vcd_sc.h"

namespace nicsim::hw::rtl {

/** A unique top-level SystemC object name: "<instance>_<port>". */
inline std::string ScName(const std::string& instance, const char* port) {
  return instance + "_" + port;
}

/** The VCD file for `instance`: `vcd_path`, else $NICSIM_RTL_VCD, with the name inserted. */
inline std::string RtlVcdPath(const std::string& vcd_path, const std::string& instance) {
  std::string path = vcd_path;
  if (path.empty()) {
    const char* env = std::getenv("NICSIM_RTL_VCD");
    if (env != nullptr) path = env;
  }
  if (path.empty()) return path;
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    return path + "." + instance + ".vcd";
  }
  return path.substr(0, dot) + "." + instance + path.substr(dot);
}

/**
 * The clock of one driven module: a signal the driver toggles itself, so each Cycle() is exactly
 * one rising edge with the inputs set up half a period before it.
 */
class ScClocking {
 public:
  ScClocking(const std::string& instance, std::string vcd_path)
      : clk(ScName(instance, "clk").c_str()), vcd_path_(std::move(vcd_path)) {
    // Trace support must be switched on before the model is constructed.
    if (!vcd_path_.empty()) Verilated::traceEverOn(true);
  }

  /** Half a period with clk low (inputs settle), then the rising edge and the high half. */
  void Cycle() {
    HalfPeriod();
    clk.write(true);
    HalfPeriod();
    clk.write(false);
    ++cycles_;
  }
  /** Half a period without an edge, so combinational outputs follow new inputs. */
  void Settle() { HalfPeriod(); }

  /** Opens the VCD once, on first use; `attach` registers the model (top->trace). */
  void StartTrace(const std::function<void(VerilatedVcdSc*)>& attach) {
    if (vcd_path_.empty() || vcd_) return;
    // The trace may only be opened once elaboration is complete.
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    vcd_ = std::make_unique<VerilatedVcdSc>();
    attach(vcd_.get());
    vcd_->open(vcd_path_.c_str());
  }
  /** Writes buffered trace data to the VCD file. */
  void FlushTrace() {
    if (vcd_) vcd_->flush();
  }
  /** Flushes and closes the VCD. */
  void CloseTrace() {
    if (!vcd_) return;
    vcd_->close();
    // The SystemC kernel keeps a pointer to every trace file for the rest of the process (a closed
    // one ignores its callbacks), so it is left alive, as Verilator's examples do.
    static_cast<void>(vcd_.release());
  }

  uint64_t cycles() const { return cycles_; }
  const std::string& vcd_path() const { return vcd_path_; }

  sc_core::sc_signal<bool> clk;

 private:
  static void HalfPeriod() { sc_core::sc_start(1, sc_core::SC_NS); }

  std::string vcd_path_;
  std::unique_ptr<VerilatedVcdSc> vcd_;
  uint64_t cycles_ = 0;
};

}  // namespace nicsim::hw::rtl
