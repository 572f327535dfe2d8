// SPDX-License-Identifier: Apache-2.0
// Receive engine, RDMA states: incoming data is placed at the real pages its PVO names, in
// any order; the rCxt's tid and a landing map reject stale and duplicated packets; once every
// byte is coherent the completions asked for are sent. Read requests turn the rCxt into a
// data source; completion packets end an initiator's wait.
#include <algorithm>
#include <cstring>

#include "abi/fifo.h"
#include "abi/rdma.h"
#include "firmware/rdma_post.h"
#include "firmware/rx_engine.h"
#include "firmware/tce.h"

namespace nicsim::fw {
namespace {

bool InUse(const abi::RcxtRecord& rec) {
  return rec.state == static_cast<uint8_t>(abi::RcxtState::kSending) ||
         rec.state == static_cast<uint8_t>(abi::RcxtState::kReceiving);
}

}  // namespace

RxEngine::Next RxEngine::RdmaAdmit(Task& task) {
  abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  switch (static_cast<abi::PacketType>(task.header.type)) {
    case abi::PacketType::kRdmaWrite:
      return AdmitData(task, lmt);
    case abi::PacketType::kRdmaReadRequest:
      return AdmitReadRequest(task, lmt);
    case abi::PacketType::kRdmaCompletion:
      return AdmitCompletion(task, lmt);
    default:
      return Drop(task, DropReason::kUnknownType);
  }
}

bool RxEngine::OpenInbound(Task& task, Inbound** out, DropReason* reason) {
  const abi::WireHeader& h = task.header;
  abi::RcxtRecord rec;
  uint32_t index;
  if (!ctx_.rdma.Resolve(h.rcxt_id, task.window, &rec, &index)) {
    *reason = DropReason::kRdmaBadRcxt;
    return false;
  }
  task.rcxt = index;
  if (abi::TidBefore(h.tid, rec.tid)) {
    *reason = DropReason::kRdmaStaleTid;
    return false;
  }
  Inbound* in = ctx_.rdma.FindInbound(index);
  const bool awaiting = rec.state == static_cast<uint8_t>(abi::RcxtState::kAwaiting);
  if (h.tid != rec.tid || (awaiting && in == nullptr)) {
    // The first packet (in arrival order) of a new transfer.
    if (rec.state == static_cast<uint8_t>(abi::RcxtState::kSending)) {
      *reason = DropReason::kRdmaRcxtBusy;
      return false;
    }
    if (!(awaiting && h.tid == rec.tid)) {
      // A read's initiator keeps what it posted (conditional queue, tag); a target starts clean
      // but for its owner's arming (SlotType::kRcxtArm), which lasts.
      rec.flags &= abi::kRcxtArmed;
      if (!(rec.flags & abi::kRcxtArmed)) rec.cond_queue = 0;
      rec.tag = h.ulp_word;
    }
    rec.state = static_cast<uint8_t>(abi::RcxtState::kReceiving);
    rec.tid = h.tid;
    rec.length = 0;
    ctx_.rdma.Store(index, rec, task.id);
    in = &ctx_.rdma.BeginInbound(index);
  } else if (rec.state != static_cast<uint8_t>(abi::RcxtState::kReceiving) || in == nullptr) {
    // This transfer already completed (or was cancelled): a duplicate or a late copy.
    *reason = DropReason::kRdmaDuplicate;
    return false;
  }
  *out = in;
  return true;
}

RxEngine::Next RxEngine::AdmitData(Task& task, abi::LmtEntry&) {
  const abi::WireHeader& h = task.header;
  Inbound* in = nullptr;
  DropReason reason;
  if (!OpenInbound(task, &in, &reason)) return Drop(task, reason);
  const uint32_t begin = h.msg_offset;
  const uint32_t end = begin + h.len_bytes;
  if (end < begin || !in->landed.Claim(begin, end)) return Drop(task, DropReason::kRdmaDuplicate);
  if (h.flags & abi::kLastPacket) {
    in->end_known = true;
    in->end = end;
  }
  ++in->outstanding;
  task.offset = begin;
  return Next{RxState::kRdmaTranslate, false};
}

RxEngine::Next RxEngine::RdmaFifoAdmit(Task& task) {
  // Half RDMA data for the receive FIFO whose transfer owes a completion (half send write at
  // its target, half send read at its requester). The adapter cannot say "all arrived"
  // without tracking the transfer, so the packet goes through the rCxt it names like data
  // bound for memory: same tid rules, same landing map, so a duplicate never reaches the
  // FIFO twice and never completes the transfer early.
  const abi::WireHeader& h = task.header;
  abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  Inbound* in = nullptr;
  DropReason reason;
  if (!OpenInbound(task, &in, &reason)) return Drop(task, reason);
  const uint32_t begin = h.msg_offset;
  const uint32_t end = begin + h.len_bytes;
  if (end < begin || !in->landed.Free(begin, end)) return Drop(task, DropReason::kRdmaDuplicate);
  // The bytes are claimed only once a frame holds them: a full FIFO loses the packet (the
  // ULP redrives with a newer tid), it does not mark its bytes as landed.
  if (!ReserveFrame(ctx_, task, lmt, &task.seq)) return Consumed(task);
  in->landed.Claim(begin, end);
  if (h.flags & abi::kLastPacket) {
    in->end_known = true;
    in->end = end;
  }
  ++in->outstanding;
  task.offset = begin;
  const bool have_payload = task.payload_len == 0 || task.payload_arrived;
  return Next{RxState::kMoveBody, !have_payload};
}

RxEngine::Next RxEngine::AdmitReadRequest(Task& task, abi::LmtEntry& lmt) {
  const abi::WireHeader& h = task.header;
  abi::RcxtRecord rec;
  uint32_t index;
  if (!ctx_.rdma.Resolve(h.rcxt_id, task.window, &rec, &index)) {
    return Drop(task, DropReason::kRdmaBadRcxt);
  }
  if (InUse(rec)) return Drop(task, DropReason::kRdmaRcxtBusy);
  if (!abi::TidBefore(rec.tid, h.tid)) return Drop(task, DropReason::kRdmaStaleTid);
  abi::ReadRequestExt ext;
  std::memcpy(&ext, task.header_ext, sizeof(ext));
  // The sink's PVOs are built here by adding offsets: they must not carry out of the field.
  if (abi::PvoOffset(ext.sink_pvo) + h.msg_offset > abi::kPvoOffsetMask + 1) {
    RaiseAddressException(ctx_, task, task.window, ext.sink_pvo);
    return Consumed(task);
  }
  TcePlan plan;
  switch (PlanTranslation(ctx_.platform, h.pvo, h.msg_offset, lmt.protection_key, &plan)) {
    case TceVerdict::kOk:
      break;
    case TceVerdict::kNotOwner:
      return Drop(task, DropReason::kRdmaTableOwner);
    case TceVerdict::kException:
      RaiseAddressException(ctx_, task, task.window, h.pvo);
      return Consumed(task);
  }
  const bool third = h.flags & abi::kThirdParty;
  SourceSetup src;
  src.flags = (h.flags & (abi::kWireNotifySender | abi::kWireNotifySink | abi::kThirdParty)) |
              ((h.flags & abi::kWireDataToFifo) ? abi::kToFifo : 0);
  src.tid = h.tid;
  src.src_pvo = h.pvo;
  src.dst_pvo = ext.sink_pvo;
  src.length = h.msg_offset;
  src.dest_adapter = ext.sink_adapter;
  src.dest_window = ext.sink_window;
  // The sender-side completion comes here, or to the manager of a third-party transfer.
  src.notify_adapter = third ? h.src_adapter : ctx_.platform.AdapterId();
  src.notify_window = third ? h.src_window : static_cast<uint16_t>(task.window);
  src.notify_rcxt = third ? h.aux : RdmaState::RefOf(index, rec);
  src.peer_rcxt = ext.sink_rcxt;
  src.tag = h.ulp_word;
  StartSource(ctx_, task, task.window, lmt, index, rec, src);
  ++ctx_.counters.rdma_read_requests_served;
  return Consumed(task);
}

RxEngine::Next RxEngine::AdmitCompletion(Task& task, abi::LmtEntry&) {
  const abi::WireHeader& h = task.header;
  abi::RcxtRecord rec;
  uint32_t index;
  if (!ctx_.rdma.Resolve(h.rcxt_id, task.window, &rec, &index)) {
    return Drop(task, DropReason::kRdmaBadRcxt);
  }
  if (rec.state != static_cast<uint8_t>(abi::RcxtState::kAwaiting) || rec.tid != h.tid) {
    return Drop(task, DropReason::kRdmaStaleTid);
  }
  rec.state = static_cast<uint8_t>(abi::RcxtState::kIdle);
  ctx_.rdma.Store(index, rec, task.id);
  task.rcxt = index;
  if (rec.flags & abi::kRcxtConditional) {
    BumpConditional(ctx_, task, rec.cond_queue);
    return Consumed(task);
  }
  task.offset = h.msg_offset;  // the transfer's length
  return Next{RxState::kRdmaNotify, false};
}

RxEngine::Next RxEngine::RdmaTranslate(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Drop(task, DropReason::kClosedInFlight);
  task.header_buffer = ctx_.platform.AllocHeaderBuffer();
  if (task.header_buffer == kNoHeaderBuffer) {
    ctx_.scheduler.WaitFor(task, Resource::kHeaderBuffer);
    return Next{RxState::kRdmaTranslate, true};
  }
  const abi::WireHeader& h = task.header;
  TcePlan plan;
  switch (PlanTranslation(ctx_.platform, h.pvo, h.len_bytes, ctx_.cbs.Lmt(task.cb).protection_key,
                          &plan)) {
    case TceVerdict::kOk:
      break;
    case TceVerdict::kNotOwner:
      ReleaseTaskHeaderBuffer(ctx_, task);
      return Drop(task, DropReason::kRdmaTableOwner);
    case TceVerdict::kException:
      ReleaseTaskHeaderBuffer(ctx_, task);
      RaiseAddressException(ctx_, task, task.window, h.pvo);
      return Consumed(task);
  }
  StartTceFetch(ctx_.platform, ctx_.counters, task, plan);
  return Next{RxState::kRdmaPlace, true};
}

RxEngine::Next RxEngine::RdmaPlace(Task& task) {
  if (task.dma_status != DmaStatus::kOk) {
    ReleaseTaskHeaderBuffer(ctx_, task);
    return Drop(task, DropReason::kDmaError);
  }
  const TcePlan plan = PlanOf(task);
  const TceVerdict verdict = FinishTranslation(plan, ctx_.platform.HeaderBuffer(task.header_buffer),
                                               task.header.pvo, task.header.len_bytes, task);
  ReleaseTaskHeaderBuffer(ctx_, task);
  if (verdict != TceVerdict::kOk) {
    RaiseAddressException(ctx_, task, task.window, task.header.pvo);
    return Consumed(task);
  }
  const bool have_payload = task.payload_len == 0 || task.payload_arrived;
  return Next{RxState::kRdmaMove, !have_payload};
}

RxEngine::Next RxEngine::RdmaMove(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Drop(task, DropReason::kClosedInFlight);
  uint32_t offset = 0;
  for (uint32_t i = 0; i < task.segment_count; ++i) {
    DmaToHost dma;
    dma.host_addr = task.segments[i].addr;
    dma.dtb = task.dtb;
    dma.dtb_offset = offset;
    dma.dtb_len = task.segments[i].len;
    dma.tag = task.id;
    offset += task.segments[i].len;
    ctx_.platform.StartDmaToHost(dma);
  }
  task.dma_pending = task.segment_count;
  return Next{RxState::kRdmaLanded, task.segment_count > 0};
}

RxEngine::Next RxEngine::RdmaLanded(Task& task) {
  ReleaseTaskDtb(ctx_, task);
  const abi::WireHeader& h = task.header;
  if (task.dma_status != DmaStatus::kOk) return Drop(task, DropReason::kDmaError);
  abi::RcxtRecord rec;
  ctx_.rdma.Load(task.rcxt, &rec);
  Inbound* in = ctx_.rdma.FindInbound(task.rcxt);
  // A packet of an attempt that was superseded or cancelled while its data moved.
  if (in == nullptr || rec.tid != h.tid ||
      rec.state != static_cast<uint8_t>(abi::RcxtState::kReceiving)) {
    return Next{RxState::kDone, false};
  }
  --in->outstanding;
  ++ctx_.counters.rdma_packets_in;
  ctx_.counters.rdma_bytes_in += h.len_bytes;
  if (!in->end_known || in->outstanding > 0 || !in->landed.Covers(in->end)) {
    return Next{RxState::kDone, false};
  }
  // Every byte of the transfer is coherent.
  const uint32_t length = in->end;
  ctx_.rdma.EndInbound(task.rcxt);
  rec.state = static_cast<uint8_t>(abi::RcxtState::kIdle);
  rec.length = length;
  ctx_.rdma.Store(task.rcxt, rec, task.id);
  ++ctx_.counters.rdma_transfers_landed;
  if (h.flags & abi::kWireNotifySender) SendCompletion(task, ctx_.cbs.Lmt(task.cb), length);
  // An armed rCxt's owner counts landings (requests parked on the queue may fire now); its
  // window still gets the completion if the sender asked for one.
  if (rec.flags & abi::kRcxtArmed) BumpConditional(ctx_, task, rec.cond_queue);
  if (!(h.flags & abi::kWireNotifySink)) return Next{RxState::kDone, false};
  if (rec.flags & abi::kRcxtConditional) {
    BumpConditional(ctx_, task, rec.cond_queue);
    return Next{RxState::kDone, false};
  }
  task.offset = length;
  return Next{RxState::kRdmaNotify, false};
}

void RxEngine::SendCompletion(const Task& task, const abi::LmtEntry& lmt, uint32_t length) {
  const abi::WireHeader& h = task.header;
  abi::WireHeader c{};
  c.dest_adapter = h.src_adapter;
  c.dest_window = h.src_window;
  c.src_adapter = ctx_.platform.AdapterId();
  c.src_window = static_cast<uint16_t>(task.window);
  c.type = static_cast<uint8_t>(abi::PacketType::kRdmaCompletion);
  c.protection_key = lmt.protection_key;
  c.ulp_word = h.ulp_word;
  c.rcxt_id = h.aux;
  c.tid = h.tid;
  c.msg_offset = length;
  ctx_.platform.TransmitControl(c, nullptr, 0);
  ++ctx_.counters.rdma_completions_sent;
  ++ctx_.counters.tx_packets;
}

RxEngine::Next RxEngine::RdmaNotify(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Drop(task, DropReason::kClosedInFlight);
  abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  if (!ReserveFrame(ctx_, task, lmt, &task.seq)) return Next{RxState::kDone, false};
  const abi::WireHeader& h = task.header;
  abi::CompletionRecord record{};
  record.rcxt = h.rcxt_id;
  record.tid = h.tid;
  record.length = task.offset;
  record.status = static_cast<uint32_t>(abi::RdmaStatus::kOk);
  StartCompletionFrame(ctx_, FrameAddr(task), h.src_adapter, h.src_window, h.ulp_word, record,
                       task.id);
  return Next{RxState::kRdmaNotified, true};
}

RxEngine::Next RxEngine::RdmaNotified(Task& task) {
  if (task.dma_status != DmaStatus::kOk) return Drop(task, DropReason::kDmaError);
  FrameWritten(ctx_, task.window, ctx_.cbs.Lmt(task.cb));
  ++ctx_.counters.rdma_completions_written;
  return Next{RxState::kDone, false};
}

}  // namespace nicsim::fw
