// SPDX-License-Identifier: Apache-2.0
#include "firmware/rdma_post.h"

#include "firmware/tce.h"

namespace nicsim::fw {
namespace {

PostOutcome Reject(Context& ctx, const Task& task, uint32_t window, DropReason reason) {
  CountDrop(ctx, &task, reason, window);
  return PostOutcome::kRejected;
}

bool Busy(const abi::RcxtRecord& rec) {
  return rec.state == static_cast<uint8_t>(abi::RcxtState::kSending) ||
         rec.state == static_cast<uint8_t>(abi::RcxtState::kReceiving);
}

/** An initiator's rCxt takes on a request it posted: `state`, its tid, length and tag. */
void Arm(abi::RcxtRecord& rec, abi::RcxtState state, const abi::SendSlotHeader& slot,
         const abi::RdmaRequest& r) {
  rec.state = static_cast<uint8_t>(state);
  rec.flags = (r.flags & abi::kReqConditional) ? abi::kRcxtConditional : 0;
  rec.cond_queue = r.cond_queue % abi::kConditionalQueues;
  rec.tid = r.tid;
  rec.length = r.length;
  rec.tag = slot.ulp_word;
}

/** Checks the local source range before any packet is built (no TCE fetch needed). */
PostOutcome CheckSource(Context& ctx, const Task& task, uint32_t window, const abi::LmtEntry& lmt,
                        uint64_t pvo, uint32_t length) {
  TcePlan plan;
  switch (PlanTranslation(ctx.platform, pvo, length, lmt.protection_key, &plan)) {
    case TceVerdict::kOk:
      return PostOutcome::kAccepted;
    case TceVerdict::kNotOwner:
      return Reject(ctx, task, window, DropReason::kRdmaTableOwner);
    case TceVerdict::kException:
      RaiseAddressException(ctx, task, window, pvo);
      return PostOutcome::kRejected;
  }
  return PostOutcome::kRejected;
}

/**
 * The remote side can check each packet's PVO but not whether the PVOs of a transfer carried
 * out of the offset field on the way; only the initiator sees the whole range.
 */
bool RangeCarries(uint64_t pvo, uint32_t length) {
  return abi::PvoOffset(pvo) + length > abi::kPvoOffsetMask + 1;
}

PostOutcome PostWrite(Context& ctx, const Task& task, uint32_t window, abi::LmtEntry& lmt,
                      const abi::SendSlotHeader& slot, const abi::RdmaRequest& r) {
  abi::RcxtRecord rec;
  uint32_t index;
  if (!ctx.rdma.Resolve(r.local_rcxt, window, &rec, &index)) {
    return Reject(ctx, task, window, DropReason::kRdmaBadRcxt);
  }
  if (Busy(rec)) return Reject(ctx, task, window, DropReason::kRdmaRcxtBusy);
  if (CheckSource(ctx, task, window, lmt, r.local_pvo, r.length) != PostOutcome::kAccepted) {
    return PostOutcome::kRejected;
  }
  if (RangeCarries(r.remote_pvo, r.length)) {
    RaiseAddressException(ctx, task, window, r.remote_pvo);
    return PostOutcome::kRejected;
  }
  SourceSetup src;
  src.flags = WriteDataFlags(r) | ((r.flags & abi::kReqConditional) ? abi::kRcxtConditional : 0);
  src.cond_queue = static_cast<uint8_t>(r.cond_queue % abi::kConditionalQueues);
  src.tid = r.tid;
  src.src_pvo = r.local_pvo;
  src.dst_pvo = r.remote_pvo;
  src.length = r.length;
  src.dest_adapter = slot.dest_adapter;
  src.dest_window = slot.dest_window;
  src.notify_adapter = ctx.platform.AdapterId();
  src.notify_window = static_cast<uint16_t>(window);
  src.peer_rcxt = r.remote_rcxt;
  src.notify_rcxt = r.local_rcxt;
  src.tag = slot.ulp_word;
  StartSource(ctx, task, window, lmt, index, rec, src);
  return PostOutcome::kAccepted;
}

PostOutcome PostRead(Context& ctx, const Task& task, uint32_t window, abi::LmtEntry& lmt,
                     const abi::SendSlotHeader& slot, const abi::RdmaRequest& r, bool third) {
  abi::RcxtRecord rec;
  uint32_t index;
  if (!ctx.rdma.Resolve(r.local_rcxt, window, &rec, &index)) {
    return Reject(ctx, task, window, DropReason::kRdmaBadRcxt);
  }
  if (Busy(rec)) return Reject(ctx, task, window, DropReason::kRdmaRcxtBusy);
  const uint64_t sink_pvo = third ? r.third_pvo : r.local_pvo;
  if (RangeCarries(r.remote_pvo, r.length) || RangeCarries(sink_pvo, r.length)) {
    RaiseAddressException(ctx, task, window,
                          RangeCarries(sink_pvo, r.length) ? sink_pvo : r.remote_pvo);
    return PostOutcome::kRejected;
  }
  // The initiator now waits: for the data (a read) or for the completion (third party). A
  // half send read that owes no completion to anyone is not tracked here: its data are
  // plain frames for the ULP, so the rCxt has nothing to wait for.
  const bool untracked =
      !third && (r.flags & abi::kReqLocalFifo) &&
      !(r.flags & (abi::kReqNotifyInitiator | abi::kReqNotifyTarget | abi::kReqConditional));
  Arm(rec, untracked ? abi::RcxtState::kIdle : abi::RcxtState::kAwaiting, slot, r);
  ctx.rdma.Store(index, rec, task.id);

  abi::WireHeader h{};
  h.dest_adapter = slot.dest_adapter;
  h.dest_window = slot.dest_window;
  h.src_adapter = ctx.platform.AdapterId();
  h.src_window = static_cast<uint16_t>(window);
  h.type = static_cast<uint8_t>(abi::PacketType::kRdmaReadRequest);
  h.protection_key = lmt.protection_key;
  h.ulp_word = slot.ulp_word;
  h.rcxt_id = r.remote_rcxt;
  h.tid = r.tid;
  h.msg_offset = r.length;
  h.pvo = r.remote_pvo;
  h.aux = r.local_rcxt;
  abi::ReadRequestExt ext{};
  if (third) {
    // The manager hears of the end; the data target may write its own completion.
    if (r.flags & (abi::kReqNotifyInitiator | abi::kReqConditional)) {
      h.flags |= abi::kWireNotifySender;
    }
    if (r.flags & abi::kReqNotifyTarget) h.flags |= abi::kWireNotifySink;
    h.flags |= abi::kThirdParty;
    ext.sink_pvo = r.third_pvo;
    ext.sink_adapter = r.third_adapter;
    ext.sink_window = r.third_window;
    ext.sink_rcxt = r.third_rcxt;
  } else {
    // The data flows to us: our completion is the sink's, the source's is the sender's.
    if (r.flags & (abi::kReqNotifyInitiator | abi::kReqConditional)) {
      h.flags |= abi::kWireNotifySink;
    }
    if (r.flags & abi::kReqNotifyTarget) h.flags |= abi::kWireNotifySender;
    if (r.flags & abi::kReqLocalFifo) h.flags |= abi::kWireDataToFifo;
    ext.sink_pvo = r.local_pvo;
    ext.sink_adapter = ctx.platform.AdapterId();
    ext.sink_window = static_cast<uint16_t>(window);
    ext.sink_rcxt = r.local_rcxt;
  }
  if (r.flags & abi::kReqRemoteFifo) h.flags |= abi::kToFifo;
  h.len_bytes = sizeof(ext);
  ctx.platform.TransmitControl(h, &ext, sizeof(ext));
  ++ctx.counters.tx_packets;
  return PostOutcome::kAccepted;
}

PostOutcome Cancel(Context& ctx, const Task& task, uint32_t window, abi::LmtEntry& lmt,
                   const abi::RdmaRequest& r, PostReport* report) {
  abi::RcxtRecord rec;
  uint32_t index;
  if (!ctx.rdma.Resolve(r.local_rcxt, window, &rec, &index)) {
    return Reject(ctx, task, window, DropReason::kRdmaBadRcxt);
  }
  // A transfer in progress ends here: its owner hears so instead of its completion.
  const bool awaiting = rec.state == static_cast<uint8_t>(abi::RcxtState::kAwaiting);
  if (report != nullptr && (Busy(rec) || awaiting)) {
    report->cancelled = true;
    report->tid = rec.tid;
    report->tag = rec.tag;
    report->length = rec.state == static_cast<uint8_t>(abi::RcxtState::kSending) ? rec.sent : 0;
  }
  if (rec.state == static_cast<uint8_t>(abi::RcxtState::kSending)) ctx.rdma.Unlink(lmt, index);
  ctx.rdma.EndInbound(index);
  // The tid stays: packets of the cancelled transfer still in the fabric are stale.
  rec.state = static_cast<uint8_t>(abi::RcxtState::kIdle);
  rec.sent = rec.length;
  ctx.rdma.Store(index, rec, task.id);
  ++ctx.counters.rdma_cancels;
  return PostOutcome::kAccepted;
}

void Fire(Context& ctx, const Task& task, const std::vector<ParkedRequest>& ready) {
  for (const ParkedRequest& p : ready) {
    ++ctx.counters.rdma_conditional_fired;
    abi::LmtEntry lmt = ctx.cbs.Read(p.window);
    if (!WindowOpen(lmt)) {
      CountDrop(ctx, &task, NotOpenReason(lmt), p.window);
      continue;
    }
    abi::SendSlotHeader slot = p.slot;
    slot.type = p.request.parked_type;
    RunRequest(ctx, task, p.window, lmt, slot, p.request, nullptr);
    ctx.cbs.Write(p.window, lmt);
  }
}

/**
 * Arms a landing rCxt of `window` (SlotType::kRcxtArm): from now on each transfer that
 * finishes landing on it bumps conditional queue `r.cond_queue`, an event at the data sink
 * that requests parked on the queue can wait for (an adapter forwarding what lands, without
 * its host). `r.tid` is the transfer the owner waits for next: an older one still landing, or
 * arriving later, is stale from now on. The queue's counter says whether that transfer has
 * landed already (1) or not (0), so a request parked on it at count 1 fires once it has,
 * whichever came first, the transfer or the arming. Requests parked on the queue before the
 * arming are discarded.
 */
PostOutcome ArmLanding(Context& ctx, const Task& task, uint32_t window, const abi::RdmaRequest& r) {
  abi::RcxtRecord rec;
  uint32_t index;
  if (!ctx.rdma.Resolve(r.local_rcxt, window, &rec, &index)) {
    return Reject(ctx, task, window, DropReason::kRdmaBadRcxt);
  }
  if (r.cond_queue >= abi::kConditionalQueues) {
    return Reject(ctx, task, window, DropReason::kRdmaBadRequest);
  }
  if (rec.state == static_cast<uint8_t>(abi::RcxtState::kSending) ||
      rec.state == static_cast<uint8_t>(abi::RcxtState::kAwaiting)) {
    return Reject(ctx, task, window, DropReason::kRdmaRcxtBusy);
  }
  bool landed = false;
  if (abi::TidBefore(rec.tid, r.tid)) {
    // What is landing, or landed, is older than what the owner waits for: from now on its
    // packets are stale.
    ctx.rdma.EndInbound(index);
    rec.state = static_cast<uint8_t>(abi::RcxtState::kIdle);
    rec.tid = r.tid - 1;
  } else {
    landed = rec.state == static_cast<uint8_t>(abi::RcxtState::kIdle);
  }
  rec.flags |= abi::kRcxtArmed;
  rec.cond_queue = r.cond_queue;
  ctx.rdma.Store(index, rec, task.id);
  // Requests still parked there waited for an earlier transfer: they must not fire on this one.
  ctx.counters.rdma_conditional_discarded += ctx.rdma.DiscardParked(r.cond_queue);
  Fire(ctx, task, ctx.rdma.SetCounter(r.cond_queue, landed ? 1 : 0));
  return PostOutcome::kAccepted;
}

}  // namespace

void StartSource(Context& ctx, const Task& task, uint32_t window, abi::LmtEntry& lmt,
                 uint32_t index, abi::RcxtRecord& rec, const SourceSetup& s) {
  rec.state = static_cast<uint8_t>(abi::RcxtState::kSending);
  rec.flags = s.flags;
  rec.cond_queue = s.cond_queue;
  rec.in_flight = 0;
  rec.tid = s.tid;
  rec.src_pvo = s.src_pvo;
  rec.dst_pvo = s.dst_pvo;
  rec.length = s.length;
  rec.sent = 0;
  rec.dest_adapter = s.dest_adapter;
  rec.dest_window = s.dest_window;
  rec.notify_adapter = s.notify_adapter;
  rec.notify_window = s.notify_window;
  rec.peer_rcxt = s.peer_rcxt;
  rec.notify_rcxt = s.notify_rcxt;
  rec.tag = s.tag;
  ctx.rdma.Store(index, rec, task.id);
  ctx.rdma.Enqueue(lmt, index);
  ctx.work.SetReady(window, true);
}

PostOutcome ArmPieceInitiator(Context& ctx, const Task& task, uint32_t window,
                              const abi::SendSlotHeader& slot, const abi::RdmaRequest& r) {
  if (!(r.flags & (abi::kReqNotifyInitiator | abi::kReqConditional))) {
    return PostOutcome::kAccepted;  // no completion comes back: no rCxt is involved here
  }
  abi::RcxtRecord rec;
  uint32_t index;
  if (!ctx.rdma.Resolve(r.local_rcxt, window, &rec, &index)) {
    return Reject(ctx, task, window, DropReason::kRdmaBadRcxt);
  }
  if (rec.state == static_cast<uint8_t>(abi::RcxtState::kAwaiting) && rec.tid == r.tid) {
    return PostOutcome::kAccepted;  // an earlier piece of this transfer armed it
  }
  if (Busy(rec)) return Reject(ctx, task, window, DropReason::kRdmaRcxtBusy);
  Arm(rec, abi::RcxtState::kAwaiting, slot, r);
  ctx.rdma.Store(index, rec, task.id);
  return PostOutcome::kAccepted;
}

uint8_t WriteDataFlags(const abi::RdmaRequest& r) {
  uint8_t f = 0;
  // A conditional initiator counts completions, so it needs them sent.
  if (r.flags & (abi::kReqNotifyInitiator | abi::kReqConditional)) f |= abi::kWireNotifySender;
  if (r.flags & abi::kReqNotifyTarget) f |= abi::kWireNotifySink;
  if (r.flags & abi::kReqRemoteFifo) f |= abi::kToFifo;
  return f;
}

PostOutcome RunRequest(Context& ctx, const Task& task, uint32_t window, abi::LmtEntry& lmt,
                       const abi::SendSlotHeader& slot, const abi::RdmaRequest& r,
                       PostReport* report) {
  const uint32_t queue = r.cond_queue;
  switch (static_cast<abi::SlotType>(slot.type)) {
    case abi::SlotType::kRdmaWrite:
      ++ctx.counters.rdma_requests;
      return PostWrite(ctx, task, window, lmt, slot, r);
    case abi::SlotType::kRdmaRead:
      ++ctx.counters.rdma_requests;
      return PostRead(ctx, task, window, lmt, slot, r, false);
    case abi::SlotType::kThirdPartyRead:
      ++ctx.counters.rdma_requests;
      return PostRead(ctx, task, window, lmt, slot, r, true);
    case abi::SlotType::kRcxtCancel:
      return Cancel(ctx, task, window, lmt, r, report);
    case abi::SlotType::kRcxtArm:
      return ArmLanding(ctx, task, window, r);
    case abi::SlotType::kConditional: {
      const bool parkable = r.parked_type == static_cast<uint8_t>(abi::SlotType::kRdmaWrite) ||
                            r.parked_type == static_cast<uint8_t>(abi::SlotType::kRdmaRead) ||
                            r.parked_type == static_cast<uint8_t>(abi::SlotType::kThirdPartyRead);
      if (queue >= abi::kConditionalQueues || !parkable) {
        return Reject(ctx, task, window, DropReason::kRdmaBadRequest);
      }
      ctx.rdma.Park(queue, ParkedRequest{window, slot, r});
      // A condition that already holds fires at once.
      Fire(ctx, task, ctx.rdma.SetCounter(queue, ctx.rdma.counter(queue)));
      return PostOutcome::kAccepted;
    }
    case abi::SlotType::kCounterSet:
      if (queue >= abi::kConditionalQueues) {
        return Reject(ctx, task, window, DropReason::kRdmaBadRequest);
      }
      Fire(ctx, task, ctx.rdma.SetCounter(queue, r.count));
      return PostOutcome::kAccepted;
    case abi::SlotType::kCounterQuery:
      if (queue >= abi::kConditionalQueues) {
        return Reject(ctx, task, window, DropReason::kRdmaBadRequest);
      }
      if (report != nullptr) report->query = ctx.rdma.counter(queue);
      return PostOutcome::kAccepted;
    default:
      return Reject(ctx, task, window, DropReason::kRdmaBadRequest);
  }
}

void BumpConditional(Context& ctx, const Task& task, uint32_t queue) {
  Fire(ctx, task, ctx.rdma.SetCounter(queue, ctx.rdma.counter(queue) + 1));
}

}  // namespace nicsim::fw
