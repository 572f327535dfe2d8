// SPDX-License-Identifier: Apache-2.0
// Receive engine states: validate, bind the CB, admit, move the body, signal with the first
// line, finish. Implements the reference adapter's receive steps (a)-(e) for packet mode.
#include "firmware/rx_engine.h"

#include <algorithm>
#include <cstring>

#include "abi/fifo.h"
#include "abi/limits.h"
#include "abi/rdma.h"
#include "base/check.h"

namespace nicsim::fw {
namespace {

/**
 * Half RDMA data bound for the receive FIFO is tracked through the rCxt it names only when
 * its transfer owes a completion; otherwise it is a self-describing frame and nothing more.
 */
bool TrackedFifoData(const Task& task) {
  return task.frame_info_len > 0 &&
         task.header.type == static_cast<uint8_t>(abi::PacketType::kRdmaWrite) &&
         (task.header.flags & (abi::kWireNotifySender | abi::kWireNotifySink)) != 0;
}

}  // namespace

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
         (state == RxState::kMoveBody || state == RxState::kDiscard || state == RxState::kRdmaMove);
}

void RxEngine::Run(Task& task, RxState state) {
  task.waiting = Resource::kNone;
  if (RunStates(*this, kStates, ctx_.platform, TraceKind::kRxState, task, state)) End(task);
}

uint64_t RxEngine::FrameAddr(const Task& task) {
  return FrameAddress(ctx_.cbs.Lmt(task.cb), task.seq);
}

RxEngine::Next RxEngine::Drop(Task& task, DropReason reason) {
  CountDrop(ctx_, &task, reason, task.window);
  return Consumed(task);
}

RxEngine::Next RxEngine::Consumed(Task& task) {
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
  if (h.dest_adapter != ctx_.platform.AdapterId() && h.dest_adapter != abi::kBroadcastAdapter) {
    return drop(DropReason::kWrongAdapter);
  }
  if (h.type == static_cast<uint8_t>(abi::PacketType::kInvalid) ||
      h.type >= static_cast<uint8_t>(abi::PacketType::kFirstUnknown)) {
    return drop(DropReason::kUnknownType);
  }
  if (h.dest_window >= abi::kMaxWindows) return drop(DropReason::kUnknownWindow);
  const uint32_t line = ctx_.platform.CacheLineBytes();
  const auto type = static_cast<abi::PacketType>(h.type);
  // Packets bound for the receive FIFO carry an RdmaFrameInfo ahead of their payload.
  const bool rdma_to_fifo = type != abi::PacketType::kFifo && (h.flags & abi::kToFifo);
  task.frame_info_len = rdma_to_fifo ? sizeof(abi::RdmaFrameInfo) : 0;
  uint32_t max_len = abi::MaxPacketPayload(line) - task.frame_info_len;
  if (type == abi::PacketType::kRdmaWrite && !rdma_to_fifo) max_len = abi::kRdmaPacketBytes;
  if (type == abi::PacketType::kRdmaCompletion) max_len = 0;
  if (h.len_bytes > max_len) return drop(DropReason::kOversizeLength);
  if (h.len_bytes != task.payload_len) return drop(DropReason::kLengthMismatch);
  if (type == abi::PacketType::kRdmaReadRequest && h.len_bytes < sizeof(abi::ReadRequestExt)) {
    return drop(DropReason::kLengthMismatch);
  }
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
  if (!WindowOpen(lmt)) return Drop(task, NotOpenReason(lmt));
  // The job check: for RDMA this is the first validation step (job id vs target window).
  if (task.header.protection_key != lmt.protection_key) {
    return Drop(task, DropReason::kBadProtectionKey);
  }
  const bool to_fifo =
      task.header.type == static_cast<uint8_t>(abi::PacketType::kFifo) || task.frame_info_len > 0;
  if (!to_fifo) return Next{RxState::kRdmaAdmit, false};
  if (TrackedFifoData(task)) return Next{RxState::kRdmaFifoAdmit, false};
  // A full receive FIFO silently discards: no interrupt, no error to the sender.
  if (!ReserveFrame(ctx_, task, lmt, &task.seq)) return Consumed(task);
  // Wait for the payload unless it is already staged (or there is none).
  const bool have_payload = task.payload_len == 0 || task.payload_arrived;
  return Next{RxState::kMoveBody, !have_payload};
}

RxEngine::Next RxEngine::MoveBody(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Drop(task, DropReason::kClosedInFlight);
  const uint32_t line = ctx_.platform.CacheLineBytes();
  const uint32_t prefix = abi::kRecvHeaderBytes + task.frame_info_len;
  const uint32_t total = prefix + task.payload_len;
  // A packet that fits in one cache line goes in a single DMA at the signal step.
  if (total <= line) return Next{RxState::kSignal, false};
  DmaToHost dma;
  dma.host_addr = FrameAddr(task) + line;
  dma.dtb = task.dtb;
  dma.dtb_offset = line - prefix;
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
  frame.len_bytes = static_cast<uint16_t>(task.frame_info_len + task.header.len_bytes);
  frame.src_adapter = task.header.src_adapter;
  frame.src_window = task.header.src_window;
  frame.ulp_word = task.header.ulp_word;
  DmaToHost dma;
  dma.host_addr = FrameAddr(task);
  std::memcpy(dma.prefix, &frame, sizeof(frame));
  dma.prefix_len = sizeof(frame);
  if (task.frame_info_len > 0) {
    abi::RdmaFrameInfo info{};
    info.rcxt = task.header.rcxt_id;
    info.tid = task.header.tid;
    info.offset = task.header.msg_offset;
    info.flags = task.header.flags;
    std::memcpy(dma.prefix + dma.prefix_len, &info, sizeof(info));
    dma.prefix_len += sizeof(info);
  }
  dma.dtb_len = std::min(task.payload_len, line - dma.prefix_len);
  dma.dtb = dma.dtb_len > 0 ? task.dtb : kNoDtb;
  dma.tag = task.id;
  ctx_.platform.StartDmaToHost(dma);
  return Next{RxState::kFinish, true};
}

RxEngine::Next RxEngine::Finish(Task& task) {
  const bool dma_ok = task.dma_status == DmaStatus::kOk;
  if (!dma_ok) CountDrop(ctx_, &task, DropReason::kDmaError, task.window);
  // Frames may complete out of order; the tail counts frames written.
  FrameWritten(ctx_, task.window, ctx_.cbs.Lmt(task.cb));
  ++ctx_.counters.rx_packets;
  ctx_.counters.rx_bytes += task.payload_len;
  // A tracked half RDMA frame is coherent: it counts toward its transfer's completion.
  if (dma_ok && TrackedFifoData(task)) return Next{RxState::kRdmaLanded, false};
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
