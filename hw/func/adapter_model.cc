// SPDX-License-Identifier: Apache-2.0
// Functional adapter: every hardware service the microcode uses, on one event queue.
// DMA is one shared engine (serialised, then a fixed latency); data lands at completion,
// which is this model's point of coherence. A reset bumps a generation number so that work
// scheduled before it is discarded when its event fires.
#include "hw/func/adapter_model.h"

#include <algorithm>
#include <cstring>

#include "abi/limits.h"
#include "abi/mmio.h"
#include "base/check.h"
#include "hw/common/byte_recycler.h"
#include "hw/common/frame_codec.h"

namespace nicsim::hw::func {
namespace {
constexpr uint32_t kHeaderBufferBytes = 128;
}  // namespace

AdapterModel::AdapterModel(kernel::EventQueue& events, host::HostMemory& host, uint16_t adapter_id,
                         uint32_t line_bytes, const AdapterTiming& timing,
                         const fw::MicrocodeConfig& microcode, const AdapterResources& resources)
    : events_(events),
      host_(host),
      adapter_id_(adapter_id),
      line_bytes_(line_bytes),
      timing_(timing),
      sram_bytes_(abi::SramBytesFor(microcode.rcxts)),
      link_queue_frames_(resources.link_queue_frames),
      microcode_(*this, microcode) {
  ClearSram();
  set_wants_state_events(false);  // until a trace is attached (SetTraceSink)
  NICSIM_CHECK(abi::IsValidCacheLine(line_bytes), "cache line %u", line_bytes);
  NICSIM_CHECK(resources.dtbs > 0 && resources.header_buffers > 0 &&
                   resources.link_queue_frames > 0,
               "adapter buffers");
  dtbs_.assign(resources.dtbs, std::vector<uint8_t>(abi::kRecvFrameBytes));
  free_dtbs_.Reset(resources.dtbs);
  header_buffers_.assign(resources.header_buffers, std::vector<uint8_t>(kHeaderBufferBytes));
  free_header_buffers_.Reset(resources.header_buffers);
}

void AdapterModel::MmioWrite(uint64_t offset, uint64_t value) {
  // SRAM accesses are served by hardware without the microcode.
  if (offset + sizeof(value) <= abi::kMmioSramBase + sram_bytes_) {
    std::memcpy(sram_.get() + (offset - abi::kMmioSramBase), &value, sizeof(value));
    return;
  }
  const uint64_t seq = ++mmio_posted_;
  pending_mmio_.push_back(PendingMmio{seq, offset, value});
  events_.After(timing_.mmio_latency_ps, [this, seq] { ApplyMmioThrough(seq); });
}

void AdapterModel::ApplyMmioThrough(uint64_t seq) {
  while (!pending_mmio_.empty() && pending_mmio_.front().seq <= seq) {
    const PendingMmio cmd = pending_mmio_.front();
    pending_mmio_.pop_front();
    if (cmd.offset == abi::GlobalCommandOffset(abi::GlobalCommand::kResetAdapter)) {
      ResetAdapter();
    } else {
      RunMicrocode([this, cmd] { microcode_.OnMmioCommand(cmd.offset, cmd.value); });
    }
  }
}

uint64_t AdapterModel::MmioRead(uint64_t offset) {
  // A read does not pass posted writes: every command written before it lands first.
  ApplyMmioThrough(mmio_posted_);
  FlushExecution();
  uint64_t value = ~uint64_t{0};
  if (offset + sizeof(value) <= abi::kMmioSramBase + sram_bytes_) {
    std::memcpy(&value, sram_.get() + (offset - abi::kMmioSramBase), sizeof(value));
  } else if (offset >= abi::kMmioRegisterBase && offset % 8 == 0 &&
             offset < abi::GlobalRegOffset(abi::GlobalReg::kCount)) {
    value = global_regs_[(offset - abi::kMmioRegisterBase) / 8];
  }
  return value;
}

void AdapterModel::ResetAdapter() {
  ++generation_;
  counters_.dropped_by_reset += input_.size() + payload_waiters_.size();
  input_.clear();
  payload_waiters_.clear();
  dispatch_pending_ = false;
  link_waiters_ = 0;  // the microcode drops its waiting tasks
  link_wake_pending_ = false;
  free_dtbs_.Reset(static_cast<uint32_t>(dtbs_.size()));
  free_header_buffers_.Reset(static_cast<uint32_t>(header_buffers_.size()));
  // Every LMT reads closed until the driver reopens windows.
  ClearSram();
  for (uint64_t& r : global_regs_) r = 0;
  microcode_.Reset();
  OnHardwareReset();
}

void AdapterModel::ClearSram() {
  sram_.reset(static_cast<uint8_t*>(std::calloc(sram_bytes_, 1)));
  NICSIM_CHECK(sram_ != nullptr, "no memory for %llu bytes of SRAM",
               static_cast<unsigned long long>(sram_bytes_));
}

void AdapterModel::Receive(Frame frame) {
  ++counters_.frames_in;
  TraceHardware(fw::TraceKind::kFrameIn, fw::kNoTask, 0, frame.bytes.size());
  input_.push_back(Arrived{std::move(frame), events_.now_ps()});
  if (input_.size() > 1 || !HeadAcceptable()) ++counters_.header_task_waits;
  counters_.input_queue_peak = std::max<uint64_t>(counters_.input_queue_peak, input_.size());
  RunMicrocode([this] { DispatchInput(); });
}

bool AdapterModel::HeadAcceptable() const {
  const std::vector<uint8_t>& b = input_.front().frame.bytes;
  return microcode_.CanAcceptHeader(
      b.data(), static_cast<uint32_t>(std::min<size_t>(b.size(), fw::kHeaderRegisterBytes)));
}

void AdapterModel::DispatchInput() {
  while (!input_.empty() && HeadAcceptable()) {
    Frame frame = std::move(input_.front().frame);
    // The payload streams in behind its header whatever the microcode is doing.
    const uint64_t header_ps = input_.front().header_ps;
    input_.pop_front();
    const size_t size = frame.bytes.size();
    // The header and the first payload bytes land in the receive task's registers.
    const uint32_t header_len =
        static_cast<uint32_t>(std::min<size_t>(size, fw::kHeaderRegisterBytes));
    const uint32_t payload_len =
        size > sizeof(abi::WireHeader) ? static_cast<uint32_t>(size - sizeof(abi::WireHeader)) : 0;
    // An untouched frame from a simulated link checks by construction.
    const bool crc_ok = frame.crc_deferred || FrameCrcOk(frame.bytes.data(), size);
    const fw::TaskId task =
        microcode_.OnHeaderArrived(frame.bytes.data(), header_len, payload_len, crc_ok);
    if (task == fw::kNoTask || payload_len == 0) continue;  // dropped: payload discarded
    // The payload streams in behind the header and needs a DTB to land in (the frame is kept
    // whole; the payload starts after its header).
    const uint64_t arrive =
        header_ps + static_cast<uint64_t>(payload_len * timing_.link_ps_per_byte);
    if (!payload_waiters_.empty() || free_dtbs_.empty()) ++counters_.payload_dtb_waits;
    payload_waiters_.push_back(PendingPayload{task, std::move(frame.bytes), arrive});
    ServePayloadWaiters();
  }
}

void AdapterModel::ServePayloadWaiters() {
  while (!payload_waiters_.empty() && !free_dtbs_.empty()) {
    PendingPayload p = std::move(payload_waiters_.front());
    payload_waiters_.pop_front();
    const fw::DtbId dtb = free_dtbs_.Take();
    OnPayloadDtbTaken(dtb);
    std::memcpy(dtbs_[dtb].data(), p.frame.data() + sizeof(abi::WireHeader),
                p.frame.size() - sizeof(abi::WireHeader));
    Recycle(std::move(p.frame));
    const auto gen = static_cast<uint32_t>(generation_);  // small closures: no allocation
    events_.At(p.arrive_ps, [this, task = p.task, dtb, gen] {
      if (gen != static_cast<uint32_t>(generation_)) {
        ++counters_.dropped_by_reset;
        return;
      }
      RunMicrocode([this, task, dtb, gen] {
        if (gen == static_cast<uint32_t>(generation_)) microcode_.OnPayloadArrived(task, dtb);
      });
    });
  }
}

void AdapterModel::SramRead(uint32_t addr, void* dst, uint32_t len) {
  NICSIM_CHECK(uint64_t{addr} + len <= sram_bytes_, "SRAM read out of range");
  std::memcpy(dst, sram_.get() + addr, len);
}

void AdapterModel::SramWrite(uint32_t addr, const void* src, uint32_t len) {
  NICSIM_CHECK(uint64_t{addr} + len <= sram_bytes_, "SRAM write out of range");
  std::memcpy(sram_.get() + addr, src, len);
}

uint64_t AdapterModel::ReadGlobalReg(abi::GlobalReg reg) {
  return global_regs_[static_cast<size_t>(reg)];
}

void AdapterModel::WriteGlobalReg(abi::GlobalReg reg, uint64_t value) {
  global_regs_[static_cast<size_t>(reg)] = value;
}

uint64_t AdapterModel::DmaDoneAt(uint64_t bytes) {
  const uint64_t start = std::max(NowPs(), dma_busy_until_ps_);
  dma_busy_until_ps_ = start + static_cast<uint64_t>(bytes * timing_.dma_ps_per_byte);
  return dma_busy_until_ps_ + timing_.dma_latency_ps;
}

void AdapterModel::StartDmaToHost(const fw::DmaToHost& req) {
  ++counters_.dma_to_host;
  // Gather the source now: the engine reads adapter memory as the transfer is queued.
  DmaJob job;
  job.to_host = true;
  job.host_addr = req.host_addr;
  job.tag = req.tag;
  job.len = req.prefix_len + req.dtb_len;
  job.data = RecycledStaging(job.len);
  std::memcpy(job.data.data(), req.prefix, req.prefix_len);
  if (req.dtb_len > 0) {
    NICSIM_CHECK(req.dtb < dtbs_.size() && req.dtb_offset + req.dtb_len <= abi::kRecvFrameBytes,
                 "DMA from DTB %u out of range", req.dtb);
    std::memcpy(job.data.data() + req.prefix_len, dtbs_[req.dtb].data() + req.dtb_offset,
                req.dtb_len);
  }
  counters_.dma_bytes += job.len;
  TraceHardware(fw::TraceKind::kDmaStart, job.tag, 0, job.len);
  RunDma(std::move(job));
}

void AdapterModel::StartDmaFromHost(const fw::DmaFromHost& req) {
  ++counters_.dma_from_host;
  counters_.dma_bytes += req.len;
  const bool to_header = req.target == fw::DmaTarget::kHeaderBuffer;
  NICSIM_CHECK(to_header ? req.header_buffer < header_buffers_.size() : req.dtb < dtbs_.size(),
               "DMA into a buffer that does not exist");
  DmaJob job;
  job.to_host = false;
  job.host_addr = req.host_addr;
  job.tag = req.tag;
  job.len = req.len;
  const uint32_t offset = to_header ? req.header_offset : req.dtb_offset;
  const uint32_t size = to_header ? kHeaderBufferBytes : abi::kRecvFrameBytes;
  NICSIM_CHECK(offset <= size, "DMA offset %u beyond the buffer", offset);
  job.dst = (to_header ? header_buffers_[req.header_buffer].data() : dtbs_[req.dtb].data()) +
            offset;
  job.room = size - offset;
  TraceHardware(fw::TraceKind::kDmaStart, job.tag, 1, job.len);
  RunDma(std::move(job));
}

void AdapterModel::RunDma(DmaJob job) {
  // Jobs wait in reusable slots, so the event is a small closure (no allocation per DMA).
  const uint64_t done_ps = DmaDoneAt(job.len);
  const uint32_t slot = dma_slots_.Park(PendingDma{std::move(job), generation_});
  events_.At(done_ps, [this, slot] {
    PendingDma& pending = dma_slots_[slot];
    if (pending.generation != generation_) {
      ++counters_.dropped_by_reset;
    } else {
      const fw::DmaStatus status = PerformDma(pending.job);
      // CompleteDma may start new DMAs (growing dma_slots_) only in its last step.
      CompleteDma(pending.job, status);
      RecycleStaging(std::move(dma_slots_[slot].job.data));
    }
    dma_slots_.Release(slot);
  });
}

fw::DmaStatus AdapterModel::PerformDma(DmaJob& job) {
  if (!job.to_host && job.len > job.room) return DmaFailed(host::HostMemory::Access::kOutOfRange);
  return DmaOutcome(job.to_host ? host_.DeviceWrite(job.host_addr, job.data.data(), job.len)
                                : host_.DeviceRead(job.host_addr, job.dst, job.len));
}

fw::DmaStatus AdapterModel::DmaOutcome(host::HostMemory::Access access) {
  return access == host::HostMemory::Access::kOk ? fw::DmaStatus::kOk : DmaFailed(access);
}

fw::DmaStatus AdapterModel::DmaFailed(host::HostMemory::Access access) {
  ++counters_.dma_address_errors;
  if (access == host::HostMemory::Access::kFreed) ++counters_.dma_to_freed_memory;
  return fw::DmaStatus::kAddressError;
}

void AdapterModel::CompleteDma(const DmaJob& job, fw::DmaStatus status) {
  OnDmaCompleted(job, status);
  // The data is coherent now: a CPU spinning on it sees it, and the task may go on.
  if (job.to_host && status == fw::DmaStatus::kOk) host_.NotifyDeviceWrite(job.host_addr, job.len);
  TraceHardware(fw::TraceKind::kDmaDone, job.tag, job.to_host ? 0 : 1,
                static_cast<uint64_t>(status));
  // A 32-bit generation keeps the closure small enough to need no allocation.
  const auto gen = static_cast<uint32_t>(generation_);
  RunMicrocode([this, tag = job.tag, status, gen] {
    if (gen == static_cast<uint32_t>(generation_)) microcode_.OnDmaComplete(tag, status);
  });
}

fw::DtbId AdapterModel::AllocDtb() {
  // Payloads already waiting for a DTB are served first.
  return payload_waiters_.empty() ? free_dtbs_.Take() : fw::kNoDtb;
}

void AdapterModel::ReleaseDtb(fw::DtbId dtb) {
  NICSIM_CHECK(dtb < dtbs_.size(), "release of DTB %u", dtb);
  free_dtbs_.Put(dtb);
  ServePayloadWaiters();
}

fw::HeaderBufferId AdapterModel::AllocHeaderBuffer() {
  return free_header_buffers_.Take();
}

void AdapterModel::ReleaseHeaderBuffer(fw::HeaderBufferId id) {
  NICSIM_CHECK(id < header_buffers_.size(), "release of header buffer %u", id);
  free_header_buffers_.Put(id);
}

uint8_t* AdapterModel::HeaderBuffer(fw::HeaderBufferId id) {
  NICSIM_CHECK(id < header_buffers_.size(), "header buffer %u", id);
  return header_buffers_[id].data();
}

void AdapterModel::DropSentFrames() {
  const uint64_t now = NowPs();
  while (!link_queue_.empty() && link_queue_.front() <= now) link_queue_.pop_front();
}

bool AdapterModel::LinkHasRoom() {
  DropSentFrames();
  if (link_queue_.size() < link_queue_frames_) return true;
  // The microcode suspends one task for each false answer; each gets one wake-up.
  ++link_waiters_;
  ++counters_.link_queue_full;
  ScheduleLinkWake();
  return false;
}

void AdapterModel::ScheduleLinkWake() {
  if (link_wake_pending_) return;
  link_wake_pending_ = true;
  const auto gen = static_cast<uint32_t>(generation_);
  // With every queued frame gone (a one-frame queue and several waiters), wake at once.
  const uint64_t at = link_queue_.empty() ? NowPs() : link_queue_.front();
  events_.At(at, [this, gen] {
    if (gen != static_cast<uint32_t>(generation_)) return;
    link_wake_pending_ = false;
    DropSentFrames();
    const auto room = static_cast<uint32_t>(link_queue_frames_ - link_queue_.size());
    const uint32_t woken = std::min(room, link_waiters_);
    link_waiters_ -= woken;
    RunMicrocode([this, gen, woken] {
      if (gen != static_cast<uint32_t>(generation_)) return;
      for (uint32_t i = 0; i < woken; ++i) microcode_.OnLinkRoom();
    });
    if (link_waiters_ > 0) ScheduleLinkWake();
  });
}

void AdapterModel::Transmit(const abi::WireHeader& header, fw::DtbId dtb, uint32_t len) {
  Frame frame;
  frame.src_adapter = adapter_id_;
  frame.dest_adapter = header.dest_adapter;
  // The link computes the CRC as the frame streams out; the simulation defers the arithmetic
  // until something alters or inspects the frame.
  frame.bytes = EncodeFrameUnstamped(header, len > 0 ? dtbs_[dtb].data() : nullptr, len);
  SendFrame(std::move(frame), header.dest_adapter);
}

void AdapterModel::TransmitControl(const abi::WireHeader& header, const void* payload,
                                   uint32_t len) {
  NICSIM_CHECK(len <= fw::kControlPayloadBytes, "control payload of %u bytes", len);
  Frame frame;
  frame.src_adapter = adapter_id_;
  frame.dest_adapter = header.dest_adapter;
  frame.bytes = EncodeFrameUnstamped(header, static_cast<const uint8_t*>(payload), len);
  SendFrame(std::move(frame), header.dest_adapter);
}

void AdapterModel::SendFrame(Frame frame, uint16_t dest_adapter) {
  frame.crc_deferred = true;
  const uint64_t start = std::max(NowPs(), link_busy_until_ps_);
  link_busy_until_ps_ =
      start + static_cast<uint64_t>(frame.bytes.size() * timing_.link_ps_per_byte);
  DropSentFrames();
  link_queue_.push_back(link_busy_until_ps_);
  ++counters_.frames_out;
  TraceHardware(fw::TraceKind::kLinkOut, fw::kNoTask, dest_adapter, frame.bytes.size());
  NICSIM_CHECK(fabric_ != nullptr, "adapter %u transmits with no fabric", adapter_id_);
  fabric_->Send(std::move(frame), link_busy_until_ps_);
}

void AdapterModel::RaiseInterrupt(uint32_t handler,
                                 const std::vector<abi::InterruptEvent>& events) {
  const uint64_t gen = generation_;
  events_.At(NowPs() + timing_.interrupt_latency_ps, [this, handler, events, gen] {
    if (gen != generation_) return;
    if (interrupt_handler_) interrupt_handler_(handler, events);
  });
}

void AdapterModel::RxResourcesFreed() {
  if (dispatch_pending_ || input_.empty()) return;
  dispatch_pending_ = true;
  const uint64_t gen = generation_;
  events_.At(NowPs(), [this, gen] {
    if (gen != generation_) return;
    dispatch_pending_ = false;
    RunMicrocode([this, gen] {
      if (gen == generation_) DispatchInput();
    });
  });
}

void AdapterModel::RecordHardware(fw::TraceKind kind, fw::TaskId task, uint32_t state,
                                  uint64_t value) {
  fw::TraceEvent ev;
  ev.kind = kind;
  ev.task = task;
  ev.state = state;
  ev.value = value;
  trace_->Record(NowPs(), adapter_id_, ev);
}

// NICSIM_TRACE_COMPILED_OUT is defined only by bench/trace_overhead's reference build, which
// measures what tracing costs when it is off: there, Trace does nothing.
void AdapterModel::Trace(const fw::TraceEvent& event) {
#ifndef NICSIM_TRACE_COMPILED_OUT
  ++counters_.trace_events;
  if (trace_ != nullptr) trace_->Record(NowPs(), adapter_id_, event);
#else
  static_cast<void>(event);
#endif
}

}  // namespace nicsim::hw::func
