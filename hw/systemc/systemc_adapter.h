// SPDX-License-Identifier: Apache-2.0
// The cycle-approximate adapter: the same microcode and adapter resources as the functional
// model, with SystemC timing: a microcode processor charging cycles per state and SRAM word,
// and a DMA engine issuing TLM-2.0 transactions over a host bus model.
#pragma once

#include <memory>

#include "hw/func/adapter_model.h"
#include "hw/systemc/dma_engine.h"
#include "hw/systemc/host_bus.h"
#include "hw/systemc/processor.h"
#include "hw/systemc/systemc_timing.h"

namespace nicsim::hw::systemc {

/**
 * One adapter of the SystemC backend (RtlAdapter adds the RTL checkers). Construct during
 * elaboration only.
 */
class SystemcAdapter : public func::AdapterModel,
                       public func::MicrocodeExecutor,
                       public DmaClient,
                       public CoherencePoint {
 public:
  SystemcAdapter(kernel::EventQueue& events, host::HostMemory& host, uint16_t adapter_id,
                 uint32_t line_bytes, const func::AdapterTiming& timing,
                 const fw::MicrocodeConfig& microcode, const func::AdapterResources& resources,
                 const SystemcTiming& systemc);

  void SramRead(uint32_t addr, void* dst, uint32_t len) override;
  void SramWrite(uint32_t addr, const void* src, uint32_t len) override;
  void StateEntered(fw::TraceKind kind, fw::TaskId task, uint32_t state, uint32_t window,
                    fw::CbId cb, fw::DtbId dtb) override;
  /** Processor steps and DMA transactions, and how many ran decoupled on the caller's stack. */
  std::vector<std::pair<std::string_view, uint64_t>> ExtraCounters() const override;

  /** Microcode calls go to the processor, which charges their cycles (set as the executor). */
  void Execute(kernel::EventAction&& call) override { processor_->Post(std::move(call), NowPs()); }
  void Flush() override { processor_->DrainNow(); }

  void DmaDone(uint64_t cookie, host::HostMemory::Access access, uint64_t done_ps) override;
  void WriteAt(uint64_t at_ps, uint64_t addr, const uint8_t* data, uint64_t len) override;

  const Processor& processor() const { return *processor_; }
  const DmaEngine& dma_engine() const { return *dma_; }

 protected:
  /** Every microcode state costs cycles: the model needs every state event. */
  bool TimesMicrocodeStates() const override { return true; }
  uint64_t NowPs() override;
  void RunDma(DmaJob job) override;

 private:
  SystemcTiming systemc_;
  std::unique_ptr<HostBus> bus_;
  std::unique_ptr<DmaEngine> dma_;
  std::unique_ptr<Processor> processor_;
  /** DMAs in the engine, by slot (the engine carries the slot in its cookie). */
  func::SlotPool<DmaJob> jobs_;
  /** The write of the transaction in b_transport, landed with its completion. */
  struct Landing {
    bool pending = false;
    uint64_t at_ps = 0;
    uint64_t addr = 0;
    const uint8_t* data = nullptr;
    uint64_t len = 0;
  };
  Landing landing_;
};

}  // namespace nicsim::hw::systemc
