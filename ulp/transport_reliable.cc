// SPDX-License-Identifier: Apache-2.0
// Transport, reliable packets: every packet of a message (fragments, RTS, done and fallback
// notices) is queued per destination, sent within the window, retransmitted on a timeout
// that follows the measured round trip, and forgotten when acknowledged.
#include "ulp/transport.h"

#include <algorithm>
#include <cstring>

namespace nicsim::ulp {

void Transport::QueueReliable(uint32_t dest, const Header& h, const uint8_t* data, uint32_t len) {
  const PacketKey key{dest, h.kind, h.seq, h.offset};
  if (out_packets_.count(key) > 0) return;
  OutPacket& p = out_packets_[key];
  p.dest = dest;
  p.bytes.resize(sizeof(h) + len);
  std::memcpy(p.bytes.data(), &h, sizeof(h));
  if (len > 0) std::memcpy(p.bytes.data() + sizeof(h), data, len);
  p.rto_ps = RtoFor(dest);
  // Different messages go out through different ports.
  p.port = h.seq % static_cast<uint32_t>(ports_.size());
  waiting_[dest].push_back(key);
  PumpWindow(dest);
}

void Transport::PumpWindow(uint32_t dest) {
  std::deque<PacketKey>& q = waiting_[dest];
  uint32_t& flying = in_flight_[dest];
  while (flying < config_.window && !q.empty()) {
    const PacketKey key = q.front();
    q.pop_front();
    auto it = out_packets_.find(key);
    if (it == out_packets_.end() || it->second.acked) continue;
    ++flying;
    Transmit(key, it->second);
  }
}

uint64_t Transport::RtoFor(uint32_t dest) const {
  auto it = rtt_.find(dest);
  if (it == rtt_.end()) return config_.rto_ps;
  const RttEstimate& e = it->second;
  const uint64_t estimate =
      e.rtt.valid ? static_cast<uint64_t>(e.rtt.Bound()) : config_.rto_ps;
  return std::clamp<uint64_t>(std::max(estimate, e.backoff_ps), config_.rto_min_ps,
                              config_.rto_max_ps);
}

void Transport::Transmit(const PacketKey& key, OutPacket& p) {
  const uint32_t port = p.port;
  ports_[port]->Send(peer_of_(p.dest, port), p.bytes.data(),
                     static_cast<uint32_t>(p.bytes.size()), 0);
  // A retransmission tries the next port: a dead adapter or path is left behind.
  p.port = (port + 1) % static_cast<uint32_t>(ports_.size());
  ++stats_.packets_sent;
  p.retransmitted = p.sent;
  p.sent = true;
  p.sent_ps = host_.NowPs();
  ArmRetransmit(key, p);
}

void Transport::ArmRetransmit(const PacketKey& key, const OutPacket& p) {
  const uint32_t generation = p.generation;
  host_.After(p.rto_ps, [this, alive = alive_, key, generation] {
    if (!*alive) return;
    auto it = out_packets_.find(key);
    if (it == out_packets_.end() || it->second.acked || it->second.generation != generation) {
      return;
    }
    OutPacket& packet = it->second;
    if (packet.generation + 1 >= config_.max_retransmits) {
      GiveUp(packet.dest);
      return;
    }
    ++packet.generation;
    packet.rto_ps = std::min(packet.rto_ps * 2, config_.rto_max_ps);
    uint64_t& backoff = rtt_[packet.dest].backoff_ps;
    backoff = std::max(backoff, packet.rto_ps);
    ++stats_.retransmits;
    Transmit(key, packet);
  });
}

void Transport::OnAck(const Header& h) {
  const PacketKey key{h.src_task, h.acked, h.seq, h.offset};
  auto it = out_packets_.find(key);
  if (it == out_packets_.end()) return;
  if (!it->second.retransmitted) {
    // Karn: only packets sent once give a round-trip sample.
    const double sample = static_cast<double>(host_.NowPs() - it->second.sent_ps);
    RttEstimate& e = rtt_[h.src_task];
    e.backoff_ps = 0;
    e.rtt.Add(sample);
  }
  out_packets_.erase(it);
  uint32_t& flying = in_flight_[h.src_task];
  if (flying > 0) --flying;
  const auto kind = static_cast<Kind>(h.acked);
  if (kind == Kind::kData || kind == Kind::kRts) {
    auto m = out_msgs_.find(MsgKey(h.src_task, h.seq));
    if (m != out_msgs_.end()) {
      if (m->second.unacked > 0) --m->second.unacked;
      MaybeFinish(m->first);
    }
  }
  PumpWindow(h.src_task);
}

void Transport::Ack(uint32_t port, uint32_t dest, const Header& h) {
  Header a{};
  a.kind = static_cast<uint8_t>(Kind::kAck);
  a.acked = h.kind;
  a.src_task = config_.task;
  a.seq = h.seq;
  a.offset = h.offset;
  // The ack goes back the way the packet came.
  ports_[port]->Send(peer_of_(dest, port), reinterpret_cast<const uint8_t*>(&a), sizeof(a), 0);
}

void Transport::SendControl(uint32_t dest, Kind kind, uint32_t seq) {
  Header h{};
  h.kind = static_cast<uint8_t>(kind);
  h.src_task = config_.task;
  h.seq = seq;
  QueueReliable(dest, h, nullptr, 0);
}

}  // namespace nicsim::ulp
