// SPDX-License-Identifier: Apache-2.0
// Transmit engine, RDMA states: requests from the send FIFO are acted on (kPost); the rCxts
// on a window's send list are cut into self-describing packets, each translated through the
// TCEs of its source pages, loaded into a DTB and injected. Any transmit task may take the
// next packet of an rCxt, so one transfer's packets leave from several tasks at once.
#include <algorithm>
#include <cstring>

#include "abi/limits.h"
#include "firmware/rdma_post.h"
#include "firmware/tce.h"
#include "firmware/tx_engine.h"

namespace nicsim::fw {

TxEngine::Next TxEngine::Post(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Abandon(task);
  uint8_t* buffer = ctx_.platform.HeaderBuffer(task.header_buffer);
  if (task.dma_status != DmaStatus::kOk) {
    CountDrop(ctx_, &task, DropReason::kDmaError, task.window);
    task.rejected = true;
    return Next{TxState::kMarkDone, false};
  }
  abi::SendSlotHeader slot;
  abi::RdmaRequest request;
  std::memcpy(&slot, buffer, sizeof(slot));
  std::memcpy(&request, buffer + abi::kSendHeaderBytes, sizeof(request));
  if (slot.type == static_cast<uint8_t>(abi::SlotType::kRdmaWritePiece)) {
    return LoadPiece(task, slot, request);
  }
  PostReport report;
  const PostOutcome outcome =
      RunRequest(ctx_, task, task.window, ctx_.cbs.Lmt(task.cb), slot, request, &report);
  task.rejected = outcome == PostOutcome::kRejected;
  if (!task.rejected && slot.type == static_cast<uint8_t>(abi::SlotType::kCounterQuery)) {
    // The answer goes back in the slot header the adapter rewrites on completion.
    slot.ulp_word = report.query;
    std::memcpy(buffer, &slot, sizeof(slot));
  }
  if (!task.rejected && report.cancelled) {
    // The record to write: rCxt, tid and bytes in the task's RDMA registers, the transfer's
    // tag where a frame's ULP word goes.
    task.rcxt = request.local_rcxt;
    task.tid = report.tid;
    task.offset = report.length;
    task.header.ulp_word = report.tag;
    return Next{TxState::kCancelNotify, false};
  }
  return Next{TxState::kMarkDone, false};
}

TxEngine::Next TxEngine::CancelNotify(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Abandon(task);
  abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  uint32_t frame_seq;
  // A full FIFO loses the record (counted); the cancel itself stands.
  if (!ReserveFrame(ctx_, task, lmt, &frame_seq)) return Next{TxState::kMarkDone, false};
  abi::CompletionRecord record{};
  record.rcxt = task.rcxt;
  record.tid = task.tid;
  record.length = task.offset;
  record.status = static_cast<uint32_t>(abi::RdmaStatus::kCancelled);
  StartCompletionFrame(ctx_, FrameAddress(lmt, frame_seq), ctx_.platform.AdapterId(),
                       static_cast<uint16_t>(task.window), task.header.ulp_word, record, task.id);
  return Next{TxState::kCancelNotified, true};
}

TxEngine::Next TxEngine::CancelNotified(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Abandon(task);
  if (task.dma_status != DmaStatus::kOk) {
    CountDrop(ctx_, &task, DropReason::kDmaError, task.window);
    task.dma_status = DmaStatus::kOk;
  } else {
    FrameWritten(ctx_, task.window, ctx_.cbs.Lmt(task.cb));
    ++ctx_.counters.rdma_cancel_notices;
  }
  return Next{TxState::kMarkDone, false};
}

TxEngine::Next TxEngine::LoadPiece(Task& task, const abi::SendSlotHeader& slot,
                                   const abi::RdmaRequest& r) {
  const abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  if (slot.len_bytes > abi::MaxPieceBytes(lmt.line_bytes) ||
      uint64_t{r.count} + slot.len_bytes > r.length) {
    CountDrop(ctx_, &task, DropReason::kRdmaBadRequest, task.window);
    task.rejected = true;
    return Next{TxState::kMarkDone, false};
  }
  // The initiator's rCxt waits for the completion the target will send once every piece
  // has landed (armed again on a retry after a DTB wait: it is idempotent per tid).
  if (ArmPieceInitiator(ctx_, task, task.window, slot, r) != PostOutcome::kAccepted) {
    task.rejected = true;
    return Next{TxState::kMarkDone, false};
  }
  task.dtb = ctx_.platform.AllocDtb();
  if (task.dtb == kNoDtb) {
    ctx_.scheduler.WaitFor(task, Resource::kDtb);
    return Next{TxState::kPost, true};
  }
  // The receiving side sees an ordinary RDMA write packet.
  abi::WireHeader& h = task.header;
  h = abi::WireHeader{};
  h.dest_adapter = slot.dest_adapter;
  h.dest_window = slot.dest_window;
  h.src_adapter = ctx_.platform.AdapterId();
  h.src_window = static_cast<uint16_t>(task.window);
  h.len_bytes = slot.len_bytes;
  h.type = static_cast<uint8_t>(abi::PacketType::kRdmaWrite);
  h.flags = WriteDataFlags(r);
  if (r.count + slot.len_bytes == r.length) h.flags |= abi::kLastPacket;
  h.ulp_word = slot.ulp_word;
  h.rcxt_id = r.remote_rcxt;
  h.tid = r.tid;
  h.msg_offset = r.count;
  h.pvo = r.remote_pvo + r.count;
  h.aux = r.local_rcxt;
  task.payload_len = slot.len_bytes;
  if (slot.len_bytes == 0) return Next{TxState::kInject, false};
  DmaFromHost dma;
  dma.host_addr = SlotAddr(task) + abi::kSendHeaderBytes + sizeof(abi::RdmaRequest);
  dma.len = slot.len_bytes;
  dma.target = DmaTarget::kDtb;
  dma.dtb = task.dtb;
  dma.tag = task.id;
  ctx_.platform.StartDmaFromHost(dma);
  return Next{TxState::kInject, true};
}

TxEngine::Next TxEngine::ClaimRdmaPacket(Task& task, abi::LmtEntry& lmt) {
  const uint32_t index = lmt.rcxt_head;
  abi::RcxtRecord rec;
  const bool loaded = ctx_.rdma.Load(index, &rec);
  if (!loaded || rec.state != static_cast<uint8_t>(abi::RcxtState::kSending) ||
      rec.window != task.window || rec.sent > rec.length) {
    // Only this window's sending rCxts belong on its list, but the host owns the records
    // and may free or reuse one before its cancel is seen. Such an rCxt leaves the list,
    // counted; a list that names no rCxt at all is emptied. Then the window is looked at
    // again.
    CountDrop(ctx_, &task, DropReason::kRdmaBadRcxt, task.window);
    if (loaded) {
      RdmaState::PopHead(lmt, rec.next);
    } else {
      RdmaState::DropList(lmt);
    }
    UnbindTaskCb(ctx_, task);
    return Next{TxState::kSelect, false};
  }
  const uint32_t max = (rec.flags & abi::kToFifo)
                           ? abi::MaxFifoRdmaPayload(ctx_.platform.CacheLineBytes())
                           : abi::kRdmaPacketBytes;
  const uint32_t len = std::min(max, rec.length - rec.sent);
  task.rcxt = index;
  task.offset = rec.sent;
  task.payload_len = len;
  task.tid = rec.tid;
  task.dma_status = DmaStatus::kOk;
  task.rejected = false;
  rec.sent += len;
  ++rec.in_flight;
  // Every packet is claimed: the rCxt leaves the send list.
  if (rec.sent == rec.length) RdmaState::PopHead(lmt, rec.next);
  ctx_.rdma.Store(index, rec, task.id);
  ctx_.work.Claimed(task.window, lmt.ready_to_send + lmt.rcxt_count);
  ctx_.scheduler.BeginOperation(task.id);
  return Next{TxState::kRdmaTranslate, false};
}

TxEngine::Next TxEngine::RdmaTranslate(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Abandon(task);
  abi::RcxtRecord rec;
  ctx_.rdma.Load(task.rcxt, &rec);
  if (rec.state != static_cast<uint8_t>(abi::RcxtState::kSending) || rec.tid != task.tid) {
    PacketDone(task);  // cancelled since the packet was claimed
    EndPacket(task);
    return Next{TxState::kSelect, false};
  }
  // A zero-length packet reads no data, but its source PVO's TCE is still checked.
  task.header_buffer = ctx_.platform.AllocHeaderBuffer();
  if (task.header_buffer == kNoHeaderBuffer) {
    ctx_.scheduler.WaitFor(task, Resource::kHeaderBuffer);
    return Next{TxState::kRdmaTranslate, true};
  }
  const uint64_t pvo = rec.src_pvo + task.offset;
  TcePlan plan;
  switch (PlanTranslation(ctx_.platform, pvo, task.payload_len,
                          ctx_.cbs.Lmt(task.cb).protection_key, &plan)) {
    case TceVerdict::kOk:
      break;
    case TceVerdict::kNotOwner:
      CountDrop(ctx_, &task, DropReason::kRdmaTableOwner, task.window);
      return FailSource(task);
    case TceVerdict::kException:
      RaiseAddressException(ctx_, task, task.window, pvo);
      return FailSource(task);
  }
  StartTceFetch(ctx_.platform, ctx_.counters, task, plan);
  return Next{TxState::kRdmaCheck, true};
}

TxEngine::Next TxEngine::RdmaCheck(Task& task) {
  abi::RcxtRecord rec;
  ctx_.rdma.Load(task.rcxt, &rec);
  if (rec.state != static_cast<uint8_t>(abi::RcxtState::kSending) || rec.tid != task.tid) {
    // Another packet of the transfer failed (or it was cancelled) while this one translated.
    ReleaseTaskHeaderBuffer(ctx_, task);
    PacketDone(task);
    EndPacket(task);
    return Next{TxState::kSelect, false};
  }
  if (task.dma_status != DmaStatus::kOk) {
    CountDrop(ctx_, &task, DropReason::kDmaError, task.window);
    return FailSource(task);
  }
  const uint64_t pvo = rec.src_pvo + task.offset;
  const TcePlan plan = PlanOf(task);
  const TceVerdict verdict = FinishTranslation(plan, ctx_.platform.HeaderBuffer(task.header_buffer),
                                               pvo, task.payload_len, task);
  ReleaseTaskHeaderBuffer(ctx_, task);
  if (verdict != TceVerdict::kOk) {
    RaiseAddressException(ctx_, task, task.window, pvo);
    return FailSource(task);
  }
  return Next{TxState::kRdmaLoad, false};
}

TxEngine::Next TxEngine::RdmaLoad(Task& task) {
  if (task.segment_count == 0) return Next{TxState::kRdmaInject, false};  // zero length
  task.dtb = ctx_.platform.AllocDtb();
  if (task.dtb == kNoDtb) {
    ctx_.scheduler.WaitFor(task, Resource::kDtb);
    return Next{TxState::kRdmaLoad, true};
  }
  uint32_t offset = 0;
  for (uint32_t i = 0; i < task.segment_count; ++i) {
    DmaFromHost dma;
    dma.host_addr = task.segments[i].addr;
    dma.len = task.segments[i].len;
    dma.target = DmaTarget::kDtb;
    dma.dtb = task.dtb;
    dma.dtb_offset = offset;
    dma.tag = task.id;
    offset += task.segments[i].len;
    ctx_.platform.StartDmaFromHost(dma);
  }
  task.dma_pending = task.segment_count;
  return Next{TxState::kRdmaInject, task.segment_count > 0};
}

TxEngine::Next TxEngine::RdmaInject(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Abandon(task);
  if (task.dma_status != DmaStatus::kOk) {
    CountDrop(ctx_, &task, DropReason::kDmaError, task.window);
    return FailSource(task);
  }
  if (!ctx_.platform.LinkHasRoom()) {
    ctx_.scheduler.WaitFor(task, Resource::kLinkSlot);  // the data stays in its DTB
    return Next{TxState::kRdmaInject, true};
  }
  abi::RcxtRecord rec;
  ctx_.rdma.Load(task.rcxt, &rec);
  if (rec.state == static_cast<uint8_t>(abi::RcxtState::kSending) && rec.tid == task.tid) {
    abi::WireHeader h{};
    h.dest_adapter = rec.dest_adapter;
    h.dest_window = rec.dest_window;
    // src names who gets the sender-side completion: this window or a third-party manager.
    h.src_adapter = rec.notify_adapter;
    h.src_window = rec.notify_window;
    h.len_bytes = static_cast<uint16_t>(task.payload_len);
    h.type = static_cast<uint8_t>(abi::PacketType::kRdmaWrite);
    h.flags = rec.flags &
              (abi::kWireNotifySender | abi::kWireNotifySink | abi::kToFifo | abi::kThirdParty);
    if (task.offset + task.payload_len == rec.length) h.flags |= abi::kLastPacket;
    h.protection_key = ctx_.cbs.Lmt(task.cb).protection_key;
    h.ulp_word = rec.tag;
    h.rcxt_id = rec.peer_rcxt;
    h.tid = rec.tid;
    h.msg_offset = task.offset;
    h.pvo = rec.dst_pvo + task.offset;
    h.aux = rec.notify_rcxt;
    ctx_.platform.Transmit(h, task.dtb, task.payload_len);
    ++ctx_.counters.tx_packets;
    ctx_.counters.tx_bytes += task.payload_len;
    ++ctx_.counters.rdma_packets_out;
    ctx_.counters.rdma_bytes_out += task.payload_len;
  }
  ReleaseTaskDtb(ctx_, task);
  PacketDone(task);
  ++task.packets_served;
  EndPacket(task);
  return Next{TxState::kSelect, false};
}

void TxEngine::PacketDone(Task& task) {
  abi::RcxtRecord rec;
  ctx_.rdma.Load(task.rcxt, &rec);
  if (rec.tid != task.tid) return;
  if (rec.in_flight > 0) --rec.in_flight;
  if (rec.state == static_cast<uint8_t>(abi::RcxtState::kSending) && rec.sent == rec.length &&
      rec.in_flight == 0) {
    // The source's part is over. It waits for a completion only if one is coming back here.
    // Data bound for a FIFO are no exception: their receiver tracks them through its rCxt
    // when a completion is owed, and sends this one once every packet is in its FIFO.
    const bool completion_here = (rec.flags & abi::kWireNotifySender) &&
                                 rec.notify_adapter == ctx_.platform.AdapterId() &&
                                 rec.notify_window == task.window;
    rec.state =
        static_cast<uint8_t>(completion_here ? abi::RcxtState::kAwaiting : abi::RcxtState::kIdle);
  }
  ctx_.rdma.Store(task.rcxt, rec, task.id);
}

TxEngine::Next TxEngine::FailSource(Task& task) {
  ReleaseTaskHeaderBuffer(ctx_, task);
  ReleaseTaskDtb(ctx_, task);
  abi::RcxtRecord rec;
  ctx_.rdma.Load(task.rcxt, &rec);
  if (rec.tid == task.tid && rec.state == static_cast<uint8_t>(abi::RcxtState::kSending)) {
    if (rec.sent != rec.length) ctx_.rdma.Unlink(ctx_.cbs.Lmt(task.cb), task.rcxt);
    rec.sent = rec.length;
    rec.state = static_cast<uint8_t>(abi::RcxtState::kIdle);
    ctx_.rdma.Store(task.rcxt, rec, task.id);
  }
  EndPacket(task);
  return Next{TxState::kSelect, false};
}

}  // namespace nicsim::fw
