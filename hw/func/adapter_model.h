// SPDX-License-Identifier: Apache-2.0
// The adapter hardware model that runs the microcode: the assembly of its parts (SRAM and
// registers, buffer pools, MMIO window, DMA engine, link port, trace) and its interrupt
// lines. Its timing hooks default to the functional model's nominal delays; timed backends
// (hw/systemc) override them.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "firmware/microcode.h"
#include "firmware/platform.h"
#include "host/host_memory.h"
#include "hw/common/link.h"
#include "hw/func/adapter_buffers.h"
#include "hw/func/adapter_config.h"
#include "hw/func/adapter_context.h"
#include "hw/func/adapter_counters.h"
#include "hw/func/adapter_dma.h"
#include "hw/func/adapter_hooks.h"
#include "hw/func/adapter_link_input.h"
#include "hw/func/adapter_link_output.h"
#include "hw/func/adapter_mmio.h"
#include "hw/func/adapter_sram.h"
#include "hw/func/adapter_trace.h"
#include "hw/func/dma_job.h"
#include "hw/func/microcode_runner.h"
#include "kernel/event_queue.h"

namespace nicsim::hw::func {

/**
 * One adapter: implements the firmware platform and the link sink by delegating to its
 * parts, and owns what they share (see AdapterContext). Functional timing unless a subclass
 * overrides the hooks.
 */
class AdapterModel : public fw::Platform, public LinkSink, private AdapterHooks {
 public:
  AdapterModel(kernel::EventQueue& events, host::HostMemory& host, uint16_t adapter_id,
               uint32_t line_bytes, const AdapterTiming& timing,
               const fw::MicrocodeConfig& microcode,
               const AdapterResources& resources = AdapterResources{});

  /** Device-to-host interrupt: (handler, the events pending when it was presented). */
  using InterruptFn =
      std::function<void(uint32_t handler, const std::vector<abi::InterruptEvent>& events)>;

  /** Where transmitted frames go. Must be set before traffic flows. */
  void ConnectFabric(FabricLink* port) { link_output_.Connect(port); }
  void SetTraceSink(TraceSink* sink) {
    trace_.Attach(sink);
    set_wants_state_events(sink != nullptr || TimesMicrocodeStates());
  }

  // Host-to-device: MMIO.
  void MmioWrite(uint64_t offset, uint64_t value) { mmio_.Write(offset, value); }
  uint64_t MmioRead(uint64_t offset);
  /** Device-to-host: interrupt delivery. */
  void SetInterruptHandler(InterruptFn handler) { interrupt_handler_ = std::move(handler); }

  // LinkSink.
  void Receive(Frame frame) override { link_input_.Receive(std::move(frame)); }
  void ReceiveBurst(Frame* frames, uint32_t count) override {
    link_input_.ReceiveBurst(frames, count);
  }
  /**
   * Behind a real port (realport/port's WireNode): frames come in bursts off an ethdev and the
   * wall clock, not simulated time, paces the run. The adapter then lands each burst's
   * payloads as it is received and completes DMAs in batches (see AdapterContext::bursts); the
   * microcode runs the same state machines in the same order per frame. Off by default.
   */
  void SetRealPortBursts(bool on) { bursts_ = on; }

  host::HostMemory& host() { return host_; }
  kernel::EventQueue& events() { return events_; }
  const fw::Counters& firmware_counters() const { return microcode_.counters(); }
  const fw::Microcode& microcode() const { return microcode_; }
  const AdapterCounters& counters() const { return counters_; }
  /** Free DTBs and header buffers now (all of them on an idle adapter: nothing leaked). */
  uint32_t free_dtbs() const { return buffers_.free_dtbs(); }
  uint32_t free_header_buffers() const { return buffers_.free_header_buffers(); }
  /** Backend-specific counters (name, value) for the stats; none unless a subclass has some. */
  virtual std::vector<std::pair<std::string_view, uint64_t>> ExtraCounters() const { return {}; }

  ~AdapterModel() override = default;

