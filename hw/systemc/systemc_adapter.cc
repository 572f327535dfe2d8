// SPDX-License-Identifier: Apache-2.0
// SystemC adapter: timing hooks of the adapter model mapped onto SystemC modules.
#include "hw/systemc/systemc_adapter.h"

#include <string>

namespace nicsim::hw::systemc {
namespace {
std::string Name(const char* what, uint16_t id) { return std::string(what) + std::to_string(id); }
uint64_t Words(uint32_t len) { return (len + 7) / 8; }
}  // namespace

SystemcAdapter::SystemcAdapter(func::EventQueue& events, func::HostMemory& host,
                               uint16_t adapter_id, uint32_t line_bytes,
                               const func::AdapterTiming& timing,
                               const fw::MicrocodeConfig& microcode,
                               const func::AdapterResources& resources,
                               const SystemcTiming& systemc)
    : AdapterModel(events, host, adapter_id, line_bytes, timing, microcode, resources),
      systemc_(systemc),
      bus_(std::make_unique<HostBus>(
          Name("host_bus", adapter_id).c_str(), host, systemc.bus_latency_ps,
          systemc.bus_ps_per_byte,
          // A write still on its way when the adapter is reset never lands (as in hw/func):
          // the driver may already have reinitialised that memory.
          [this, &events](uint64_t at_ps, std::function<void()> fn) {
            events.At(at_ps, [this, gen = generation(), fn = std::move(fn)] {
              if (gen != generation()) {
                CountDroppedByReset();
                return;
              }
              fn();
            });
          },
          [this] { (void)DmaOutcome(func::HostMemory::Access::kFreed); })),
      dma_(std::make_unique<DmaEngine>(Name("dma", adapter_id).c_str(), systemc.bus_latency_ps)),
      processor_(std::make_unique<Processor>(Name("microcode", adapter_id).c_str())) {
  dma_->socket.bind(bus_->socket);
  set_wants_state_events(true);
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

void SystemcAdapter::Trace(const fw::TraceEvent& event) {
  // Every state a task runs costs its cycles; the trace is where the microcode says so.
  const uint32_t s = event.state;
  if (event.kind == fw::TraceKind::kRxState) {
    if (s < kRxCostStates) {
      processor_->Charge(systemc_.rx_cycles[s] * systemc_.cycle_ps);
    } else if (s < kRxCostStates + kRdmaRxCostStates) {
      processor_->Charge(systemc_.rdma_rx_cycles[s - kRxCostStates] * systemc_.cycle_ps);
    }
  } else if (event.kind == fw::TraceKind::kTxState) {
    if (s < kTxCostStates) {
      processor_->Charge(systemc_.tx_cycles[s] * systemc_.cycle_ps);
    } else if (s < kTxCostStates + kRdmaTxCostStates) {
      processor_->Charge(systemc_.rdma_tx_cycles[s - kTxCostStates] * systemc_.cycle_ps);
    }
  }
  AdapterModel::Trace(event);
}

std::vector<std::pair<std::string_view, uint64_t>> SystemcAdapter::ExtraCounters() const {
  return {{"processor_steps", processor_->steps()},
          {"processor_direct_steps", processor_->direct_steps()},
          {"processor_syncs", processor_->syncs()},
          {"dma_transactions", dma_->transactions()},
          {"dma_direct_transfers", dma_->direct_transfers()}};
}

void SystemcAdapter::RunDma(DmaJob job) {
  if (!job.to_host && job.len > job.room) {
    CompleteDma(job, DmaOutcome(func::HostMemory::Access::kOutOfRange));
    return;
  }
  auto shared = std::make_shared<DmaJob>(std::move(job));
  DmaEngine::Request r;
  r.issue_ps = NowPs();
  r.write = shared->to_host;
  r.addr = shared->host_addr;
  r.data = shared->to_host ? shared->data.data() : shared->dst;
  r.len = shared->len;
  const uint64_t gen = generation();
  r.done = [this, shared, gen](func::HostMemory::Access access, uint64_t done_ps) {
    events().At(done_ps, [this, shared, gen, access] {
      if (gen != generation()) {
        CountDroppedByReset();
        return;
      }
      CompleteDma(*shared, DmaOutcome(access));
    });
  };
  dma_->Submit(std::move(r));
}

}  // namespace nicsim::hw::systemc
