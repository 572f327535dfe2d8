// SPDX-License-Identifier: Apache-2.0
// The adapter's DMA engine: one shared engine that moves transfers in order as TLM-2.0
// transactions over the host bus, loosely timed with a quantum keeper.
#pragma once

#include <cstdint>
#include <deque>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "host/host_memory.h"
#include "kernel/event_queue.h"

namespace nicsim::hw::systemc {

/** Who hears of finished transfers. */
class DmaClient {
 public:
  virtual ~DmaClient() = default;
  /** Transfer `cookie` finished with `access`; its data is coherent at `done_ps`. */
  virtual void DmaDone(uint64_t cookie, host::HostMemory::Access access, uint64_t done_ps) = 0;
};

/** The DMA engine. */
class DmaEngine final : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> socket;

  /** One transfer; the client's DmaDone gets `cookie` back. */
  struct Request {
    uint64_t issue_ps = 0;
    bool write = true;
    uint64_t addr = 0;
    uint8_t* data = nullptr;
    uint32_t len = 0;
    uint64_t cookie = 0;
    /** The event-queue owner that submitted it (set by Submit): the thread runs it as that. */
    kernel::EventQueue::Owner owner = kernel::EventQueue::kGlobalOwner;
  };

  SC_HAS_PROCESS(DmaEngine);
  DmaEngine(sc_core::sc_module_name name, uint64_t bus_latency_ps, DmaClient& client,
            kernel::EventQueue& events);

  /** Issues `request` now or queues it; a queued one wakes the thread at its issue time. */
  void Submit(Request request);
  uint64_t transactions() const { return transactions_; }
  /** Transactions issued on the submitter's stack (within the quantum, no thread switch). */
  uint64_t direct_transfers() const { return direct_transfers_; }

 private:
  void Run();
  /** Issues one transaction (SystemC time plus the annotated delay) and reports it done. */
  void Transfer(Request& r);

  DmaClient& client_;
  kernel::EventQueue& events_;
  /** The global quantum (read on every submit; the reference saves the singleton lookup). */
  const tlm::tlm_global_quantum& quantum_ = tlm::tlm_global_quantum::instance();
  /** One payload object reused for every transaction (no allocation per transfer). */
  tlm::tlm_generic_payload gp_;
  std::deque<Request> queue_;
  sc_core::sc_event wake_;
  tlm_utils::tlm_quantumkeeper qk_;
  uint64_t bus_latency_ps_;
  /** When the engine can start its next transfer (the bus latency is pipelined). */
  uint64_t free_at_ps_ = 0;
  uint64_t transactions_ = 0;
  uint64_t direct_transfers_ = 0;
};

}  // namespace nicsim::hw::systemc
