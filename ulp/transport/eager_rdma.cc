// SPDX-License-Identifier: Apache-2.0
// Eager RDMA rings: the sender's slot choice, enlargement and shrink requests, writes and
// their redrives, and the ring memory of both sides (the receiver's side is
// eager_rdma_receiver.cc).
#include "ulp/transport/eager_rdma.h"

#include <algorithm>
#include <cstring>

#include "base/backoff.h"

namespace nicsim::ulp {

EagerRdma::EagerRdma(const TransportContext& ctx, ReliableSender& packets, Events events)
    : ctx_(ctx), packets_(packets), events_(std::move(events)), rtt_(ctx.config) {}

EagerRdma::~EagerRdma() {
  hal::Port& port = ctx_.ports[kPort];
  // What is still held is given back once, here (not counted: the counters die with this).
  for (auto& [dest, conn] : out_) {
    if (conn.ring) static_cast<void>(ctx_.host.Deregister(conn.ring->reg));
    for (auto& [gen, r] : conn.retiring) static_cast<void>(ctx_.host.Deregister(r.reg));
  }
  for (auto& [src, conn] : in_) {
    for (auto& [gen, in] : conn.rings) {
      static_cast<void>(ctx_.host.Deregister(in.ring.reg));
      for (uint32_t ref : in.ring.rcxts) port.ReleaseRcxt(ref);
    }
  }
  for (auto& [id, l] : lingering_) {
    static_cast<void>(ctx_.host.Deregister(l.ring.reg));
    if (l.landing) {
      for (uint32_t ref : l.ring.rcxts) port.ReleaseRcxt(ref);
    }
  }
  sources_.ReleaseAll(port);
}

// ---------------------------------------------------------------------------------------
// Sender.

bool EagerRdma::TrySend(uint32_t dest, uint32_t seq, uint32_t context, uint32_t tag, uint64_t vaddr,
                        uint64_t len) {
  const uint64_t need = len + kEagerFraming;
  // Larger than a large slot: not this path's (an RTS moves it).
  if (need > ctx_.config.eager_large_slot) return false;
  OutConn& conn = out_[dest];
  conn.last_use_ps = ctx_.host.NowPs();
  const uint64_t want = need <= ctx_.config.eager_small_slot ? ctx_.config.eager_small_slot
                                                             : ctx_.config.eager_large_slot;
  const bool fits = conn.ring && need <= conn.ring->slot_bytes;
  if (!fits) {
    // The first message makes the connection; one that needs larger slots enlarges it. Either
    // way this message goes the usual way: data waits for no handshake.
    const bool refused = std::count(conn.refused.begin(), conn.refused.end(), want) > 0;
    if (conn.requested == 0 && !refused) {
      if (want > ctx_.config.eager_small_slot) ++ctx_.stats.eager_enlargements;
      Request(dest, conn, want);
    }
    return false;
  }
  const Ring& ring = *conn.ring;
  std::vector<bool> busy(ring.slots, false);
  for (const auto& [index, f] : conn.flights) {
    if (f.generation == ring.generation) busy[f.slot] = true;
  }
  const auto free_slot = std::find(busy.begin(), busy.end(), false);
  if (free_slot == busy.end()) return false;  // every slot in flight: no credit
  const auto slot = static_cast<uint32_t>(free_slot - busy.begin());
  // Stage head, bytes and tail in the slot's staging copy; one write moves them.
  const uint32_t index = conn.next_index++;
  EagerSlotHead head{index, ring.generation, seq, static_cast<uint32_t>(len), context, tag};
  EagerSlotTail tail{index, ring.generation};
  std::vector<uint8_t> bytes;
  bytes.reserve(need);
  const auto* head_bytes = reinterpret_cast<const uint8_t*>(&head);
  bytes.insert(bytes.end(), head_bytes, head_bytes + sizeof(head));
  ctx_.host.ReadAppend(vaddr, len, bytes);
  const auto* tail_bytes = reinterpret_cast<const uint8_t*>(&tail);
  bytes.insert(bytes.end(), tail_bytes, tail_bytes + sizeof(tail));
  ctx_.host.Write(ring.vaddr + slot * ring.slot_bytes, bytes.data(), need);
  conn.flights[index] =
      Flight{ring.generation, slot, seq, static_cast<uint32_t>(need), 0, ctx_.host.NowPs()};
  ++ctx_.stats.eager_rdma_messages;
  Post(dest, conn, index);
  ArmShrink(dest, conn);
  return true;
}

void EagerRdma::Request(uint32_t dest, OutConn& conn, uint64_t slot_bytes) {
  conn.requested = conn.next_generation++;
  conn.requested_slot = slot_bytes;
  Header h{};
  h.kind = static_cast<uint8_t>(Kind::kEagerOpen);
  h.src_task = ctx_.config.task;
  h.seq = conn.requested;
  h.total = static_cast<uint32_t>(slot_bytes);
  // Large rings may keep fewer slots (ulp.eager_large_slots): their memory is in the slot size.
  const bool large = slot_bytes > ctx_.config.eager_small_slot;
  h.offset = large && ctx_.config.eager_large_slots > 0 ? ctx_.config.eager_large_slots
                                                        : ctx_.config.eager_slots;
  packets_.Queue(dest, h, nullptr, 0);
}

void EagerRdma::Post(uint32_t dest, OutConn& conn, uint32_t index) {
  const Flight& f = conn.flights.at(index);
  const Ring& ring = *StagingOf(conn, f.generation);
  hal::Port& port = ctx_.ports[kPort];
  abi::RdmaRequest r{};
  r.tid = TidOf(index, f);
  r.local_rcxt = sources_.Take(port, r.tid);
  r.remote_rcxt = ring.rcxts[f.slot];
  r.length = f.length;
  r.local_pvo = ring.reg.pvo + f.slot * ring.slot_bytes;
  r.remote_pvo = ring.remote_pvo + f.slot * ring.slot_bytes;
  r.flags = abi::kReqNotifyTarget;
  sources_.Posted(r.local_rcxt, r.tid);
  // The target's completion carries this task in its upper-layer word.
  port.Post(abi::SlotType::kRdmaWrite, ctx_.ports.PeerOf(dest, kPort), r, ctx_.config.task);
  ArmRedrive(dest, index, f.attempt, f.length);
}

const EagerRdma::Ring* EagerRdma::StagingOf(const OutConn& conn, uint32_t generation) {
  if (conn.ring && conn.ring->generation == generation) return &*conn.ring;
  auto it = conn.retiring.find(generation);
  return it == conn.retiring.end() ? nullptr : &it->second;
}

uint64_t EagerRdma::RedriveWait(uint32_t dest, uint32_t attempt, uint32_t length) const {
  const uint64_t base = std::max(ctx_.config.rdma_timeout_base_ps, rtt_.RtoFor(dest)) +
                        static_cast<uint64_t>(length * ctx_.config.rdma_timeout_ps_per_byte);
  return Backoff{6, ctx_.config.rto_max_ps}.Wait(base, attempt);
}

void EagerRdma::ArmRedrive(uint32_t dest, uint32_t index, uint32_t attempt, uint32_t length) {
  ctx_.timers.After(RedriveWait(dest, attempt, length),
                    [this, dest, index, attempt] { OnRedrive(dest, index, attempt); });
}

uint32_t EagerRdma::TidOf(uint32_t index, const Flight& f) const {
  const bool one_packet = f.length <= ctx_.ports[kPort].max_payload();
  const uint32_t fresh =
      one_packet || f.attempt == 0 ? f.attempt : 1 + (f.attempt - 1) / kFillPasses;
  return index * kEagerAttempts + fresh;
}

void EagerRdma::OnRedrive(uint32_t dest, uint32_t index, uint32_t attempt) {
  auto c = out_.find(dest);
  if (c == out_.end()) return;
  auto f = c->second.flights.find(index);
  if (f == c->second.flights.end() || f->second.attempt != attempt || f->second.abandoned) {
    return;
  }
  if (attempt >= ctx_.config.eager_redrives) {
    Abandon(dest, c->second, index);
    return;
  }
  // A newer tid (TidOf) makes the target's rCxt start over, and a late copy of an older
  // attempt is then stale; the same tid fills in what the last pass lost.
  const uint32_t tid = TidOf(index, f->second);
  f->second.attempt = attempt + 1;
  ++ctx_.stats.eager_rdma_redrives;
  if (TidOf(index, f->second) == tid) ++ctx_.stats.eager_fill_passes;
  // Writes to `dest` wait this long until an acknowledgement of one sent once says otherwise.
  rtt_.BackOff(dest, RedriveWait(dest, attempt + 1, 0));
  Post(dest, c->second, index);
}

void EagerRdma::Abandon(uint32_t dest, OutConn& conn, uint32_t index) {
  Flight& f = conn.flights.at(index);
  f.abandoned = true;
  ++ctx_.stats.eager_fallbacks;
  // Its slot stays taken: an attempt the fabric still holds may land in it, and the next
  // write there must not be overwritten by one.
  ctx_.timers.After(ctx_.config.rto_max_ps, [this, dest, index] { EndAbandoned(dest, index); });
  events_.fell_back(dest, f.seq);
}

void EagerRdma::EndAbandoned(uint32_t dest, uint32_t index) {
  auto c = out_.find(dest);
  if (c == out_.end()) return;
  OutConn& conn = c->second;
  auto f = conn.flights.find(index);
  if (f == conn.flights.end() || !f->second.abandoned) return;
  const uint32_t gen = f->second.generation;
  conn.flights.erase(f);
  if (!conn.ring || conn.ring->generation != gen) MaybeRetire(dest, conn, gen);
}

void EagerRdma::OnAck(const Header& h) {
  auto c = out_.find(h.src_task);
  if (c == out_.end()) return;
  OutConn& conn = c->second;
  auto f = conn.flights.find(h.seq);
  if (f == conn.flights.end() || f->second.generation != h.context) return;  // acked before
  const uint32_t seq = f->second.seq;
  const uint32_t gen = f->second.generation;
  // Karn's rule: a redriven write's acknowledgement may answer any of its attempts.
  if (f->second.attempt == 0) {
    rtt_.Sample(h.src_task, static_cast<double>(ctx_.host.NowPs() - f->second.posted_ps));
  }
  // The staging slot's bytes are dead until the next write (a redrive still queued reads
  // zeros, which the receiver takes as the repeat it is): its whole pages cost nothing.
  if (const Ring* staging = StagingOf(conn, gen); staging != nullptr) {
    ctx_.host.Discard(staging->vaddr + f->second.slot * staging->slot_bytes, staging->slot_bytes);
  }
  conn.flights.erase(f);
  if (!conn.ring || conn.ring->generation != gen) MaybeRetire(h.src_task, conn, gen);
  events_.delivered(h.src_task, seq);
}

void EagerRdma::OnReady(const Header& h, const uint8_t* data, uint32_t len) {
  if (len < sizeof(EagerReadyBody)) return;
  EagerReadyBody body;
  std::memcpy(&body, data, sizeof(body));
  // The answer counts only whole: both flags name the generation this task asked for.
  if (body.head_flag != body.tail_flag || body.head_flag != h.seq) {
    ++ctx_.stats.eager_flag_mismatches;
    return;
  }
  auto c = out_.find(h.src_task);
  if (c == out_.end() || c->second.requested != h.seq) return;  // a duplicate answer
  OutConn& conn = c->second;
  const uint64_t slot_bytes = conn.requested_slot;
  conn.requested = 0;
  Ring r;
  r.generation = h.seq;
  r.slot_bytes = body.slot_bytes;
  r.slots = std::min(body.slots, kMaxEagerSlots);
  r.remote_pvo = body.pvo;
  r.rcxts.assign(body.rcxt, body.rcxt + r.slots);
  if (r.slots == 0 || r.slot_bytes != slot_bytes || !Provide(r)) {
    ++ctx_.stats.eager_refusals;
    conn.refused.push_back(slot_bytes);
    if (r.slots > 0) {
      // Provisioned there but not usable here: the receiver may free it at once.
      Header rel{};
      rel.kind = static_cast<uint8_t>(Kind::kEagerRelease);
      rel.src_task = ctx_.config.task;
      rel.seq = r.generation;
      packets_.Queue(h.src_task, rel, nullptr, 0);
    }
    return;
  }
  // Switch-over: new writes go to the new ring; those in flight on the old one finish there
  // (sequence numbers keep the order at the receiver), then the old one is released.
  if (conn.ring) {
    const uint32_t old = conn.ring->generation;
    conn.retiring.emplace(old, std::move(*conn.ring));
    conn.ring = std::move(r);
    MaybeRetire(h.src_task, conn, old);
  } else {
    conn.ring = std::move(r);
  }
  ArmShrink(h.src_task, conn);
}

void EagerRdma::MaybeRetire(uint32_t dest, OutConn& conn, uint32_t gen) {
  auto it = conn.retiring.find(gen);
  if (it == conn.retiring.end()) return;
  for (const auto& [index, f] : conn.flights) {
    if (f.generation == gen) return;
  }
  // The staging area lingers too: a redrive posted just before the acknowledgement came may
  // still be waiting in the send FIFO to read it.
  Linger(std::move(it->second), /*landing=*/false);
  conn.retiring.erase(it);
  Header h{};
  h.kind = static_cast<uint8_t>(Kind::kEagerRelease);
  h.src_task = ctx_.config.task;
  h.seq = gen;
  packets_.Queue(dest, h, nullptr, 0);
}

void EagerRdma::ArmShrink(uint32_t dest, OutConn& conn) {
  const uint64_t idle = ctx_.config.eager_shrink_idle_ps;
  if (idle == 0 || conn.shrink_armed || !conn.ring ||
      conn.ring->slot_bytes <= ctx_.config.eager_small_slot) {
    return;
  }
  conn.shrink_armed = true;
  // Due ulp.eager_shrink_idle after the last use, or a whole interval on when that has passed
  // (a request still unanswered kept the shrink from starting).
  const uint64_t due = conn.last_use_ps + idle;
  const uint64_t now = ctx_.host.NowPs();
  ctx_.timers.After(due > now ? due - now : idle, [this, dest] { OnShrinkTimer(dest); });
}

void EagerRdma::OnShrinkTimer(uint32_t dest) {
  auto c = out_.find(dest);
  if (c == out_.end()) return;
  OutConn& conn = c->second;
  conn.shrink_armed = false;
  if (!conn.ring || conn.ring->slot_bytes <= ctx_.config.eager_small_slot) return;
  const bool idle = ctx_.host.NowPs() >= conn.last_use_ps + ctx_.config.eager_shrink_idle_ps;
  const bool refused =
      std::count(conn.refused.begin(), conn.refused.end(), ctx_.config.eager_small_slot) > 0;
  if (refused) return;
  if (idle && conn.requested == 0) {
    ++ctx_.stats.eager_shrinks;
    Request(dest, conn, ctx_.config.eager_small_slot);
    return;
  }
  ArmShrink(dest, conn);
}

void EagerRdma::GiveUp(uint32_t dest) {
  auto c = out_.find(dest);
  if (c == out_.end()) return;
  // The receiver is gone: nothing more is written or asked for. The areas stay registered
  // until the transport ends (a late completion must not find them reused).
  c->second.flights.clear();
  c->second.requested = 0;
  c->second.refused = {ctx_.config.eager_small_slot, ctx_.config.eager_large_slot};
}

bool EagerRdma::Idle() const {
  for (const auto& [dest, conn] : out_) {
    if (conn.requested != 0) return false;
    for (const auto& [index, f] : conn.flights) {
      if (!f.abandoned) return false;
    }
  }
  return true;
}

uint64_t EagerRdma::SlotBytesTo(uint32_t dest) const {
  auto c = out_.find(dest);
  return c == out_.end() || !c->second.ring ? 0 : c->second.ring->slot_bytes;
}

std::pair<uint64_t, std::vector<uint32_t>> EagerRdma::RingFrom(uint32_t src) const {
  auto c = in_.find(src);
  if (c == in_.end()) return {};
  auto r = c->second.rings.find(c->second.newest);
  if (r == c->second.rings.end()) return {};
  return {r->second.ring.reg.pvo, r->second.ring.rcxts};
}

// ---------------------------------------------------------------------------------------
// Both sides: ring memory.

bool EagerRdma::Provide(Ring& r) {
  const uint64_t bytes = r.slot_bytes * r.slots;
  Result<uint64_t> area = ctx_.host.Map(bytes);
  if (!area.ok()) return false;
  Result<driver::Registration> reg = ctx_.host.Register(*area, bytes);
  if (!reg.ok()) return false;
  r.vaddr = *area;
  r.reg = *reg;
  ++ctx_.stats.eager_registrations;
  ctx_.stats.eager_ring_bytes += bytes;
  ctx_.stats.eager_ring_bytes_peak =
      std::max(ctx_.stats.eager_ring_bytes_peak, ctx_.stats.eager_ring_bytes);
  return true;
}

void EagerRdma::Withdraw(Ring& r) {
  static_cast<void>(ctx_.host.Deregister(r.reg));
  ++ctx_.stats.eager_deregistrations;
  ctx_.stats.eager_ring_bytes -= r.slot_bytes * r.slots;
}

}  // namespace nicsim::ulp
