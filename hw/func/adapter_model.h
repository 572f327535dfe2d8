// SPDX-License-Identifier: Apache-2.0
// The adapter hardware model that runs the microcode: SRAM, global registers, DTBs, header
// buffers, a DMA engine, a link port and interrupt lines. Its timing hooks default to the
// functional model's nominal delays; timed backends (hw/systemc) override them.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "base/counter_table.h"
#include "firmware/microcode.h"
#include "firmware/platform.h"
#include "hw/common/link.h"
#include "hw/func/free_list.h"
#include "hw/func/slot_pool.h"
#include "kernel/event_queue.h"
#include "host/host_memory.h"

namespace nicsim::hw::func {

/** Hardware resources of the adapter. */
struct AdapterResources {
  /** Data transfer buffers (payload staging, each one receive frame). */
  uint32_t dtbs = 8;
  /** Header buffers for outgoing packets. */
  uint32_t header_buffers = 16;
  /**
   * Frames the link's output queue holds (the one being serialised included); a transmit
   * task waits for room rather than queue without bound.
   */
  uint32_t link_queue_frames = 4;
};

/** Nominal costs of the functional model (all deterministic). */
struct AdapterTiming {
  uint64_t mmio_latency_ps = 150'000;
  uint64_t dma_latency_ps = 400'000;
  /** Picoseconds per byte moved by the DMA engine (4 GB/s = 250). */
  double dma_ps_per_byte = 250.0;
  /** Picoseconds per byte on the link (2 GB/s = 500). */
  double link_ps_per_byte = 500.0;
  uint64_t interrupt_latency_ps = 2'000'000;
};

/** Hardware-side counters of one adapter (kAdapterCounterFields says what each is). */
struct AdapterCounters {
  uint64_t payload_dtb_waits = 0;
  uint64_t header_task_waits = 0;
  uint64_t dma_to_host = 0;
  uint64_t dma_from_host = 0;
  uint64_t dma_bytes = 0;
  uint64_t dma_address_errors = 0;
  uint64_t dma_to_freed_memory = 0;
  uint64_t input_queue_peak = 0;
  uint64_t link_queue_full = 0;
  uint64_t trace_events = 0;
  /**
   * Not in stats.json (the lifecycle workload reports dropped_by_reset in its results; the
   * link frame counts serve tests and the fuzz targets): DMA completions and payloads
   * discarded because the adapter was reset under them, and frames taken from and given to
   * the link.
   */
  uint64_t dropped_by_reset = 0;
  uint64_t frames_in = 0;
  uint64_t frames_out = 0;
};

/** The counters of AdapterCounters in stats.json (each adapter's entry) and what they count. */
inline constexpr std::array<CounterField<AdapterCounters>, 10> kAdapterCounterFields = {{
    {"payload_dtb_waits", &AdapterCounters::payload_dtb_waits,
     "payloads that had to wait for a free DTB"},
    {"header_task_waits", &AdapterCounters::header_task_waits,
     "headers that had to wait for a free receive task or channel buffer"},
    {"dma_to_host", &AdapterCounters::dma_to_host, "DMA writes into host memory"},
    {"dma_from_host", &AdapterCounters::dma_from_host, "DMA reads from host memory"},
    {"dma_bytes", &AdapterCounters::dma_bytes, "bytes moved by DMA, both directions"},
    {"dma_address_errors", &AdapterCounters::dma_address_errors,
     "DMAs that failed: an address outside host memory or in freed memory"},
    {"dma_to_freed_memory", &AdapterCounters::dma_to_freed_memory,
     "device writes aimed at host memory that had been freed (must stay zero)"},
    {"input_queue_peak", &AdapterCounters::input_queue_peak,
     "most frames waiting in the link's input queue at once"},
    {"link_queue_full", &AdapterCounters::link_queue_full,
     "times a transmit task found the link's output queue full and waited"},
    {"trace_events", &AdapterCounters::trace_events, "firmware trace events emitted"},
}};

/** Receives firmware trace events with the time and adapter they came from. */
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) = 0;
};

