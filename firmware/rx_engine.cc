// SPDX-License-Identifier: Apache-2.0
// Receive engine states: validate, move the body, signal with the first line, finish.
// Implements the reference adapter's receive steps (a)-(e) for packet-mode packets.
#include "firmware/rx_engine.h"

#include <algorithm>
#include <cstring>

#include "abi/fifo.h"
#include "abi/limits.h"
#include "base/check.h"
#include "firmware/internal.h"

namespace nicsim::fw {
namespace {

uint64_t FrameAddr(const abi::LmtEntry& lmt, uint32_t seq) {
  return lmt.recv_fifo_addr + static_cast<uint64_t>(seq % lmt.recv_fifo_frames) *
                                  abi::kRecvFrameBytes;
}

}  // namespace

bool RxEngine::Start(Task& task) {
  Run(task, RxState::kValidate);
  return task.busy;
}

void RxEngine::OnPayload(Task& task, DtbId dtb) {
  task.dtb = dtb;
  task.payload_arrived = true;
  // A task that validated before its payload came is suspended at kMoveBody.
  if (static_cast<RxState>(task.state) == RxState::kMoveBody) Run(task, RxState::kMoveBody);
}

void RxEngine::OnDmaComplete(Task& task) { Run(task, static_cast<RxState>(task.state)); }

void RxEngine::Run(Task& task, RxState state) {
  if (RunStates(*this, kStates, platform_, task, state)) End(task);
}

RxEngine::Next RxEngine::Validate(Task& task) {
  const abi::WireHeader& h = task.header;
  task.window = h.dest_window;
  auto drop = [&](DropReason reason) {
    CountDrop(platform_, counters_, task.id, reason, task.window);
    return Next{RxState::kDone, false};
  };
  if (h.dest_adapter != platform_.AdapterId()) return drop(DropReason::kWrongAdapter);
  if (h.type != static_cast<uint8_t>(abi::PacketType::kFifo)) return drop(DropReason::kUnknownType);
  if (h.dest_window >= abi::kMaxWindows) return drop(DropReason::kUnknownWindow);
  abi::LmtEntry lmt = LoadLmt(platform_, task.window);
  if (lmt.state != static_cast<uint32_t>(abi::WindowState::kOpen)) {
    return drop(DropReason::kWindowClosed);
  }
  if (h.protection_key != lmt.protection_key) return drop(DropReason::kBadProtectionKey);
  if (h.len_bytes > abi::MaxPacketPayload(platform_.CacheLineBytes())) {
    return drop(DropReason::kOversizeLength);
  }
  if (h.len_bytes != task.payload_len) return drop(DropReason::kLengthMismatch);
  // A full receive FIFO silently discards: no interrupt, no error to the sender.
  const uint32_t free_frames = lmt.recv_returned + lmt.recv_fifo_frames - lmt.recv_next;
  if (free_frames == 0) return drop(DropReason::kRxFifoFull);
  task.seq = lmt.recv_next++;
  StoreLmt(platform_, task.window, lmt);
  // Wait for the payload unless it is already staged (or there is none).
  const bool have_payload = task.payload_len == 0 || task.payload_arrived;
  return Next{RxState::kMoveBody, !have_payload};
}

RxEngine::Next RxEngine::MoveBody(Task& task) {
  const uint32_t line = platform_.CacheLineBytes();
  const uint32_t total = abi::kRecvHeaderBytes + task.payload_len;
  // A packet that fits in one cache line goes in a single DMA at the signal step.
  if (total <= line) return Next{RxState::kSignal, false};
  const abi::LmtEntry lmt = LoadLmt(platform_, task.window);
  DmaToHost dma;
  dma.host_addr = FrameAddr(lmt, task.seq) + line;
  dma.dtb = task.dtb;
  dma.dtb_offset = line - abi::kRecvHeaderBytes;
  dma.dtb_len = total - line;
  dma.tag = task.id;
  platform_.StartDmaToHost(dma);
  return Next{RxState::kSignal, true};
}

RxEngine::Next RxEngine::Signal(Task& task) {
  // The body has reached the point of coherence; only now may the first line land.
  const uint32_t line = platform_.CacheLineBytes();
  const abi::LmtEntry lmt = LoadLmt(platform_, task.window);
  abi::RecvFrameHeader frame{};
  frame.valid = abi::kRecvFrameValid;
  frame.type = task.header.type;
  frame.len_bytes = task.header.len_bytes;
  frame.src_adapter = task.header.src_adapter;
  frame.src_window = task.header.src_window;
  frame.ulp_word = task.header.ulp_word;
  DmaToHost dma;
  dma.host_addr = FrameAddr(lmt, task.seq);
  std::memcpy(dma.prefix, &frame, sizeof(frame));
  dma.prefix_len = sizeof(frame);
  dma.dtb_len = std::min(task.payload_len, line - abi::kRecvHeaderBytes);
  dma.dtb = dma.dtb_len > 0 ? task.dtb : kNoDtb;
  dma.tag = task.id;
  platform_.StartDmaToHost(dma);
  return Next{RxState::kFinish, true};
}

RxEngine::Next RxEngine::Finish(Task& task) {
  if (task.dma_status != DmaStatus::kOk) {
    CountDrop(platform_, counters_, task.id, DropReason::kDmaError, task.window);
  }
  abi::LmtEntry lmt = LoadLmt(platform_, task.window);
  // Frames may complete out of order; the tail counts frames written.
  ++lmt.recv_tail;
  MaybeInterrupt(platform_, counters_, task.window, lmt.recv_tail, lmt.recv_intr_threshold,
                 abi::InterruptCause::kRecvThreshold);
  StoreLmt(platform_, task.window, lmt);
  ++counters_.rx_packets;
  counters_.rx_bytes += task.payload_len;
  return Next{RxState::kDone, false};
}

void RxEngine::End(Task& task) {
  if (task.dtb != kNoDtb) platform_.ReleaseDtb(task.dtb);
  task.dtb = kNoDtb;
  tasks_.Release(task);
  platform_.RxTaskFreed();
}

}  // namespace nicsim::fw
