// SPDX-License-Identifier: Apache-2.0
// Reliable packets: queued per destination, sent within the window, retransmitted on a
// timeout that follows the measured round trip, forgotten when acknowledged.
#include "ulp/transport/reliable_sender.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>

namespace nicsim::ulp {

bool ReliableSender::PacketKey::operator<(const PacketKey& o) const {
  return std::tie(dest, kind, seq, offset) < std::tie(o.dest, o.kind, o.seq, o.offset);
}

bool ReliableSender::PacketKey::operator==(const PacketKey& o) const {
  return std::tie(dest, kind, seq, offset) == std::tie(o.dest, o.kind, o.seq, o.offset);
}

ReliableSender::ReliableSender(const TransportContext& ctx, Events events)
    : ctx_(ctx), events_(std::move(events)), rtt_(ctx.config) {}

void ReliableSender::Queue(uint32_t dest, const Header& h, const uint8_t* data, uint32_t len) {
  const PacketKey key{dest, h.kind, h.seq, h.offset};
  if (packets_.count(key) > 0) return;
  OutPacket& p = packets_[key];
  p.dest = dest;
  // Header and payload appended: no zero-fill first.
  p.bytes.reserve(sizeof(h) + len);
  const auto* header = reinterpret_cast<const uint8_t*>(&h);
  p.bytes.assign(header, header + sizeof(h));
  if (len > 0) p.bytes.insert(p.bytes.end(), data, data + len);
  // Different messages go out through different ports.
  p.port = h.seq % ctx_.ports.size();
  waiting_[dest].push_back(key);
  PumpWindow(dest);
}

void ReliableSender::SendControl(uint32_t dest, Kind kind, uint32_t seq, uint32_t context) {
  Header h{};
  h.kind = static_cast<uint8_t>(kind);
  h.src_task = ctx_.config.task;
  h.seq = seq;
  h.offset = context;
  h.context = context;
  Queue(dest, h, nullptr, 0);
}

void ReliableSender::PumpWindow(uint32_t dest) {
  std::deque<PacketKey>& q = waiting_[dest];
  uint32_t& flying = in_flight_[dest];
  while (flying < ctx_.config.window && !q.empty()) {
    const PacketKey key = q.front();
    q.pop_front();
    auto it = packets_.find(key);
    if (it == packets_.end() || it->second.acked) continue;
    ++flying;
    Transmit(key, it->second);
  }
}

void ReliableSender::Transmit(const PacketKey& key, OutPacket& p) {
  const uint32_t port = p.port;
  Untrack(p);
  p.tx = ++transmissions_;
  p.last_port = port;
  sent_order_[p.dest].emplace(p.tx, key);
  p.ticket = ctx_.ports[port].Send(ctx_.ports.PeerOf(p.dest, port), p.bytes.data(),
                                   static_cast<uint32_t>(p.bytes.size()), 0);
  // A retransmission tries the next port: a dead adapter or path is left behind.
  p.port = (port + 1) % ctx_.ports.size();
  ++ctx_.stats.packets_sent;
  if (!p.sent) p.rto_ps = rtt_.AskingRtoFor(p.dest);
  p.departed_ps = 0;
  p.retransmitted = p.sent;
  p.sent = true;
  p.probed = false;
  p.sent_ps = ctx_.host.NowPs();
  ArmRetransmit(key, p);
}

void ReliableSender::ArmRetransmit(const PacketKey& key, OutPacket& p) {
  ArmAt(key, p, ctx_.host.NowPs() + p.rto_ps);
}

void ReliableSender::ArmAt(const PacketKey& key, OutPacket& p, uint64_t at) {
  ClearDeadline(p);
  p.deadline = deadlines_.emplace(at, key);
  p.has_deadline = true;
  ArmTimer(at);
}

void ReliableSender::ClearDeadline(OutPacket& p) {
  if (!p.has_deadline) return;
  deadlines_.erase(p.deadline);
  p.has_deadline = false;
}

void ReliableSender::ArmTimer(uint64_t at_ps) {
  // A later deadline is served by the timer already set (it re-arms for what is left); only
  // an earlier one needs a timer of its own.
  if (at_ps >= timer_at_ps_) return;
  timer_at_ps_ = at_ps;
  ctx_.timers.After(at_ps - ctx_.host.NowPs(), [this, at_ps] { OnTimer(at_ps); });
}

void ReliableSender::OnTimer(uint64_t at_ps) {
  if (at_ps != timer_at_ps_) return;  // an earlier timer took over, and has run
  timer_at_ps_ = std::numeric_limits<uint64_t>::max();
  const uint64_t now = ctx_.host.NowPs();
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const PacketKey key = deadlines_.begin()->second;
    OutPacket& packet = packets_.at(key);
    ClearDeadline(packet);
    OnTimeout(key, packet);
  }
  if (!deadlines_.empty()) ArmTimer(deadlines_.begin()->first);
}