/**
 * Runs microcode entry points for a timed model (hw/systemc: a processor that charges each
 * call its cycles and may queue it). Without one, the functional model runs them at once.
 */
class MicrocodeExecutor {
 public:
  virtual ~MicrocodeExecutor() = default;
  /** Runs or queues `call`, a microcode entry point that became due now. */
  virtual void Execute(kernel::EventAction&& call) = 0;
  /** Runs every call already queued (an MMIO read waits for them). */
  virtual void Flush() = 0;
};

/** One adapter; functional timing unless a subclass overrides the hooks. */
class AdapterModel : public fw::Platform, public LinkSink {
 public:
  AdapterModel(kernel::EventQueue& events, host::HostMemory& host, uint16_t adapter_id, uint32_t line_bytes,
              const AdapterTiming& timing, const fw::MicrocodeConfig& microcode,
              const AdapterResources& resources = AdapterResources{});

  /** Device-to-host interrupt: (handler, the events pending when it was presented). */
  using InterruptFn =
      std::function<void(uint32_t handler, const std::vector<abi::InterruptEvent>& events)>;

  /** Where transmitted frames go. Must be set before traffic flows. */
  void ConnectFabric(FabricLink* port) { fabric_ = port; }
  void SetTraceSink(TraceSink* sink) {
    trace_ = sink;
    set_wants_state_events(sink != nullptr || TimesMicrocodeStates());
  }

  // Host-to-device: MMIO.
  void MmioWrite(uint64_t offset, uint64_t value);
  uint64_t MmioRead(uint64_t offset);
  /** Device-to-host: interrupt delivery. */
  void SetInterruptHandler(InterruptFn handler) { interrupt_handler_ = std::move(handler); }

  // LinkSink.
  void Receive(Frame frame) override;

  host::HostMemory& host() { return host_; }
  kernel::EventQueue& events() { return events_; }
  const fw::Counters& firmware_counters() const { return microcode_.counters(); }
  const fw::Microcode& microcode() const { return microcode_; }
  const AdapterCounters& counters() const { return counters_; }
  /** Free DTBs and header buffers now (all of them on an idle adapter: nothing leaked). */
  uint32_t free_dtbs() const { return free_dtbs_.size(); }
  uint32_t free_header_buffers() const { return free_header_buffers_.size(); }
  /** Backend-specific counters (name, value) for the stats; none unless a subclass has some. */
  virtual std::vector<std::pair<std::string_view, uint64_t>> ExtraCounters() const { return {}; }

  ~AdapterModel() override = default;

  // fw::Platform.
  uint16_t AdapterId() const override { return adapter_id_; }
  uint32_t CacheLineBytes() const override { return line_bytes_; }
  void SramRead(uint32_t addr, void* dst, uint32_t len) override;
  void SramWrite(uint32_t addr, const void* src, uint32_t len) override;
  uint64_t ReadGlobalReg(abi::GlobalReg reg) override;
  void WriteGlobalReg(abi::GlobalReg reg, uint64_t value) override;
  void StartDmaToHost(const fw::DmaToHost& request) override;
  void StartDmaFromHost(const fw::DmaFromHost& request) override;
  fw::DtbId AllocDtb() override;
  void ReleaseDtb(fw::DtbId dtb) override;
  fw::HeaderBufferId AllocHeaderBuffer() override;
  void ReleaseHeaderBuffer(fw::HeaderBufferId id) override;
  uint8_t* HeaderBuffer(fw::HeaderBufferId id) override;
  bool LinkHasRoom() override;
  void Transmit(const abi::WireHeader& header, fw::DtbId dtb, uint32_t len) override;
  void TransmitControl(const abi::WireHeader& header, const void* payload,
                       uint32_t len) override;
  void RaiseInterrupt(uint32_t handler, const std::vector<abi::InterruptEvent>& events) override;
  void RxResourcesFreed() override;
  void Trace(const fw::TraceEvent& event) override;