  // fw::Platform.
  uint16_t AdapterId() const override { return adapter_id_; }
  uint32_t CacheLineBytes() const override { return line_bytes_; }
  void SramRead(uint32_t addr, void* dst, uint32_t len) override { sram_.Read(addr, dst, len); }
  void SramWrite(uint32_t addr, const void* src, uint32_t len) override {
    sram_.Write(addr, src, len);
  }
  uint64_t ReadGlobalReg(abi::GlobalReg reg) override { return sram_.ReadGlobalReg(reg); }
  void WriteGlobalReg(abi::GlobalReg reg, uint64_t value) override {
    sram_.WriteGlobalReg(reg, value);
  }
  void StartDmaToHost(const fw::DmaToHost& request) override {
    RunDma(dma_.PrepareToHost(request));
  }
  void StartDmaFromHost(const fw::DmaFromHost& request) override {
    RunDma(dma_.PrepareFromHost(request));
  }
  fw::DtbId AllocDtb() override;
  void ReleaseDtb(fw::DtbId dtb) override;
  fw::HeaderBufferId AllocHeaderBuffer() override { return buffers_.TakeHeaderBuffer(); }
  void ReleaseHeaderBuffer(fw::HeaderBufferId id) override { buffers_.PutHeaderBuffer(id); }
  uint8_t* HeaderBuffer(fw::HeaderBufferId id) override { return buffers_.HeaderBuffer(id); }
  bool LinkHasRoom() override { return link_output_.HasRoom(); }
  void Transmit(const abi::WireHeader& header, fw::DtbId dtb, uint32_t len) override {
    link_output_.Transmit(header, dtb, len);
  }
  void TransmitControl(const abi::WireHeader& header, const void* payload, uint32_t len) override {
    link_output_.TransmitControl(header, payload, len);
  }
  void RaiseInterrupt(uint32_t handler, const std::vector<abi::InterruptEvent>& events) override;
  void RxResourcesFreed() override { link_input_.RxResourcesFreed(); }
  void Trace(const fw::TraceEvent& event) override { trace_.Firmware(event); }

 protected:
  /** One DMA as the engine sees it (hw/systemc's engine moves these too). */
  using DmaJob = func::DmaJob;

  /** True if the model charges time per microcode state (it needs every state event). */
  virtual bool TimesMicrocodeStates() const { return false; }
  /** Timing hook: the current time as the hardware sees it. */
  uint64_t NowPs() override { return events_.now_ps(); }
  /**
   * Timing hook: microcode entry points go to `executor` from now on. Without one (the
   * functional model) they run at once, for free, with no callable built or dispatched.
   */
  void SetExecutor(MicrocodeExecutor* executor) { runner_.set_executor(executor); }
  /** Timing hook: moves a DMA through the engine and completes it (functional: serial engine). */
  virtual void RunDma(DmaJob job) { dma_.RunSerial(std::move(job)); }
  /** Observer hook: a receive payload was given DTB `dtb` from the free list. */
  void OnPayloadDtbTaken(fw::DtbId dtb) override { static_cast<void>(dtb); }
  /** Observer hook: a DMA completed with `status` (before the microcode hears of it). */
  void OnDmaCompleted(const DmaJob& job, fw::DmaStatus status) override {
    static_cast<void>(job);
    static_cast<void>(status);
  }
  /** Observer hook: a hardware reset returned every DTB to the free list. */
  virtual void OnHardwareReset() {}
  /** The DMA status for a host memory access outcome; counts errors. */
  fw::DmaStatus DmaOutcome(host::HostMemory::Access access) { return dma_.Outcome(access); }
  /** Delivers a DMA completion to the microcode once the data is coherent. */
  void CompleteDma(const DmaJob& job, fw::DmaStatus status) { dma_.Complete(job, status); }
  uint64_t generation() const { return generation_; }
  /** True while a trace sink records events. */
  bool tracing() const { return trace_.tracing(); }
  /** Counts a firmware event that was not built because nothing records it. */
  void CountTraceEvent() { trace_.CountUnbuilt(); }
  void CountDroppedByReset() { ++counters_.dropped_by_reset; }

 private:
  /** A posted MMIO command reached the adapter: a reset, or a command for the microcode. */
  void DeliverMmioCommand(uint64_t offset, uint64_t value);
  /** Hardware reset: drops all in-flight work and closes every window. */
  void ResetAdapter();

  kernel::EventQueue& events_;
  host::HostMemory& host_;
  uint16_t adapter_id_;
  uint32_t line_bytes_;
  AdapterTiming timing_;
  AdapterCounters counters_;
  /** Bumped by a reset; events scheduled before it are discarded. */
  uint64_t generation_ = 0;
  bool bursts_ = false;
  MicrocodeRunner runner_;
  AdapterTrace trace_;
  /** What the DMA engine and the link port share with the assembly. */
  AdapterContext context_;
  AdapterSram sram_;
  AdapterBuffers buffers_;
  AdapterMmio mmio_;
  AdapterDma dma_;
  AdapterLinkInput link_input_;
  AdapterLinkOutput link_output_;
  InterruptFn interrupt_handler_;
  fw::Microcode microcode_;
};

}  // namespace nicsim::hw::func
