// SPDX-License-Identifier: Apache-2.0
// Transport, receiving: fragments are acknowledged and assembled, an RTS starts a pull, and
// complete messages are delivered exactly once, in order per source.
#include "ulp/transport.h"

#include <cstring>
#include <memory>

namespace nicsim::ulp {

void Transport::OnData(uint32_t port, const Header& h, const uint8_t* data) {
  Ack(port, h.src_task, h);
  InConn& conn = in_[h.src_task];
  if (static_cast<int32_t>(h.seq - conn.next_deliver) < 0) {
    ++stats_.duplicates;
    return;
  }
  InMsg& m = conn.msgs[h.seq];
  if (m.fragments.empty() && m.state == InState::kFragments) {
    m.context = h.context;
    m.tag = h.tag;
    m.total = h.total;
  }
  if (m.state == InState::kComplete) {
    ++stats_.duplicates;
    return;
  }
  if (m.state == InState::kPulling) {
    // The sender is pushing the bytes in packet mode: the pull is over.
    m.state = InState::kPushed;
    EndPull(m);
  }
  if (m.data.size() != m.total) m.data.resize(m.total);
  if (uint64_t{h.offset} + h.frag_len > m.total || !m.fragments.insert(h.offset).second) {
    ++stats_.duplicates;
    return;
  }
  if (h.frag_len > 0) std::memcpy(m.data.data() + h.offset, data, h.frag_len);
  m.received += h.frag_len;
  if (m.received == m.total) {
    m.state = InState::kComplete;
    TryDeliver(h.src_task);
  }
}

void Transport::OnRts(uint32_t port, const Header& h, const uint8_t* body, uint32_t len) {
  Ack(port, h.src_task, h);
  InConn& conn = in_[h.src_task];
  if (static_cast<int32_t>(h.seq - conn.next_deliver) < 0 || conn.msgs.count(h.seq) > 0 ||
      len < sizeof(RtsBody)) {
    ++stats_.duplicates;
    return;
  }
  InMsg& m = conn.msgs[h.seq];
  m.state = InState::kPulling;
  m.context = h.context;
  m.tag = h.tag;
  m.total = h.total;
  std::memcpy(&m.rts, body, sizeof(m.rts));
  source_readers_[h.src_task] = m.rts.readers;
  if (!config_.rdma || m.rts.spans == 0 || m.rts.spans > kMaxRtsSpans || m.rts.rcxts == 0 ||
      m.rts.rcxts > 2 * kMaxPipeline || m.rts.rcxts % 2 != 0) {
    FallBack(h.src_task, h.seq, m);
    return;
  }
  StartPull(h.src_task, h.seq, m);
}

void Transport::TryDeliver(uint32_t src) {
  InConn& conn = in_[src];
  for (;;) {
    auto it = conn.msgs.find(conn.next_deliver);
    if (it == conn.msgs.end() || it->second.state != InState::kComplete) return;
    InMsg m = std::move(it->second);
    conn.msgs.erase(it);
    ++conn.next_deliver;
    ++stats_.messages_delivered;
    if (config_.recv_overhead_ps == 0) {
      if (deliver_) deliver_(src, m.context, m.tag, std::move(m.data));
      continue;
    }
    auto shared = std::make_shared<InMsg>(std::move(m));
    host_.After(config_.recv_overhead_ps, [this, alive = alive_, src, shared] {
      if (*alive && deliver_) deliver_(src, shared->context, shared->tag, std::move(shared->data));
    });
  }
}

}  // namespace nicsim::ulp