 protected:
  /** One DMA as the engine sees it. */
  struct DmaJob {
    bool to_host = true;
    uint64_t host_addr = 0;
    /** To host: the bytes to write (gathered at issue). */
    std::vector<uint8_t> data;
    /** From host: where the bytes land and how many. */
    uint8_t* dst = nullptr;
    uint32_t len = 0;
    uint32_t room = 0;
    fw::TaskId tag = fw::kNoTask;
  };

  /** Records a hardware event in the trace (only when a trace sink is attached). */
  void TraceHardware(fw::TraceKind kind, fw::TaskId task, uint32_t state, uint64_t value) {
#ifndef NICSIM_TRACE_COMPILED_OUT  // defined only by bench/trace_overhead's reference build
    // Inline, so a hardware event costs one test when tracing is off.
    if (trace_ != nullptr) RecordHardware(kind, task, state, value);
#else
    static_cast<void>(kind);
    static_cast<void>(task);
    static_cast<void>(state);
    static_cast<void>(value);
#endif
  }

  /** True if the model charges time per microcode state (it needs every state event). */
  virtual bool TimesMicrocodeStates() const { return false; }
  /** Timing hook: the current time as the hardware sees it. */
  virtual uint64_t NowPs() { return events_.now_ps(); }
  /**
   * Timing hook: microcode entry points go to `executor` from now on. Without one (the
   * functional model) they run at once, for free, with no callable built or dispatched.
   */
  void SetExecutor(MicrocodeExecutor* executor) { executor_ = executor; }
  /** Timing hook: moves a DMA through the engine and completes it (functional: serial engine). */
  virtual void RunDma(DmaJob job);
  /** Observer hook: a receive payload was given DTB `dtb` from the free list. */
  virtual void OnPayloadDtbTaken(fw::DtbId dtb) { static_cast<void>(dtb); }
  /** Observer hook: a DMA completed with `status` (before the microcode hears of it). */
  virtual void OnDmaCompleted(const DmaJob& job, fw::DmaStatus status) {
    static_cast<void>(job);
    static_cast<void>(status);
  }
  /** Observer hook: a hardware reset returned every DTB to the free list. */
  virtual void OnHardwareReset() {}
  /** Does the host memory access of a DMA; counts errors. */
  fw::DmaStatus PerformDma(DmaJob& job);
  /** The DMA status for a host memory access outcome; counts errors. */
  fw::DmaStatus DmaOutcome(host::HostMemory::Access access);
  /** Delivers a DMA completion to the microcode once the data is coherent. */
  void CompleteDma(const DmaJob& job, fw::DmaStatus status);
  uint64_t generation() const { return generation_; }
  /** True while a trace sink records events. */
  bool tracing() const { return trace_ != nullptr; }
  /** Counts a firmware event that was not built because nothing records it. */
  void CountTraceEvent() { ++counters_.trace_events; }
  void CountDroppedByReset() { ++counters_.dropped_by_reset; }
  fw::Microcode& mutable_microcode() { return microcode_; }

