// SPDX-License-Identifier: Apache-2.0
// The block service's point-to-point transfer (BlockTransfer::kFetchOrder), kept beside the
// third-party one for comparison: the manager orders the requester to read the block from
// its owner, the requester reads it, then reports to the manager, which answers "done".
//
// Tids: the manager sets max_tries tids aside per order from its one counter, and the
// requester's reads use them in turn. Every rCxt these reads touch (the owner's source rCxt
// for the manager, the requester's landing rCxt for the manager) is one the manager's
// counter alone feeds, so each of them still sees rising tids.
#include <cstring>

#include "abi/rdma.h"
#include "ulp/dlm/block_service.h"
#include "ulp/dlm/block_service_message.h"

namespace nicsim::ulp {

// ---------------------------------------------------------------------------------------
// Manager.

void BlockServiceNode::SendOrder(const ManagedKey& key) {
  Managed& r = managed_.at(key);
  if (!r.ordered) {
    r.ordered = true;
    r.first_tid = next_tid_ + 1;
    next_tid_ += config_.max_tries;
  }
  ++stats_.orders_sent;
  const uint32_t owner = BlockOwner(r.block, config_.nodes);
  Message m{};
  m.kind = Message::kOrder;
  m.request = key.second;
  m.block = r.block;
  m.slot = r.slot;
  m.pvo = directory_[owner].blocks_pvo + uint64_t{ordinal_[r.block]} * config_.block_bytes;
  m.rcxt = directory_[owner].source_rcxts[node_ * config_.slots + r.source];
  m.tid = r.first_tid;
  SendMessage(r.requester, m);
}

void BlockServiceNode::OnReport(uint32_t requester, uint64_t request) {
  const ManagedKey key{requester, request};
  auto it = managed_.find(key);
  if (it == managed_.end() || !it->second.ordered) return;  // nothing was ordered
  Managed& r = it->second;
  if (r.done) {
    ++stats_.duplicate_reports;
    SendDone(key);  // the first "done" was lost
    return;
  }
  // The requester has the block: the owner's source rCxt is free for the next order.
  r.done = true;
  ++stats_.completions;
  stats_.bytes_moved += config_.block_bytes;
  SendDone(key);
  FinishRead(r);
}

// ---------------------------------------------------------------------------------------
// Requester.

void BlockServiceNode::OnOrder(uint32_t manager, const Message& m) {
  auto it = outgoing_.find(m.request);
  if (it == outgoing_.end() || it->second.manager != manager ||
      it->second.phase != Phase::kAsking || m.block != it->second.block) {
    ++stats_.duplicate_orders;
    return;
  }
  Outgoing& o = it->second;
  o.phase = Phase::kFetching;
  o.sends = 0;
  o.source_rcxt = m.rcxt;
  o.source_pvo = m.pvo;
  o.first_tid = m.tid;
  PostFetch(m.request);
}

void BlockServiceNode::PostFetch(uint64_t request) {
  Outgoing& o = outgoing_.at(request);
  if (o.reads == config_.max_tries) {
    // Given up; the report still goes, so the manager frees the owner's source rCxt. The
    // slot stays taken for good: a late transfer may still land in it.
    Abandon(request, o.block);
    o.phase = Phase::kReporting;
    o.sends = 0;
    SendReport(request);
    return;
  }
  if (o.reads > 0) {
    // A read whose data were partly lost leaves the landing rCxt receiving, and the adapter
    // refuses a new read on it: stop the old one first (its late packets are stale).
    ++stats_.fetch_redrives;
    abi::RdmaRequest cancel{};
    cancel.local_rcxt = landing_rcxts_[o.slot];
    port_.Post(abi::SlotType::kRcxtCancel, port_.self(), cancel, o.block);
  }
  ++stats_.fetch_reads;
  abi::RdmaRequest q{};
  q.local_rcxt = landing_rcxts_[o.slot];
  q.remote_rcxt = o.source_rcxt;
  q.tid = o.first_tid + o.reads;
  q.length = config_.block_bytes;
  q.local_pvo = landing_pvo_ + uint64_t{o.slot} * config_.block_bytes;
  q.remote_pvo = o.source_pvo;
  q.flags = abi::kReqNotifyInitiator;
  ++o.reads;
  port_.Post(abi::SlotType::kRdmaRead, directory_[BlockOwner(o.block, config_.nodes)].peer, q,
             o.block);
  const uint32_t reads = o.reads;
  timers_.After(Wait(reads), [this, request, reads] {
    auto it = outgoing_.find(request);
    if (it != outgoing_.end() && it->second.phase == Phase::kFetching &&
        it->second.reads == reads) {
      PostFetch(request);
    }
  });
}

void BlockServiceNode::OnFetchCompletion(uint32_t slot, uint32_t tid) {
  auto it = HolderOf(slot);
  // Only the reads of the request now holding the slot count; any of its tids will do
  // (every read moves the same bytes to the same slot).
  if (it == outgoing_.end() || it->second.phase != Phase::kFetching ||
      abi::TidBefore(tid, it->second.first_tid) ||
      !abi::TidBefore(tid, it->second.first_tid + it->second.reads)) {
    ++stats_.late_completions;
    return;
  }
  const uint64_t request = it->first;
  Outgoing& o = it->second;
  if (tid + 1 != o.first_tid + o.reads) ++stats_.early_completions;
  // The adapter wrote this completion once every byte of the read was coherent here.
  Deliver(request, o);
  slot_busy_[slot] = false;
  o.phase = Phase::kReporting;
  o.sends = 0;
  const uint32_t manager = o.manager;
  SendReport(request);
  Issue(manager);
}

void BlockServiceNode::SendReport(uint64_t request) {
  auto it = outgoing_.find(request);
  if (it == outgoing_.end()) return;
  Outgoing& o = it->second;
  if (o.sends == config_.max_tries) {
    // The manager never answered: the owner's source rCxt stays taken there, and requests
    // that need it are abandoned in their turn (the run fails).
    outgoing_.erase(it);
    return;
  }
  ++o.sends;
  ++stats_.reports_sent;
  Message m{};
  m.kind = Message::kReport;
  m.request = request;
  m.block = o.block;
  m.slot = o.slot;
  SendMessage(o.manager, m);
  ResendLater(request);
}

}  // namespace nicsim::ulp
