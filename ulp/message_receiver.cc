// SPDX-License-Identifier: Apache-2.0
// Receiving: fragments are assembled, an RTS starts a pull, and complete messages are
// delivered exactly once, in order per source.
#include "ulp/message_receiver.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace nicsim::ulp {

namespace {
/** Adds `offset` to the ascending `offsets`; false if it is there already. */
bool AddFragment(std::vector<uint32_t>& offsets, uint32_t offset) {
  if (offsets.empty() || offsets.back() < offset) {
    offsets.push_back(offset);
    return true;
  }
  const auto at = std::lower_bound(offsets.begin(), offsets.end(), offset);
  if (at != offsets.end() && *at == offset) return false;
  offsets.insert(at, offset);
  return true;
}
}  // namespace

MessageReceiver::MessageReceiver(const TransportContext& ctx, RdmaPuller& puller)
    : ctx_(ctx), puller_(puller) {}

bool MessageReceiver::Holds(uint32_t src, Kind kind, uint32_t seq, uint32_t offset) const {
  auto conn = in_.find(src);
  if (conn == in_.end()) return false;
  if (static_cast<int32_t>(seq - conn->second.next_deliver) < 0) return true;  // delivered
  auto msg = conn->second.msgs.find(seq);
  if (msg == conn->second.msgs.end()) return false;
  const InMsg& m = msg->second;
  // A message held in any other state than fragments had its RTS (fragments after it are
  // pushed ones).
  if (kind == Kind::kRts) return m.state != InState::kFragments;
  if (m.state == InState::kComplete) return true;
  return std::binary_search(m.fragments.begin(), m.fragments.end(), offset);
}

void MessageReceiver::OnData(const Header& h, const uint8_t* data) {
  InConn& conn = in_[h.src_task];
  if (static_cast<int32_t>(h.seq - conn.next_deliver) < 0) {
    ++ctx_.stats.duplicates;
    return;
  }
  InMsg& m = conn.msgs[h.seq];
  if (m.fragments.empty() && m.state == InState::kFragments) {
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
  if (uint64_t{h.offset} + h.frag_len > m.total || !AddFragment(m.fragments, h.offset)) {
    ++ctx_.stats.duplicates;
    return;
  }
  if (h.frag_len > 0) std::memcpy(m.data.data() + h.offset, data, h.frag_len);
  m.received += h.frag_len;
  if (m.received == m.total) {
    m.state = InState::kComplete;
    TryDeliver(h.src_task);
  }
}

void MessageReceiver::OnRts(const Header& h, const uint8_t* body, uint32_t len) {
  InConn& conn = in_[h.src_task];
  if (static_cast<int32_t>(h.seq - conn.next_deliver) < 0 || conn.msgs.count(h.seq) > 0 ||
      len < sizeof(RtsBody)) {
    ++ctx_.stats.duplicates;
    return;
  }
  InMsg& m = conn.msgs[h.seq];
  m.state = InState::kPulling;
  m.context = h.context;
  m.tag = h.tag;
  m.total = h.total;
  RtsBody rts;
  std::memcpy(&rts, body, sizeof(rts));
  uint64_t in_place = 0;
  auto placed = placements_.find({h.src_task, h.context, h.tag});
  if (placed != placements_.end()) {
    if (m.total <= placed->second.len) in_place = placed->second.vaddr;
    placements_.erase(placed);
  }
  puller_.Offer(h.src_task, h.seq, m.total, rts, in_place);
}

void MessageReceiver::LandInPlace(uint32_t src, uint32_t context, uint32_t tag, uint64_t vaddr,
                                  uint64_t len) {
  placements_[{src, context, tag}] = Placement{vaddr, len};
}

void MessageReceiver::OnPullLanded(uint32_t src, uint32_t seq, std::vector<uint8_t> data) {
  InMsg& m = in_.at(src).msgs.at(seq);
  m.data = std::move(data);
  m.state = InState::kComplete;
  TryDeliver(src);
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
  InMsg& m = in_.at(src).msgs.at(seq);
  m.state = InState::kPushed;
  m.data.assign(m.total, 0);
  m.fragments.clear();
  m.received = 0;
}

void MessageReceiver::TryDeliver(uint32_t src) {
  InConn& conn = in_[src];
  for (;;) {
    auto it = conn.msgs.find(conn.next_deliver);
    if (it == conn.msgs.end() || it->second.state != InState::kComplete) return;
    InMsg m = std::move(it->second);
    conn.msgs.erase(it);
    ++conn.next_deliver;
    ++ctx_.stats.messages_delivered;
    if (ctx_.config.recv_overhead_ps == 0) {
      if (deliver_) deliver_(src, m.context, m.tag, std::move(m.data));
      continue;
    }
    auto shared = std::make_shared<InMsg>(std::move(m));
    ctx_.timers.After(ctx_.config.recv_overhead_ps, [this, src, shared] {
      if (deliver_) deliver_(src, shared->context, shared->tag, std::move(shared->data));
    });
  }
}

bool MessageReceiver::empty() const {
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
  return counts;
}

}  // namespace nicsim::ulp
