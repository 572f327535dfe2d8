// SPDX-License-Identifier: Apache-2.0
// Receive engine states: validate, bind the CB, admit, move the body, signal with the first
// line, finish. Implements the reference adapter's receive steps (a)-(e) for packet mode.
#include "firmware/rx_engine.h"

#include <algorithm>
#include <cstring>

#include "abi/fifo.h"
#include "abi/limits.h"
#include "base/check.h"

namespace nicsim::fw {

bool RxEngine::Start(Task& task) {
  ctx_.scheduler.BeginOperation(task.id);
  Run(task, RxState::kValidate);
  // Dropped before any wait: the hardware discards the payload, so nothing is owed.
  if (task.busy && static_cast<RxState>(task.state) == RxState::kDiscard) End(task);
  return task.busy;
}

bool RxEngine::OnPayload(Task& task, DtbId dtb) {
  task.dtb = dtb;
  task.payload_arrived = true;
  // Only a task parked for its payload resumes; one waiting for a CB will see it later.
  const auto state = static_cast<RxState>(task.state);
  return task.waiting == Resource::kNone &&
         (state == RxState::kMoveBody || state == RxState::kDiscard);
}

void RxEngine::Run(Task& task, RxState state) {
  task.waiting = Resource::kNone;
  if (RunStates(*this, kStates, ctx_.platform, TraceKind::kRxState, task, state)) End(task);
}

uint64_t RxEngine::FrameAddr(const Task& task) {
  const abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  return lmt.recv_fifo_addr +
         static_cast<uint64_t>(task.seq % lmt.recv_fifo_frames) * abi::kRecvFrameBytes;
}

RxEngine::Next RxEngine::Drop(Task& task, DropReason reason) {
  CountDrop(ctx_, &task, reason, task.window);
  const bool owed_payload = task.payload_len > 0 && !task.payload_arrived;
  return Next{owed_payload ? RxState::kDiscard : RxState::kDone, owed_payload};
}

RxEngine::Next RxEngine::Validate(Task& task) {
  const abi::WireHeader& h = task.header;
  task.window = h.dest_window;
  auto drop = [&](DropReason reason) {
    CountDrop(ctx_, &task, reason, task.window);
    return Next{RxState::kDone, false};  // the hardware discards the payload
  };
  if (h.dest_adapter != ctx_.platform.AdapterId()) return drop(DropReason::kWrongAdapter);
  if (h.type != static_cast<uint8_t>(abi::PacketType::kFifo)) return drop(DropReason::kUnknownType);
  if (h.dest_window >= abi::kMaxWindows) return drop(DropReason::kUnknownWindow);
  if (h.len_bytes > abi::MaxPacketPayload(ctx_.platform.CacheLineBytes())) {
    return drop(DropReason::kOversizeLength);
  }
  if (h.len_bytes != task.payload_len) return drop(DropReason::kLengthMismatch);
  return Next{RxState::kBind, false};
}

RxEngine::Next RxEngine::Bind(Task& task) {
  task.cb = ctx_.cbs.Bind(task.window, TaskKind::kRx);
  if (task.cb == kNoCb) {
    ctx_.scheduler.WaitFor(task, Resource::kChannelBuffer);
    return Next{RxState::kBind, true};
  }
  return Next{RxState::kAdmit, false};
}

RxEngine::Next RxEngine::Admit(Task& task) {
  abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  if (lmt.state != static_cast<uint32_t>(abi::WindowState::kOpen)) {
    return Drop(task, DropReason::kWindowClosed);
  }
  if (task.header.protection_key != lmt.protection_key) {
    return Drop(task, DropReason::kBadProtectionKey);
  }
  // A full receive FIFO silently discards: no interrupt, no error to the sender.
  const uint32_t free_frames = lmt.recv_returned + lmt.recv_fifo_frames - lmt.recv_next;
  if (free_frames == 0) return Drop(task, DropReason::kRxFifoFull);
  task.seq = lmt.recv_next++;
  // Early mode: interrupt now, before the data is coherent; the host polls the first line.
  if (lmt.intr_flags & abi::kEarlyInterrupt) {
    MaybeInterrupt(ctx_, task.window, lmt.recv_next, lmt.recv_intr_threshold,
                   abi::InterruptCause::kRecvThreshold);
  }
  // Wait for the payload unless it is already staged (or there is none).
  const bool have_payload = task.payload_len == 0 || task.payload_arrived;
  return Next{RxState::kMoveBody, !have_payload};
}

RxEngine::Next RxEngine::MoveBody(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Drop(task, DropReason::kClosedInFlight);
  const uint32_t line = ctx_.platform.CacheLineBytes();
  const uint32_t total = abi::kRecvHeaderBytes + task.payload_len;
  // A packet that fits in one cache line goes in a single DMA at the signal step.
  if (total <= line) return Next{RxState::kSignal, false};
  DmaToHost dma;
  dma.host_addr = FrameAddr(task) + line;
  dma.dtb = task.dtb;
  dma.dtb_offset = line - abi::kRecvHeaderBytes;
  dma.dtb_len = total - line;
  dma.tag = task.id;
  ctx_.platform.StartDmaToHost(dma);
  return Next{RxState::kSignal, true};
}

RxEngine::Next RxEngine::Signal(Task& task) {
  // A window closed while the body moved gets no arrival signal: nothing is delivered.
  if (ClosedUnderTask(ctx_, task)) return Drop(task, DropReason::kClosedInFlight);
  // The body has reached the point of coherence; only now may the first line land.
  const uint32_t line = ctx_.platform.CacheLineBytes();
  abi::RecvFrameHeader frame{};
  frame.valid = abi::kRecvFrameValid;
  frame.type = task.header.type;
  frame.len_bytes = task.header.len_bytes;
  frame.src_adapter = task.header.src_adapter;
  frame.src_window = task.header.src_window;
  frame.ulp_word = task.header.ulp_word;
  DmaToHost dma;
  dma.host_addr = FrameAddr(task);
  std::memcpy(dma.prefix, &frame, sizeof(frame));
  dma.prefix_len = sizeof(frame);
  dma.dtb_len = std::min(task.payload_len, line - abi::kRecvHeaderBytes);
  dma.dtb = dma.dtb_len > 0 ? task.dtb : kNoDtb;
  dma.tag = task.id;
  ctx_.platform.StartDmaToHost(dma);
  return Next{RxState::kFinish, true};
}

RxEngine::Next RxEngine::Finish(Task& task) {
  if (task.dma_status != DmaStatus::kOk) CountDrop(ctx_, &task, DropReason::kDmaError, task.window);
  abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  // Frames may complete out of order; the tail counts frames written.
  ++lmt.recv_tail;
  if (!(lmt.intr_flags & abi::kEarlyInterrupt)) {
    MaybeInterrupt(ctx_, task.window, lmt.recv_tail, lmt.recv_intr_threshold,
                   abi::InterruptCause::kRecvThreshold);
  }
  ++ctx_.counters.rx_packets;
  ctx_.counters.rx_bytes += task.payload_len;
  return Next{RxState::kDone, false};
}

RxEngine::Next RxEngine::Discard(Task&) { return Next{RxState::kDone, false}; }

void RxEngine::End(Task& task) {
  ReleaseTaskDtb(ctx_, task);
  UnbindTaskCb(ctx_, task);
  ctx_.scheduler.EndOperation(task.id);
  ctx_.tasks.Release(task);
  ctx_.platform.RxResourcesFreed();
}

}  // namespace nicsim::fw