void ReliableSender::OnTimeout(const PacketKey& key, OutPacket& packet) {
  // The last copy has not left through the adapter yet (it waits in the backlog or the send
  // FIFO behind this task's own packets): the time went to queueing here, not to loss on the
  // way, and with one port a new copy or a probe would queue behind it. Nothing is sent and
  // nothing backed off (nothing was learnt of the way there): the packet is looked at again a
  // quarter of its timeout later, and once it has left, its timeout runs from then. With
  // several ports the copy goes to the next one instead (Transmit moves each copy on), past a
  // port that may be stuck.
  const bool queued_here =
      ctx_.ports.size() == 1 && !ctx_.ports[packet.last_port].Transmitted(packet.ticket);
  const uint64_t now = ctx_.host.NowPs();
  if (queued_here && now - packet.sent_ps < ctx_.config.rto_max_ps) {
    ++ctx_.stats.retransmits_deferred;
    packet.awaiting_departure = true;
    ArmAt(key, packet, now + std::max<uint64_t>(packet.rto_ps / 4, 1'000'000));
    return;
  }
  if (packet.awaiting_departure && !queued_here) {
    // It left within the last look: its timeout runs from about now.
    packet.awaiting_departure = false;
    packet.departed_ps = now;
    ArmRetransmit(key, packet);
    return;
  }
  // One question at a time per destination: its answer comes behind the acknowledgements of
  // what was sent there before (the way back keeps its order), so it settles them too. This
  // packet waits for that answer (it is no send of its own, and no back-off).
  auto asked = probing_.find(packet.dest);
  if (lossy_.count(packet.dest) == 0 && asked != probing_.end() && !(asked->second == key)) {
    if (packets_.count(asked->second) > 0) {
      ++ctx_.stats.probes_coalesced;
      ArmRetransmit(key, packet);
      return;
    }
  }
  if (packet.generation + 1 >= ctx_.config.max_retransmits) {
    events_.unreachable(packet.dest);
    return;
  }
  ++packet.generation;
  packet.rto_ps = std::min(packet.rto_ps * 2, ctx_.config.rto_max_ps);
  if (queued_here) {
    // Queued longer than rto_max_ps: the port may never drain. Each timeout from now on
    // counts as a send (doubled, towards max_retransmits), so a dead port still ends in
    // OnUnreachable.
    ++ctx_.stats.retransmits_deferred;
    ArmRetransmit(key, packet);
    return;
  }
  rtt_.BackOff(packet.dest, packet.rto_ps);
  // A kNack said the way to that destination loses packets: while it does, a timeout sends
  // the packet again at once, as asking would cost a round trip that is itself likely to be
  // lost. (A probe with no answer says nothing: its answer may wait behind a long queue.)
  if (lossy_.count(packet.dest) > 0) {
    ++ctx_.stats.retransmits;
    Transmit(key, packet);
    return;
  }
  probing_[packet.dest] = key;
  // Ask rather than send again: the packet may be queued (here, in the fabric, or its
  // acknowledgement behind the receiver's own sends), and only the receiver knows.
  ++ctx_.stats.probes;
  Probe(key, packet);
}

void ReliableSender::Probe(const PacketKey& key, OutPacket& packet) {
  // The first probe follows the packet through its port (so it cannot overtake it on the way);
  // each later one goes through the next port, past a port or path that may be dead.
  uint32_t via = packet.last_port;
  if (packet.probed) {
    via = packet.port;
    packet.port = (packet.port + 1) % ctx_.ports.size();
  }
  packet.probed = true;
  ctx_.ports.SendHeader(via, packet.dest, AboutPacket(Kind::kProbe, key.kind, key.seq, key.offset));
  ArmRetransmit(key, packet);
}

void ReliableSender::Untrack(const OutPacket& p) {
  if (p.tx == 0) return;
  auto order = sent_order_.find(p.dest);
  if (order != sent_order_.end()) order->second.erase(p.tx);
}

void ReliableSender::OnNack(const Header& h) {
  const PacketKey key{h.src_task, h.acked, h.seq, h.offset};
  auto it = packets_.find(key);
  // Only an answer to the probe since the last transmission counts (a second answer, or one
  // to a probe before a copy that is on its way, would send a needless copy).
  if (it == packets_.end() || !it->second.probed) return;
  ForgetProbe(key);
  lossy_.insert(h.src_task);
  ++ctx_.stats.retransmits;
  Transmit(key, it->second);
}