 private:
  /** Builds a hardware trace event and hands it to the trace sink (which is attached). */
  void RecordHardware(fw::TraceKind kind, fw::TaskId task, uint32_t state, uint64_t value);
  /** Runs a microcode entry point: at once, or through the executor when there is one. */
  template <typename F>
  void RunMicrocode(F&& call) {
    if (executor_ == nullptr) {
      call();
    } else {
      executor_->Execute(kernel::EventAction(std::forward<F>(call)));
    }
  }
  /** Runs every microcode call already handed to the executor (an MMIO read waits). */
  void FlushExecution() {
    if (executor_ != nullptr) executor_->Flush();
  }
  /** True if the microcode can take the header at the head of the input queue now. */
  bool HeadAcceptable() const;
  /** Hands queued headers to the microcode while it has free receive tasks. */
  void DispatchInput();
  /** Time the DMA engine finishes moving `bytes` queued behind earlier transfers. */
  uint64_t DmaDoneAt(uint64_t bytes);
  /** Delivers posted MMIO commands up to and including sequence number `seq`, in order. */
  void ApplyMmioThrough(uint64_t seq);
  fw::DmaStatus DmaFailed(host::HostMemory::Access access);
  /** Gives a free DTB to the oldest payload waiting for one. */
  void ServePayloadWaiters();
  /** Hardware reset: drops all in-flight work and closes every window. */
  void ResetAdapter();
  /** Forgets the frames in the link's output queue that have gone out by now. */
  void DropSentFrames();
  /** Wakes link waiters when the oldest queued frame has gone out (once per batch). */
  void ScheduleLinkWake();
  /** Puts a frame on the link and into the fabric. */
  void SendFrame(Frame frame, uint16_t dest_adapter);
  /** Fresh, zeroed SRAM. */
  void ClearSram();

  /** A payload that arrived (or will) for an accepted header, waiting for a DTB. */
  struct PendingPayload {
    fw::TaskId task;
    /** The whole frame: header, then payload. */
    std::vector<uint8_t> frame;
    uint64_t arrive_ps;
  };

  kernel::EventQueue& events_;
  host::HostMemory& host_;
  uint16_t adapter_id_;
  uint32_t line_bytes_;
  AdapterTiming timing_;
  /** Adapter SRAM; calloc'd so a large rCxt pool costs memory only where it is used. */
  struct FreeDeleter {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, FreeDeleter> sram_;
  uint64_t sram_bytes_ = 0;
  uint64_t global_regs_[static_cast<size_t>(abi::GlobalReg::kCount)] = {};
  /** Data transfer buffers, each a full receive frame. */
  std::vector<std::vector<uint8_t>> dtbs_;
  FreeList<fw::DtbId, fw::kNoDtb> free_dtbs_;
  std::vector<std::vector<uint8_t>> header_buffers_;
  FreeList<fw::HeaderBufferId, fw::kNoHeaderBuffer> free_header_buffers_;
  std::deque<PendingPayload> payload_waiters_;
  /** A DMA in the functional engine, and the reset generation it was started in. */
  struct PendingDma {
    DmaJob job;
    uint64_t generation = 0;
  };
  SlotPool<PendingDma> dma_slots_;
  struct PendingMmio {
    uint64_t seq;
    uint64_t offset;
    uint64_t value;
  };
  /** Posted window and global commands still on their way to the adapter. */
  std::deque<PendingMmio> pending_mmio_;
  uint64_t mmio_posted_ = 0;
  /** Bumped by a reset; events scheduled before it are discarded. */
  uint64_t generation_ = 0;
  /** Frames whose header arrived while every receive task was busy. */
  /** A frame whose header reached the adapter at `header_ps`. */
  struct Arrived {
    Frame frame;
    uint64_t header_ps;
  };
  std::deque<Arrived> input_;
  bool dispatch_pending_ = false;
  uint64_t dma_busy_until_ps_ = 0;
  uint64_t link_busy_until_ps_ = 0;
  /** When each frame in the link's output queue finishes going out, oldest first. */
  std::deque<uint64_t> link_queue_;
  uint32_t link_queue_frames_;
  /** Transmit tasks told the link is full and not yet woken; whether a wake-up is due. */
  uint32_t link_waiters_ = 0;
  bool link_wake_pending_ = false;
  FabricLink* fabric_ = nullptr;
  TraceSink* trace_ = nullptr;
  MicrocodeExecutor* executor_ = nullptr;
  InterruptFn interrupt_handler_;
  AdapterCounters counters_;
  fw::Microcode microcode_;
};

}  // namespace nicsim::hw::func
