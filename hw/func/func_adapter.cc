// SPDX-License-Identifier: Apache-2.0
// Functional adapter: every hardware service the microcode uses, on one event queue.
// DMA is one shared engine (serialised, then a fixed latency); data lands at completion,
// which is this model's point of coherence.
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
                         const fw::MicrocodeConfig& microcode)
    : events_(events),
      host_(host),
      adapter_id_(adapter_id),
      line_bytes_(line_bytes),
      timing_(timing),
      sram_(abi::kSramBytes, 0),
      microcode_(*this, microcode) {
  NICSIM_CHECK(abi::IsValidCacheLine(line_bytes), "cache line %u", line_bytes);
  const uint32_t tasks = microcode.rx_tasks + microcode.tx_tasks;
  dtbs_.assign(tasks, std::vector<uint8_t>(abi::kRecvFrameBytes));
  for (uint32_t i = tasks; i > 0; --i) free_dtbs_.push_back(static_cast<fw::DtbId>(i - 1));
  header_buffers_.assign(tasks, std::vector<uint8_t>(kHeaderBufferBytes));
}

void FuncAdapter::MmioWrite(uint64_t offset, uint64_t value) {
  // SRAM accesses are served by hardware without the microcode.
  if (offset + sizeof(value) <= abi::kMmioSramBase + abi::kSramBytes) {
    std::memcpy(&sram_[offset - abi::kMmioSramBase], &value, sizeof(value));
    return;
  }
  events_.After(timing_.mmio_latency_ps,
                [this, offset, value] { microcode_.OnMmioCommand(offset, value); });
}

uint64_t FuncAdapter::MmioRead(uint64_t offset) {
  uint64_t value = ~uint64_t{0};
  if (offset + sizeof(value) <= abi::kMmioSramBase + abi::kSramBytes) {
    std::memcpy(&value, &sram_[offset - abi::kMmioSramBase], sizeof(value));
  }
  return value;
}

void FuncAdapter::Receive(Frame frame) {
  ++counters_.frames_in;
  input_.push_back(std::move(frame));
  counters_.input_queue_peak = std::max<uint64_t>(counters_.input_queue_peak, input_.size());
  DispatchInput();
}

void FuncAdapter::DispatchInput() {
  while (!input_.empty() && microcode_.HasFreeRxTask()) {
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
    // The payload streams in behind the header into a DTB the hardware allocates.
    const fw::DtbId dtb = AllocDtb();
    NICSIM_CHECK(dtb != fw::kNoDtb, "no DTB for an accepted packet");
    std::memcpy(dtbs_[dtb].data(), frame.bytes.data() + sizeof(abi::WireHeader), payload_len);
    const auto wire_ps = static_cast<uint64_t>(payload_len * timing_.link_ps_per_byte);
    events_.After(wire_ps, [this, task, dtb] { microcode_.OnPayloadArrived(task, dtb); });
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
  events_.At(DmaDoneAt(data.size()), [this, req, data = std::move(data)] {
    fw::DmaStatus status = fw::DmaStatus::kOk;
    if (uint8_t* dst = host_.Translate(req.host_addr, data.size())) {
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
  events_.At(DmaDoneAt(req.len), [this, req] {
    fw::DmaStatus status = fw::DmaStatus::kOk;
    uint8_t* dst = req.target == fw::DmaTarget::kHeaderBuffer
                       ? header_buffers_[req.tag].data()
                       : dtbs_[req.dtb].data() + req.dtb_offset;
    const uint32_t room = req.target == fw::DmaTarget::kHeaderBuffer
                              ? kHeaderBufferBytes
                              : abi::kRecvFrameBytes - req.dtb_offset;
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
  if (free_dtbs_.empty()) return fw::kNoDtb;
  const fw::DtbId dtb = free_dtbs_.back();
  free_dtbs_.pop_back();
  return dtb;
}

void FuncAdapter::ReleaseDtb(fw::DtbId dtb) {
  NICSIM_CHECK(dtb < dtbs_.size(), "release of DTB %u", dtb);
  free_dtbs_.push_back(dtb);
}

uint8_t* FuncAdapter::HeaderBuffer(fw::TaskId task) {
  NICSIM_CHECK(task < header_buffers_.size(), "header buffer of task %u", task);
  return header_buffers_[task].data();
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

void FuncAdapter::RaiseInterrupt(uint32_t window, uint32_t cause) {
  events_.After(timing_.interrupt_latency_ps, [this, window, cause] {
    if (interrupt_handler_) interrupt_handler_(window, cause);
  });
}

void FuncAdapter::RxTaskFreed() {
  if (dispatch_pending_ || input_.empty()) return;
  dispatch_pending_ = true;
  events_.After(0, [this] {
    dispatch_pending_ = false;
    DispatchInput();
  });
}

void FuncAdapter::Trace(fw::TraceKind kind, fw::TaskId task, uint32_t a, uint32_t b) {
  ++counters_.trace_events;
  if (trace_ != nullptr) trace_->Record(events_.now_ps(), adapter_id_, kind, task, a, b);
}

}  // namespace nicsim::hw::func