void ReliableSender::AnswerProbe(uint32_t port, const Header& h, bool held) {
  if (held) {
    Header ack = AboutPacket(Kind::kAck, h.acked, h.seq, h.offset);
    ack.flags = kAckAnswersProbe;
    ctx_.ports.SendHeader(port, h.src_task, ack);
    return;
  }
  ctx_.ports.SendHeader(port, h.src_task, AboutPacket(Kind::kNack, h.acked, h.seq, h.offset));
}

void ReliableSender::OnAck(const Header& h) {
  const PacketKey key{h.src_task, h.acked, h.seq, h.offset};
  auto it = packets_.find(key);
  if (it == packets_.end()) return;
  // A probed packet that was there after all: the way to its destination queues, not loses.
  if (it->second.probed && !it->second.retransmitted) lossy_.erase(h.src_task);
  if (!it->second.retransmitted && (h.flags & kAckAnswersProbe) == 0) {
    // Karn: only packets sent once give a round-trip sample, and only by their own
    // acknowledgement, not a probe's answer (a late one is the queue the estimate must learn).
    const uint64_t from = std::max(it->second.sent_ps, it->second.departed_ps);
    rtt_.Sample(h.src_task, static_cast<double>(ctx_.host.NowPs() - from));
  }
  ForgetProbe(key);
  const uint64_t tx = it->second.tx;
  const uint32_t via = it->second.last_port;
  ClearDeadline(it->second);
  Untrack(it->second);
  packets_.erase(it);
  uint32_t& flying = in_flight_[h.src_task];
  if (flying > 0) --flying;
  ProbeOvertaken(h.src_task, tx, via);
  const auto kind = static_cast<Kind>(h.acked);
  if (kind == Kind::kData || kind == Kind::kRts) events_.message_packet_acked(h.src_task, h.seq);
  PumpWindow(h.src_task);
}

void ReliableSender::ProbeOvertaken(uint32_t dest, uint64_t tx, uint32_t via) {
  auto order = sent_order_.find(dest);
  if (order == sent_order_.end()) return;
  // A path and the way back each keep their order, so a packet sent earlier through the same
  // port should have been acknowledged first: it, or its acknowledgement, was most likely
  // lost. Ask now rather than at its timeout. (Acknowledgements come in order, so this finds
  // nothing unless one was overtaken.)
  std::vector<PacketKey> overtaken;
  for (auto o = order->second.begin(); o != order->second.end() && o->first < tx; ++o) {
    const OutPacket& earlier = packets_.at(o->second);
    if (earlier.last_port == via && !earlier.probed) overtaken.push_back(o->second);
  }
  for (const PacketKey& key : overtaken) {
    ++ctx_.stats.probes_overtaken;
    Probe(key, packets_.at(key));
  }
}

void ReliableSender::ForgetProbe(const PacketKey& key) {
  auto asked = probing_.find(key.dest);
  if (asked != probing_.end() && asked->second == key) probing_.erase(asked);
}

void ReliableSender::Acknowledge(uint32_t port, const Header& h) {
  // The ack goes back the way the packet came.
  ctx_.ports.SendHeader(port, h.src_task, AboutPacket(Kind::kAck, h.kind, h.seq, h.offset));
}

Header ReliableSender::AboutPacket(Kind kind, uint8_t packet_kind, uint32_t seq,
                                   uint32_t offset) const {
  Header h{};
  h.kind = static_cast<uint8_t>(kind);
  h.acked = packet_kind;
  h.src_task = ctx_.config.task;
  h.seq = seq;
  h.offset = offset;
  return h;
}

void ReliableSender::DropMessage(uint32_t dest, uint32_t seq) {
  for (auto p = packets_.lower_bound(PacketKey{dest, 0, 0, 0});
       p != packets_.end() && p->first.dest == dest;) {
    const auto kind = static_cast<Kind>(p->first.kind);
    if (p->first.seq == seq && (kind == Kind::kData || kind == Kind::kRts)) {
      if (p->second.sent && in_flight_[dest] > 0) --in_flight_[dest];
      ClearDeadline(p->second);
      Untrack(p->second);
      p = packets_.erase(p);
    } else {
      ++p;
    }
  }
}

void ReliableSender::DropDestination(uint32_t dest) {
  for (auto p = packets_.lower_bound(PacketKey{dest, 0, 0, 0});
       p != packets_.end() && p->first.dest == dest;) {
    ClearDeadline(p->second);
    p = packets_.erase(p);
  }
  waiting_.erase(dest);
  probing_.erase(dest);
  in_flight_.erase(dest);
  sent_order_.erase(dest);
}

}  // namespace nicsim::ulp
