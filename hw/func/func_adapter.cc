// SPDX-License-Identifier: Apache-2.0
// Functional adapter: every hardware service the microcode uses, on one event queue.
// DMA is one shared engine (serialised, then a fixed latency); data lands at completion,
// which is this model's point of coherence. A reset bumps a generation number so that work
// scheduled before it is discarded when its event fires.
#include "hw/func/func_adapter.h"

#include <algorithm>
#include <cstring>

#include "abi/limits.h"
#include "abi/mmio.h"
#include "base/check.h"
#include "hw/common/frame_codec.h"

namespace nicsim::hw::func {
namespace {
constexpr uint32_t kHeaderBufferBytes = 128;
}  // namespace

FuncAdapter::FuncAdapter(EventQueue& events, HostMemory& host, uint16_t adapter_id,
                         uint32_t line_bytes, const FuncTiming& timing,
                         const fw::MicrocodeConfig& microcode, const FuncResources& resources)
    : events_(events),
      host_(host),
      adapter_id_(adapter_id),
      line_bytes_(line_bytes),
      timing_(timing),
      sram_(abi::kSramBytes, 0),
      microcode_(*this, microcode) {
  NICSIM_CHECK(abi::IsValidCacheLine(line_bytes), "cache line %u", line_bytes);
  NICSIM_CHECK(resources.dtbs > 0 && resources.header_buffers > 0, "adapter buffers");
  dtbs_.assign(resources.dtbs, std::vector<uint8_t>(abi::kRecvFrameBytes));
  for (uint32_t i = resources.dtbs; i > 0; --i) free_dtbs_.push_back(static_cast<fw::DtbId>(i - 1));
  header_buffers_.assign(resources.header_buffers, std::vector<uint8_t>(kHeaderBufferBytes));
  for (uint32_t i = resources.header_buffers; i > 0; --i) {
    free_header_buffers_.push_back(static_cast<fw::HeaderBufferId>(i - 1));
  }
}

void FuncAdapter::MmioWrite(uint64_t offset, uint64_t value) {
  // SRAM accesses are served by hardware without the microcode.
  if (offset + sizeof(value) <= abi::kMmioSramBase + abi::kSramBytes) {
    std::memcpy(&sram_[offset - abi::kMmioSramBase], &value, sizeof(value));
    return;
  }
  const uint64_t seq = ++mmio_posted_;
  pending_mmio_.push_back(PendingMmio{seq, offset, value});
  events_.After(timing_.mmio_latency_ps, [this, seq] { ApplyMmioThrough(seq); });
}

void FuncAdapter::ApplyMmioThrough(uint64_t seq) {
  while (!pending_mmio_.empty() && pending_mmio_.front().seq <= seq) {
    const PendingMmio cmd = pending_mmio_.front();
    pending_mmio_.pop_front();
    if (cmd.offset == abi::GlobalCommandOffset(abi::GlobalCommand::kResetAdapter)) {
      ResetAdapter();
    } else {
      microcode_.OnMmioCommand(cmd.offset, cmd.value);
    }
  }
}

uint64_t FuncAdapter::MmioRead(uint64_t offset) {
  // A read does not pass posted writes: every command written before it lands first.
  ApplyMmioThrough(mmio_posted_);
  uint64_t value = ~uint64_t{0};
  if (offset + sizeof(value) <= abi::kMmioSramBase + abi::kSramBytes) {
    std::memcpy(&value, &sram_[offset - abi::kMmioSramBase], sizeof(value));
  } else if (offset >= abi::kMmioRegisterBase && offset % 8 == 0 &&
             offset < abi::GlobalRegOffset(abi::GlobalReg::kCount)) {
    value = global_regs_[(offset - abi::kMmioRegisterBase) / 8];
  }
  return value;
}

void FuncAdapter::ResetAdapter() {
  ++generation_;
  counters_.dropped_by_reset += input_.size() + payload_waiters_.size();
  input_.clear();
  payload_waiters_.clear();
  dispatch_pending_ = false;
  free_dtbs_.clear();
  for (size_t i = dtbs_.size(); i > 0; --i) free_dtbs_.push_back(static_cast<fw::DtbId>(i - 1));
  free_header_buffers_.clear();
  for (size_t i = header_buffers_.size(); i > 0; --i) {
    free_header_buffers_.push_back(static_cast<fw::HeaderBufferId>(i - 1));
  }
  // Every LMT reads closed until the driver reopens windows.
  std::fill(sram_.begin(), sram_.end(), 0);
  for (uint64_t& r : global_regs_) r = 0;
  microcode_.Reset();
}

void FuncAdapter::Receive(Frame frame) {
  ++counters_.frames_in;
  input_.push_back(std::move(frame));
  if (input_.size() > 1 || !HeadAcceptable()) ++counters_.header_task_waits;
  counters_.input_queue_peak = std::max<uint64_t>(counters_.input_queue_peak, input_.size());
  DispatchInput();
}

bool FuncAdapter::HeadAcceptable() const {
  const std::vector<uint8_t>& b = input_.front().bytes;
  return microcode_.CanAcceptHeader(
      b.data(), static_cast<uint32_t>(std::min(b.size(), sizeof(abi::WireHeader))));
}

void FuncAdapter::DispatchInput() {
  while (!input_.empty() && HeadAcceptable()) {
    Frame frame = std::move(input_.front());
    input_.pop_front();
    const size_t size = frame.bytes.size();
    const uint32_t header_len = static_cast<uint32_t>(std::min(size, sizeof(abi::WireHeader)));
    const uint32_t payload_len =
        size > sizeof(abi::WireHeader) ? static_cast<uint32_t>(size - sizeof(abi::WireHeader)) : 0;
    const bool crc_ok = FrameCrcOk(frame.bytes.data(), size);
    const fw::TaskId task =
        microcode_.OnHeaderArrived(frame.bytes.data(), header_len, payload_len, crc_ok);
    if (task == fw::kNoTask || payload_len == 0) continue;  // dropped: payload discarded
    // The payload streams in behind the header and needs a DTB to land in.
    frame.bytes.erase(frame.bytes.begin(), frame.bytes.begin() + sizeof(abi::WireHeader));
    const uint64_t arrive =
        events_.now_ps() + static_cast<uint64_t>(payload_len * timing_.link_ps_per_byte);
    if (!payload_waiters_.empty() || free_dtbs_.empty()) ++counters_.payload_dtb_waits;
    payload_waiters_.push_back(PendingPayload{task, std::move(frame.bytes), arrive});
    ServePayloadWaiters();
  }
}

void FuncAdapter::ServePayloadWaiters() {
  while (!payload_waiters_.empty() && !free_dtbs_.empty()) {
    PendingPayload p = std::move(payload_waiters_.front());
    payload_waiters_.pop_front();
    const fw::DtbId dtb = free_dtbs_.back();
    free_dtbs_.pop_back();
    std::memcpy(dtbs_[dtb].data(), p.bytes.data(), p.bytes.size());
    const uint64_t gen = generation_;
    events_.At(p.arrive_ps, [this, task = p.task, dtb, gen] {
      if (gen != generation_) {
        ++counters_.dropped_by_reset;
        return;
      }
      microcode_.OnPayloadArrived(task, dtb);
    });
  }
}

void FuncAdapter::SramRead(uint32_t addr, void* dst, uint32_t len) {
  NICSIM_CHECK(uint64_t{addr} + len <= sram_.size(), "SRAM read out of range");
  std::memcpy(dst, &sram_[addr], len);
}

void FuncAdapter::SramWrite(uint32_t addr, const void* src, uint32_t len) {
  NICSIM_CHECK(uint64_t{addr} + len <= sram_.size(), "SRAM write out of range");
  std::memcpy(&sram_[addr], src, len);
}

uint64_t FuncAdapter::ReadGlobalReg(abi::GlobalReg reg) {
  return global_regs_[static_cast<size_t>(reg)];
}

void FuncAdapter::WriteGlobalReg(abi::GlobalReg reg, uint64_t value) {
  global_regs_[static_cast<size_t>(reg)] = value;
}

uint64_t FuncAdapter::DmaDoneAt(uint64_t bytes) {
  const uint64_t start = std::max(events_.now_ps(), dma_busy_until_ps_);
  dma_busy_until_ps_ = start + static_cast<uint64_t>(bytes * timing_.dma_ps_per_byte);
  return dma_busy_until_ps_ + timing_.dma_latency_ps;
}

void FuncAdapter::StartDmaToHost(const fw::DmaToHost& req) {
  ++counters_.dma_to_host;
  // Gather the source now: the engine reads adapter memory as the transfer is queued.
  std::vector<uint8_t> data(req.prefix_len + req.dtb_len);
  std::memcpy(data.data(), req.prefix, req.prefix_len);
  if (req.dtb_len > 0) {
    NICSIM_CHECK(req.dtb < dtbs_.size() && req.dtb_offset + req.dtb_len <= abi::kRecvFrameBytes,
                 "DMA from DTB %u out of range", req.dtb);
    std::memcpy(data.data() + req.prefix_len, dtbs_[req.dtb].data() + req.dtb_offset,
                req.dtb_len);
  }
  counters_.dma_bytes += data.size();
  const uint64_t gen = generation_;
  events_.At(DmaDoneAt(data.size()), [this, req, gen, data = std::move(data)] {
    if (gen != generation_) {
      ++counters_.dropped_by_reset;
      return;
    }
    fw::DmaStatus status = fw::DmaStatus::kOk;
    uint8_t* dst = host_.Translate(req.host_addr, data.size());
    if (dst != nullptr && !host_.IsAllocated(req.host_addr, data.size())) {
      // Memory the driver already released: a use-after-free by the device.
      ++counters_.dma_to_freed_memory;
      dst = nullptr;
    }
    if (dst != nullptr) {
      std::memcpy(dst, data.data(), data.size());
      host_.NotifyDeviceWrite(req.host_addr, data.size());
    } else {
      ++counters_.dma_address_errors;
      status = fw::DmaStatus::kAddressError;
    }
    microcode_.OnDmaComplete(req.tag, status);
  });
}

void FuncAdapter::StartDmaFromHost(const fw::DmaFromHost& req) {
  ++counters_.dma_from_host;
  counters_.dma_bytes += req.len;
  const uint64_t gen = generation_;
  events_.At(DmaDoneAt(req.len), [this, req, gen] {
    if (gen != generation_) {
      ++counters_.dropped_by_reset;
      return;
    }
    fw::DmaStatus status = fw::DmaStatus::kOk;
    const bool to_header = req.target == fw::DmaTarget::kHeaderBuffer;
    NICSIM_CHECK(to_header ? req.header_buffer < header_buffers_.size() : req.dtb < dtbs_.size(),
                 "DMA into a buffer that does not exist");
    uint8_t* dst = to_header ? header_buffers_[req.header_buffer].data()
                             : dtbs_[req.dtb].data() + req.dtb_offset;
    const uint32_t room = to_header ? kHeaderBufferBytes : abi::kRecvFrameBytes - req.dtb_offset;
    const uint8_t* src = host_.Translate(req.host_addr, req.len);
    if (src != nullptr && req.len <= room) {
      std::memcpy(dst, src, req.len);
    } else {
      ++counters_.dma_address_errors;
      status = fw::DmaStatus::kAddressError;
    }
    microcode_.OnDmaComplete(req.tag, status);
  });
}

fw::DtbId FuncAdapter::AllocDtb() {
  // Payloads already waiting for a DTB are served first.
  if (free_dtbs_.empty() || !payload_waiters_.empty()) return fw::kNoDtb;
  const fw::DtbId dtb = free_dtbs_.back();
  free_dtbs_.pop_back();
  return dtb;
}

void FuncAdapter::ReleaseDtb(fw::DtbId dtb) {
  NICSIM_CHECK(dtb < dtbs_.size(), "release of DTB %u", dtb);
  free_dtbs_.push_back(dtb);
  ServePayloadWaiters();
}

fw::HeaderBufferId FuncAdapter::AllocHeaderBuffer() {
  if (free_header_buffers_.empty()) return fw::kNoHeaderBuffer;
  const fw::HeaderBufferId id = free_header_buffers_.back();
  free_header_buffers_.pop_back();
  return id;
}

void FuncAdapter::ReleaseHeaderBuffer(fw::HeaderBufferId id) {
  NICSIM_CHECK(id < header_buffers_.size(), "release of header buffer %u", id);
  free_header_buffers_.push_back(id);
}

uint8_t* FuncAdapter::HeaderBuffer(fw::HeaderBufferId id) {
  NICSIM_CHECK(id < header_buffers_.size(), "header buffer %u", id);
  return header_buffers_[id].data();
}

void FuncAdapter::Transmit(const abi::WireHeader& header, fw::DtbId dtb, uint32_t len) {
  Frame frame;
  frame.src_adapter = adapter_id_;
  frame.dest_adapter = header.dest_adapter;
  // The link computes the CRC as the frame streams out.
  frame.bytes = EncodeFrame(header, len > 0 ? dtbs_[dtb].data() : nullptr, len);
  const uint64_t start = std::max(events_.now_ps(), link_busy_until_ps_);
  link_busy_until_ps_ =
      start + static_cast<uint64_t>(frame.bytes.size() * timing_.link_ps_per_byte);
  ++counters_.frames_out;
  NICSIM_CHECK(fabric_ != nullptr, "adapter %u transmits with no fabric", adapter_id_);
  fabric_->Send(std::move(frame), link_busy_until_ps_);
}

void FuncAdapter::RaiseInterrupt(uint32_t handler,
                                 const std::vector<abi::InterruptEvent>& events) {
  const uint64_t gen = generation_;
  events_.After(timing_.interrupt_latency_ps, [this, handler, events, gen] {
    if (gen != generation_) return;
    if (interrupt_handler_) interrupt_handler_(handler, events);
  });
}

void FuncAdapter::RxResourcesFreed() {
  if (dispatch_pending_ || input_.empty()) return;
  dispatch_pending_ = true;
  const uint64_t gen = generation_;
  events_.After(0, [this, gen] {
    if (gen != generation_) return;
    dispatch_pending_ = false;
    DispatchInput();
  });
}

void FuncAdapter::Trace(const fw::TraceEvent& event) {
  ++counters_.trace_events;
  if (trace_ != nullptr) trace_->Record(events_.now_ps(), adapter_id_, event);
}

}  // namespace nicsim::hw::func
