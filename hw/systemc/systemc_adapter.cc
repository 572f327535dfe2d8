// SPDX-License-Identifier: Apache-2.0
// SystemC adapter: timing hooks of the adapter model mapped onto SystemC modules.
#include "hw/systemc/systemc_adapter.h"

#include <string>

#include "hw/common/byte_recycler.h"

namespace nicsim::hw::systemc {
namespace {
std::string Name(const char* what, uint16_t id) { return std::string(what) + std::to_string(id); }
uint64_t Words(uint32_t len) { return (len + 7) / 8; }
}  // namespace

SystemcAdapter::SystemcAdapter(kernel::EventQueue& events, host::HostMemory& host,
                               uint16_t adapter_id, uint32_t line_bytes,
                               const func::AdapterTiming& timing,
                               const fw::MicrocodeConfig& microcode,
                               const func::AdapterResources& resources,
                               const SystemcTiming& systemc)
    : AdapterModel(events, host, adapter_id, line_bytes, timing, microcode, resources),
      systemc_(systemc),
      bus_(std::make_unique<HostBus>(Name("host_bus", adapter_id).c_str(), host,
                                     systemc.bus_latency_ps, systemc.bus_ps_per_byte, *this)),
      dma_(std::make_unique<DmaEngine>(Name("dma", adapter_id).c_str(), systemc.bus_latency_ps,
                                       *this, events)),
      processor_(std::make_unique<Processor>(Name("microcode", adapter_id).c_str(), events)) {
  dma_->socket.bind(bus_->socket);
  set_wants_state_events(true);
  SetExecutor(this);
}

uint64_t SystemcAdapter::NowPs() {
  return processor_->InStep() ? processor_->NowPs() : events().now_ps();
}

void SystemcAdapter::SramRead(uint32_t addr, void* dst, uint32_t len) {
  processor_->Charge(Words(len) * systemc_.sram_word_ps);
  AdapterModel::SramRead(addr, dst, len);
}

void SystemcAdapter::SramWrite(uint32_t addr, const void* src, uint32_t len) {
  processor_->Charge(Words(len) * systemc_.sram_word_ps);
  AdapterModel::SramWrite(addr, src, len);
}

static_assert(kWorkCostStates == static_cast<size_t>(fw::WorkState::kDone),
              "a cost for every work manager state that runs");

void SystemcAdapter::StateEntered(fw::TraceKind kind, fw::TaskId task, uint32_t s, uint32_t window,
                                  fw::CbId cb, fw::DtbId dtb) {
  // Every state a task runs costs its cycles.
  if (kind == fw::TraceKind::kRxState) {
    if (s < kRxCostStates) {
      processor_->Charge(systemc_.rx_cycles[s] * systemc_.cycle_ps);
    } else if (s < kRxCostStates + kRdmaRxCostStates) {
      processor_->Charge(systemc_.rdma_rx_cycles[s - kRxCostStates] * systemc_.cycle_ps);
    } else if (s == static_cast<uint32_t>(fw::RxState::kRdmaFifoAdmit)) {
      // Half RDMA data for the FIFO that owes a completion: the rCxt checks of rdma_admit.
      processor_->Charge(systemc_.rdma_rx_cycles[0] * systemc_.cycle_ps);
    }
  } else if (kind == fw::TraceKind::kTxState) {
    if (s < kTxCostStates) {
      processor_->Charge(systemc_.tx_cycles[s] * systemc_.cycle_ps);
    } else if (s < kTxCostStates + kRdmaTxCostStates) {
      processor_->Charge(systemc_.rdma_tx_cycles[s - kTxCostStates] * systemc_.cycle_ps);
    } else if (s == static_cast<uint32_t>(fw::TxState::kCancelNotify) ||
               s == static_cast<uint32_t>(fw::TxState::kCancelNotified)) {
      // A cancel's completion record: the steps of the receive side's rdma_notify(ed).
      const uint32_t step = s - static_cast<uint32_t>(fw::TxState::kCancelNotify);
      processor_->Charge(systemc_.rdma_rx_cycles[kRdmaRxCostStates - 2 + step] * systemc_.cycle_ps);
    }
  } else if (kind == fw::TraceKind::kWorkState && s < kWorkCostStates) {
    processor_->Charge(systemc_.work_cycles[s] * systemc_.cycle_ps);
  }
  // The event itself is built only when a trace records it (it is counted either way).
  if (tracing()) {
    AdapterModel::StateEntered(kind, task, s, window, cb, dtb);
  } else {
    CountTraceEvent();
  }
}

std::vector<std::pair<std::string_view, uint64_t>> SystemcAdapter::ExtraCounters() const {
  return {{"processor_steps", processor_->steps()},
          {"processor_direct_steps", processor_->direct_steps()},
          {"processor_syncs", processor_->syncs()},
          {"dma_transactions", dma_->transactions()},
          {"dma_direct_transfers", dma_->direct_transfers()}};
}

void SystemcAdapter::WriteAt(uint64_t at_ps, uint64_t addr, const uint8_t* data, uint64_t len) {
  // The engine reports the transaction done (DmaDone) as soon as b_transport returns, due at
  // this same time; the write lands in that event, just before the microcode hears of it.
  NICSIM_CHECK(!landing_.pending, "a bus write was not followed by its completion");
  landing_ = Landing{true, at_ps, addr, data, len};
}

void SystemcAdapter::DmaDone(uint64_t cookie, host::HostMemory::Access access, uint64_t done_ps) {
  const auto slot = static_cast<uint32_t>(cookie);
  const auto gen = static_cast<uint32_t>(cookie >> 32);
  const Landing landing = landing_;
  landing_ = Landing{};
  NICSIM_CHECK(!landing.pending || (landing.at_ps == done_ps && landing.len <= UINT32_MAX &&
                                    landing.data == jobs_[slot].data.data()),
               "a bus write (coherent at %llu ps) that is not its job's, completing at %llu ps",
               static_cast<unsigned long long>(landing.at_ps),
               static_cast<unsigned long long>(done_ps));
  // A small closure (no allocation): the bytes are the job's own.
  const bool lands = landing.pending;
  const uint64_t addr = landing.addr;
  const auto len = static_cast<uint32_t>(landing.len);
  events().At(done_ps, [this, slot, gen, access, lands, addr, len] {
    if (gen != static_cast<uint32_t>(generation())) {
      // Neither the write nor the completion happens: the driver may already have
      // reinitialised that memory (as in hw/func).
      if (lands) CountDroppedByReset();
      CountDroppedByReset();
      jobs_.Release(slot);
      return;
    }
    // The job (in jobs_[slot]) still holds the written bytes.
    if (lands &&
        host().DeviceWrite(addr, jobs_[slot].data.data(), len) != host::HostMemory::Access::kOk) {
      (void)DmaOutcome(host::HostMemory::Access::kFreed);  // freed since the bus accepted it
    }
    // CompleteDma may start new DMAs (growing jobs_): it gets a job of its own.
    DmaJob job = std::move(jobs_[slot]);
    jobs_.Release(slot);
    CompleteDma(job, DmaOutcome(access));
    RecycleStaging(std::move(job.data));
  });
}

void SystemcAdapter::RunDma(DmaJob job) {
  if (!job.to_host && job.len > job.room) {
    CompleteDma(job, DmaOutcome(host::HostMemory::Access::kOutOfRange));
    return;
  }
  // The job waits in a reusable slot; the engine carries the slot and the reset generation.
  const uint32_t slot = jobs_.Park(std::move(job));
  DmaJob& parked = jobs_[slot];
  DmaEngine::Request r;
  r.issue_ps = NowPs();
  r.write = parked.to_host;
  r.addr = parked.host_addr;
  // A job's buffers stay put when jobs_ grows (vectors move their storage).
  r.data = parked.to_host ? parked.data.data() : parked.dst;
  r.len = parked.len;
  r.cookie = (uint64_t{static_cast<uint32_t>(generation())} << 32) | slot;
  dma_->Submit(std::move(r));
}

}  // namespace nicsim::hw::systemc
