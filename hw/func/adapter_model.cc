// SPDX-License-Identifier: Apache-2.0
// Functional adapter: wires the parts together on one event queue, and keeps what is the
// assembly's own: DTB allocation (waiting payloads first), MMIO command delivery, reset (a
// generation bump, so that work scheduled before it is discarded when its event fires) and
// interrupts.
#include "hw/func/adapter_model.h"

#include "abi/limits.h"
#include "abi/mmio.h"
#include "base/check.h"

namespace nicsim::hw::func {

AdapterModel::AdapterModel(kernel::EventQueue& events, host::HostMemory& host, uint16_t adapter_id,
                           uint32_t line_bytes, const AdapterTiming& timing,
                           const fw::MicrocodeConfig& microcode, const AdapterResources& resources)
    : events_(events),
      host_(host),
      adapter_id_(adapter_id),
      line_bytes_(line_bytes),
      timing_(timing),
      trace_(adapter_id, *this, counters_),
      context_{events_, *this,     generation_, runner_, microcode_,
               trace_,  counters_, timing_,     bursts_},
      sram_(abi::SramBytesFor(microcode.rcxts)),
      buffers_(resources),
      mmio_(events_, timing_.mmio_latency_ps, sram_,
            [this](uint64_t offset, uint64_t value) { DeliverMmioCommand(offset, value); }),
      dma_(context_, host_, buffers_),
      link_input_(context_, buffers_),
      link_output_(context_, buffers_, adapter_id, resources.link_queue_frames),
      microcode_(*this, microcode) {
  set_wants_state_events(false);  // until a trace is attached (SetTraceSink)
  NICSIM_CHECK(abi::IsValidCacheLine(line_bytes), "cache line %u", line_bytes);
  NICSIM_CHECK(
      resources.dtbs > 0 && resources.header_buffers > 0 && resources.link_queue_frames > 0,
      "adapter buffers");
}

void AdapterModel::DeliverMmioCommand(uint64_t offset, uint64_t value) {
  if (offset == abi::GlobalCommandOffset(abi::GlobalCommand::kResetAdapter)) {
    ResetAdapter();
  } else {
    runner_.Run([this, offset, value] { microcode_.OnMmioCommand(offset, value); });
  }
}

uint64_t AdapterModel::MmioRead(uint64_t offset) {
  // A read does not pass posted writes: every command written before it lands first.
  mmio_.DeliverPosted();
  runner_.Flush();
  return mmio_.Read(offset);
}

void AdapterModel::ResetAdapter() {
  ++generation_;
  link_input_.Reset();
  link_output_.Reset();
  buffers_.Reset();
  // Every LMT reads closed until the driver reopens windows.
  sram_.Clear();
  microcode_.Reset();
  OnHardwareReset();
}

fw::DtbId AdapterModel::AllocDtb() {
  // Payloads already waiting for a DTB are served first.
  return link_input_.payloads_waiting() ? fw::kNoDtb : buffers_.TakeDtb();
}

void AdapterModel::ReleaseDtb(fw::DtbId dtb) {
  buffers_.PutDtb(dtb);
  link_input_.ServePayloadWaiters();
}

void AdapterModel::RaiseInterrupt(uint32_t handler,
                                  const std::vector<abi::InterruptEvent>& events) {
  const uint64_t gen = generation_;
  events_.At(NowPs() + timing_.interrupt_latency_ps, [this, handler, events, gen] {
    if (gen != generation_) return;
    if (interrupt_handler_) interrupt_handler_(handler, events);
  });
}

}  // namespace nicsim::hw::func
