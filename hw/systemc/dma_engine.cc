// SPDX-License-Identifier: Apache-2.0
// DMA engine thread: start no earlier than issued and than the engine is free; the bus
// annotates latency plus transfer time; the next transfer may start once the bytes are out.
#include "hw/systemc/dma_engine.h"

#include <algorithm>

#include "hw/systemc/kernel.h"

namespace nicsim::hw::systemc {

DmaEngine::DmaEngine(sc_core::sc_module_name name, uint64_t bus_latency_ps, DmaClient& client,
                     kernel::EventQueue& events)
    : sc_core::sc_module(name),
      socket("socket"),
      client_(client),
      events_(events),
      bus_latency_ps_(bus_latency_ps) {
  SC_THREAD(Run);
}

void DmaEngine::Submit(Request request) {
  // Temporal decoupling, as in Processor::Post: an idle engine that would start within a
  // quantum of the request issues the transaction at once with its delay annotated.
  const uint64_t quantum = quantum_.get().value();
  if (quantum > 0 && queue_.empty() && free_at_ps_ < request.issue_ps + quantum) {
    Transfer(request);
    ++direct_transfers_;
    return;
  }
  request.owner = events_.owner();
  const uint64_t issue_ps = request.issue_ps;
  queue_.push_back(std::move(request));
  Kernel::NotifyAt(wake_, issue_ps);
}

void DmaEngine::Run() {
  for (;;) {
    while (queue_.empty()) wait(wake_);
    Request r = std::move(queue_.front());
    queue_.pop_front();
    {
      kernel::EventQueue::OwnerScope as_submitter(events_, r.owner);
      Transfer(r);
    }
    if (qk_.need_sync()) qk_.sync();
  }
}

void DmaEngine::Transfer(Request& r) {
  const uint64_t now = sc_core::sc_time_stamp().value();
  const uint64_t start = std::max({now, r.issue_ps, free_at_ps_});
  tlm::tlm_generic_payload& gp = gp_;
  gp.set_command(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(r.addr);
  gp.set_data_ptr(r.data);
  gp.set_data_length(r.len);
  gp.set_streaming_width(r.len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::sc_time::from_value(start - now);
  socket->b_transport(gp, delay);
  ++transactions_;
  const uint64_t done_ps = now + delay.value();
  free_at_ps_ = done_ps - bus_latency_ps_;
  host::HostMemory::Access access = host::HostMemory::Access::kOk;
  if (gp.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE) {
    access = host::HostMemory::Access::kFreed;
  } else if (!gp.is_response_ok()) {
    access = host::HostMemory::Access::kOutOfRange;
  }
  client_.DmaDone(r.cookie, access, done_ps);
  qk_.set(sc_core::sc_time::from_value(free_at_ps_ - now));
}

}  // namespace nicsim::hw::systemc
