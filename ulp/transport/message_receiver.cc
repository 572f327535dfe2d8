// SPDX-License-Identifier: Apache-2.0
// Receiving: fragments are assembled, an RTS starts a pull, and complete messages are
// delivered exactly once, in order per source.
#include "ulp/transport/message_receiver.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

namespace nicsim::ulp {

MessageReceiver::MessageReceiver(const TransportContext& ctx, RdmaPuller& puller)
    : ctx_(ctx), puller_(puller) {}

const MessageReceiver::InMsg* MessageReceiver::Find(uint32_t src, uint32_t seq) const {
  if (auto a = announced_.find(MsgKey(src, seq)); a != announced_.end()) return &a->second;
  auto conn = in_.find(src);
  if (conn == in_.end()) return nullptr;
  auto msg = conn->second.msgs.find(seq);
  return msg == conn->second.msgs.end() ? nullptr : &msg->second;
}

MessageReceiver::InMsg* MessageReceiver::Find(uint32_t src, uint32_t seq) {
  return const_cast<InMsg*>(std::as_const(*this).Find(src, seq));
}

bool MessageReceiver::Holds(uint32_t src, Kind kind, uint32_t seq, uint32_t offset) const {
  if (const InMsg* m = Find(src, seq)) {
    // A message held in any other state than fragments had its RTS (fragments after it are
    // pushed ones).
    if (kind == Kind::kRts) return m->state != InState::kFragments;
    if (m->state == InState::kComplete) return true;
    return m->arrived.Contains(offset, uint64_t{offset} + 1);
  }
  // Not held: delivered (or handed over, if it was announced) when older than the next.
  auto conn = in_.find(src);
  return conn != in_.end() && static_cast<int32_t>(seq - conn->second.next_deliver) < 0;
}

void MessageReceiver::OnData(const Header& h, const uint8_t* data) {
  auto announced = announced_.find(MsgKey(h.src_task, h.seq));
  InConn& conn = in_[h.src_task];
  if (announced == announced_.end() && static_cast<int32_t>(h.seq - conn.next_deliver) < 0) {
    ++ctx_.stats.duplicates;
    return;
  }
  InMsg& m = announced != announced_.end() ? announced->second : conn.msgs[h.seq];
  // Fragments of an announced message come only once it was accepted and its pull declined.
  if (m.state == InState::kAnnounced) {
    ++ctx_.stats.duplicates;
    return;
  }
  if (m.arrived.empty() && m.state == InState::kFragments) {
    m.context = h.context;
    m.tag = h.tag;
    m.total = h.total;
  }
  if (m.state == InState::kComplete) {
    ++ctx_.stats.duplicates;
    return;
  }
  if (m.state == InState::kPulling) {
    // The sender is pushing the bytes in packet mode: the pull is over.
    m.state = InState::kPushed;
    puller_.End(h.src_task, h.seq);
  }
  if (m.data.size() != m.total) m.data.resize(m.total);
  const uint64_t end = uint64_t{h.offset} + h.frag_len;
  // (A message of no bytes is one fragment of none, which completes it at once.)
  if (end > m.total || (h.frag_len > 0 && m.arrived.Contains(h.offset, end))) {
    ++ctx_.stats.duplicates;
    return;
  }
  if (h.frag_len > 0) std::memcpy(m.data.data() + h.offset, data, h.frag_len);
  m.arrived.Add(h.offset, end);
  if (m.arrived.bytes() == m.total) Completed(h.src_task, h.seq, m);
}

void MessageReceiver::OnRts(const Header& h, const uint8_t* body, uint32_t len) {
  InConn& conn = in_[h.src_task];
  if (static_cast<int32_t>(h.seq - conn.next_deliver) < 0 || conn.msgs.count(h.seq) > 0 ||
      len < sizeof(RtsBody)) {
    ++ctx_.stats.duplicates;
    return;
  }
  InMsg& m = conn.msgs[h.seq];
  m.context = h.context;
  m.tag = h.tag;
  m.total = h.total;
  RtsBody rts;
  std::memcpy(&rts, body, sizeof(rts));
  if ((h.flags & kRtsAwaitsAccept) != 0) {
    m.state = InState::kAnnounced;
    m.rts = std::make_unique<RtsBody>(rts);
    TryDeliver(h.src_task);
    return;
  }
  m.state = InState::kPulling;
  puller_.Offer(h.src_task, h.seq, m.total, rts);
}

bool MessageReceiver::Accept(uint32_t src, uint32_t seq, uint64_t in_place) {
  auto it = announced_.find(MsgKey(src, seq));
  if (it == announced_.end() || it->second.state != InState::kAnnounced) return false;
  InMsg& m = it->second;
  const std::unique_ptr<RtsBody> rts = std::move(m.rts);
  m.state = InState::kPulling;
  if (rts->rcxts == 0) {
    // The sender had no RDMA for it: the bytes come in packet mode.
    puller_.Decline(src, seq);
  } else {
    puller_.Offer(src, seq, m.total, *rts, in_place);
  }
  return true;
}

void MessageReceiver::OnPullLanded(uint32_t src, uint32_t seq, std::vector<uint8_t> data) {
  InMsg& m = *Find(src, seq);
  m.data = std::move(data);
  Completed(src, seq, m);
}

void MessageReceiver::OnRingLanded(uint32_t src, uint32_t seq, uint32_t context, uint32_t tag,
                                   std::vector<uint8_t> data) {
  InConn& conn = in_[src];
  if (static_cast<int32_t>(seq - conn.next_deliver) < 0 || conn.msgs.count(seq) > 0) {
    ++ctx_.stats.duplicates;
    return;
  }
  InMsg& m = conn.msgs[seq];
  m.context = context;
  m.tag = tag;
  m.total = data.size();
  m.data = std::move(data);
  m.state = InState::kComplete;
  TryDeliver(src);
}

void MessageReceiver::OnPullAbandoned(uint32_t src, uint32_t seq) {
  InMsg& m = *Find(src, seq);
  m.state = InState::kPushed;
  m.data.assign(m.total, 0);
  m.arrived = ByteRanges();
}

void MessageReceiver::Completed(uint32_t src, uint32_t seq, InMsg& m) {
  m.state = InState::kComplete;
  auto announced = announced_.find(MsgKey(src, seq));
  if (announced == announced_.end()) {
    TryDeliver(src);
    return;
  }
  auto data = std::make_shared<std::vector<uint8_t>>(std::move(announced->second.data));
  announced_.erase(announced);
  ++ctx_.stats.messages_delivered;
  AfterRecvOverhead([this, src, seq, data] {
    if (accepted_) accepted_(src, seq, std::move(*data));
  });
}

void MessageReceiver::AfterRecvOverhead(std::function<void()> fn) {
  if (ctx_.config.recv_overhead_ps == 0) {
    fn();
    return;
  }
  ctx_.timers.After(ctx_.config.recv_overhead_ps, std::move(fn));
}

void MessageReceiver::TryDeliver(uint32_t src) {
  InConn& conn = in_[src];
  for (;;) {
    auto it = conn.msgs.find(conn.next_deliver);
    if (it == conn.msgs.end()) return;
    const InState state = it->second.state;
    if (state != InState::kComplete && state != InState::kAnnounced) return;
    const uint32_t seq = conn.next_deliver++;
    InMsg m = std::move(it->second);
    conn.msgs.erase(it);
    const uint32_t context = m.context, tag = m.tag;
    if (state == InState::kAnnounced) {
      // Its turn: the upper layer hears of it, and it waits out of the order to be accepted.
      const uint64_t total = m.total;
      announced_[MsgKey(src, seq)] = std::move(m);
      AfterRecvOverhead([this, src, seq, context, tag, total] {
        if (announce_) announce_(src, context, tag, total, seq);
      });
      continue;
    }
    ++ctx_.stats.messages_delivered;
    if (ctx_.config.recv_overhead_ps == 0) {
      if (deliver_) deliver_(src, context, tag, std::move(m.data));
      continue;
    }
    auto data = std::make_shared<std::vector<uint8_t>>(std::move(m.data));
    ctx_.timers.After(ctx_.config.recv_overhead_ps, [this, src, context, tag, data] {
      if (deliver_) deliver_(src, context, tag, std::move(*data));
    });
  }
}

bool MessageReceiver::empty() const {
  if (!announced_.empty()) return false;
  for (const auto& [src, conn] : in_) {
    if (!conn.msgs.empty()) return false;
  }
  return true;
}

InStateCounts MessageReceiver::CountByState() const {
  InStateCounts counts{};
  for (const auto& [src, conn] : in_) {
    for (const auto& [seq, m] : conn.msgs) ++counts[static_cast<size_t>(m.state)];
  }
  for (const auto& [key, m] : announced_) ++counts[static_cast<size_t>(m.state)];
  return counts;
}

}  // namespace nicsim::ulp
