// SPDX-License-Identifier: Apache-2.0
// The host bus as a TLM-2.0 target: DMA reads and writes reach host memory through it, and
// it annotates each transaction with the bus latency and the time its bytes take.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <functional>

#include "host/host_memory.h"

namespace nicsim::hw::systemc {

/** Where a bus write goes once it reaches the point of coherence. */
class CoherencePoint {
 public:
  virtual ~CoherencePoint() = default;
  /**
   * Makes `len` bytes at `addr` visible in host memory at `at_ps`. The initiator keeps
   * `data` unchanged until then (its transaction's annotated end).
   */
  virtual void WriteAt(uint64_t at_ps, uint64_t addr, const uint8_t* data, uint64_t len) = 0;
};

/** A PCIe-like host bus in front of a node's memory. */
class HostBus final : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<HostBus> socket;

  /**
   * Writes become visible in host memory when they reach the point of coherence (the end of
   * their annotated time), not when the loosely timed call is made: `coherence` does that.
   */
  HostBus(sc_core::sc_module_name name, host::HostMemory& memory, uint64_t latency_ps,
          double ps_per_byte, CoherencePoint& coherence);

  /** Time one transaction of `bytes` occupies the bus (without the latency). */
  uint64_t TransferPs(uint64_t bytes) const {
    return static_cast<uint64_t>(static_cast<double>(bytes) * ps_per_byte_);
  }
  uint64_t latency_ps() const { return latency_ps_; }

 private:
  void BTransport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  host::HostMemory& memory_;
  uint64_t latency_ps_;
  double ps_per_byte_;
  CoherencePoint& coherence_;
};

}  // namespace nicsim::hw::systemc
