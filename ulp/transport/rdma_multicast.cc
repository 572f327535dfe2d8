// SPDX-License-Identifier: Apache-2.0
// Multicast groups over broadcast RDMA: forming a group, the root's broadcast write and its
// selective unicast retries, the members' copy-out and acknowledgements.
#include "ulp/transport/rdma_multicast.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/backoff.h"

namespace nicsim::ulp {
namespace {

/** The epoch a tid belongs to (the low bits of it: tids wrap). */
uint32_t EpochOf(uint32_t tid) { return tid / kMcastAttempts; }
uint32_t EpochBits(uint64_t epoch) {
  return static_cast<uint32_t>(epoch * kMcastAttempts) / kMcastAttempts;
}
/** True if epoch bits `a` come after `b` (in the wrapping space of a tid's epoch bits). */
bool EpochAfter(uint32_t a, uint32_t b) {
  constexpr uint32_t kShift = 32 - 24;  // tids keep 24 bits of epoch (kMcastAttempts = 256)
  static_assert(kMcastAttempts == 256, "epoch bits");
  return static_cast<int32_t>((a - b) << kShift) > 0;
}

}  // namespace

RdmaMulticast::RdmaMulticast(TransportContext& ctx)
    : ctx_(ctx), copies_(ctx.config.copy_ps_per_byte) {}

RdmaMulticast::~RdmaMulticast() {
  hal::Port& port = ctx_.ports[kPort];
  for (auto& [id, g] : groups_) {
    for (uint32_t ref : g.self.rcxt) port.ReleaseRcxt(ref);
    g.sources.ReleaseAll(port);
    for (uint32_t ref : g.forwarders) port.ReleaseRcxt(ref);
    for (uint32_t q : g.queues) port.ReleaseConditionalQueue(q);
    for (const driver::Registration& r : g.registrations)
      static_cast<void>(ctx_.host.Deregister(r));
  }
}

Result<McastAddress> RdmaMulticast::Open(uint32_t id, uint64_t slot_bytes,
                                         const McastAddress* first, uint32_t tree_radix) {
  if (groups_.count(id) != 0)
    return Status::Error("multicast group " + std::to_string(id) + " is open");
  Group g;
  g.id = id;
  g.slot_bytes = slot_bytes;
  const uint64_t bytes = std::max<uint64_t>(slot_bytes * kMcastSlots, 1);
  Result<uint64_t> landing = ctx_.host.Map(bytes);
  Result<uint64_t> source = ctx_.host.Map(bytes);
  if (!landing.ok()) return landing.status();
  if (!source.ok()) return source.status();
  g.landing = *landing;
  g.source = *source;
  // Where the first member's slots are, if this task's tables have room there; else anywhere
  // (the member is then reached by unicast writes only).
  Result<driver::Registration> at = first ? ctx_.host.RegisterAt(g.landing, bytes, first->pvo)
                                          : ctx_.host.Register(g.landing, bytes);
  if (!at.ok() && first) at = ctx_.host.Register(g.landing, bytes);
  if (!at.ok()) return at.status();
  g.registrations.push_back(*at);
  Result<driver::Registration> src = ctx_.host.Register(g.source, bytes);
  if (!src.ok()) return src.status();
  g.registrations.push_back(*src);
  g.self.pvo = at->pvo;
  hal::Port& port = ctx_.ports[kPort];
  for (uint32_t s = 0; s < kMcastSlots; ++s) {
    std::optional<uint32_t> index;
    if (first) index = abi::RcxtIndex(first->rcxt[s]);
    Result<uint32_t> ref = port.AcquireGroupRcxt(index);
    if (!ref.ok() && index) ref = port.AcquireGroupRcxt(std::nullopt);
    if (!ref.ok()) return ref.status();
    g.self.rcxt[s] = *ref;
    slot_of_[*ref] = {id, s};
  }
  Group& kept = groups_.emplace(id, std::move(g)).first->second;
  if (tree_radix > 0) {
    // Kept even if this fails, so that what it took is given back with the rest.
    Status chain = OpenChain(kept, tree_radix);
    if (!chain.ok()) return chain;
  }
  return kept.self;
}

void RdmaMulticast::SetMembers(uint32_t id, std::vector<uint32_t> tasks,
                               std::vector<McastAddress> addresses) {
  Group& g = groups_.at(id);
  g.tasks = std::move(tasks);
  g.addresses = std::move(addresses);
}

bool RdmaMulticast::Idle() const {
  for (const auto& [id, g] : groups_) {
    if (!g.flights.empty()) return false;
    for (const std::optional<Expect>& e : g.expects) {
      if (e) return false;
    }
  }
  return true;
}

bool RdmaMulticast::Reachable(const Group& g, size_t member, uint32_t slot) const {
  const hal::Peer self = ctx_.ports[kPort].self();
  const hal::Peer peer = ctx_.ports.PeerOf(g.tasks[member], kPort);
  return g.tasks[member] != ctx_.config.task && peer.window == self.window &&
         peer.adapter != self.adapter && g.addresses[member].rcxt[slot] == g.self.rcxt[slot] &&
         g.addresses[member].pvo == g.self.pvo;
}

uint32_t RdmaMulticast::SourceRcxt(Group& g, uint32_t tid) {
  return g.sources.Take(ctx_.ports[kPort], tid);
}

void RdmaMulticast::PostWrite(Group& g, uint64_t epoch, uint64_t len, hal::Peer dest,
                              uint32_t remote_rcxt, uint64_t remote_pvo, uint32_t attempt) {
  const uint32_t slot = Slot(epoch);
  abi::RdmaRequest r{};
  r.tid = Tid(epoch, attempt);
  r.local_rcxt = SourceRcxt(g, r.tid);
  r.remote_rcxt = remote_rcxt;
  r.length = static_cast<uint32_t>(len);
  r.local_pvo = g.registrations[1].pvo + slot * g.slot_bytes;
  r.remote_pvo = remote_pvo + slot * g.slot_bytes;
  r.flags = abi::kReqNotifyTarget;
  g.sources.Posted(r.local_rcxt, r.tid);
  writes_done_ps_ =
      std::max(writes_done_ps_, ctx_.host.NowPs()) +
      static_cast<uint64_t>(static_cast<double>(len) * ctx_.config.rdma_timeout_ps_per_byte);
  // The completion at each member carries the root's task in its upper-layer word.
  ctx_.ports[kPort].Post(abi::SlotType::kRdmaWrite, dest, r, ctx_.config.task);
}

void RdmaMulticast::Send(uint32_t id, uint64_t epoch, const uint8_t* data, uint64_t len,
                         std::function<void()> on_done) {
  Group& g = groups_.at(id);
  if (len == 0) {
    // A signal: nothing to keep for re-sending, so nothing waits for acknowledgements.
    g.signals.insert(epoch);
    if (g.signals.size() > kKeptSignals) g.signals.erase(g.signals.begin());
    AfterCopy(0, [this, id, epoch] { PostAll(groups_.at(id), epoch, 0, nullptr); });
    if (on_done) on_done();
    return;
  }
  ctx_.host.Write(g.source + Slot(epoch) * g.slot_bytes, data, len);
  Flight& f = g.flights[epoch];
  f.len = len;
  f.on_done = std::move(on_done);
  // The adapter reads the source slot once the CPU has written it.
  AfterCopy(len, [this, id, epoch] { Start(id, epoch); });
}

void RdmaMulticast::Start(uint32_t id, uint64_t epoch) {
  auto git = groups_.find(id);
  if (git == groups_.end() || git->second.flights.count(epoch) == 0) return;
  Group& g = git->second;
  Flight& f = g.flights.at(epoch);
  PostAll(g, epoch, f.len, &f.missing);
  if (f.missing.empty()) {
    std::function<void()> done = std::move(f.on_done);
    g.flights.erase(epoch);
    if (done) done();
    return;
  }
  ArmTimer(id, epoch, 0);
}

void RdmaMulticast::PostAll(Group& g, uint64_t epoch, uint64_t len, std::set<uint32_t>* missing) {
  if (g.radix > 0) {
    if (missing != nullptr) {
      for (uint32_t task : g.tasks) {
        if (task != ctx_.config.task) missing->insert(task);
      }
    }
    ++ctx_.stats.mcast_sends;
    PostToChildren(g, epoch, len);
    return;
  }
  const uint32_t slot = Slot(epoch);
  bool broadcast = false;
  for (size_t m = 0; m < g.tasks.size(); ++m) {
    if (g.tasks[m] == ctx_.config.task) continue;
    if (missing != nullptr) missing->insert(g.tasks[m]);
    if (Reachable(g, m, slot)) {
      broadcast = true;
      continue;
    }
    ++ctx_.stats.mcast_unicasts;
    PostWrite(g, epoch, len, ctx_.ports.PeerOf(g.tasks[m], kPort), g.addresses[m].rcxt[slot],
              g.addresses[m].pvo, 0);
  }
  ++ctx_.stats.mcast_sends;
  if (broadcast) {
    const hal::Peer all{abi::kBroadcastAdapter, ctx_.ports[kPort].self().window};
    PostWrite(g, epoch, len, all, g.self.rcxt[slot], g.self.pvo, 0);
  }
}

void RdmaMulticast::ArmTimer(uint32_t id, uint64_t epoch, uint32_t attempt) {
  const Group& g = groups_.at(id);
  // The message's writes leave after every write this task posted before them (other
  // messages', and retries: counting only this group's messages ahead, and capping the wait,
  // had a root re-send to every member while its first writes were still queued, and the
  // re-sends queued ahead of the next messages stalled the job). Then acknowledgements reach
  // the root one after another: a microsecond per member on top of the shortest packet
  // timeout. A retry goes to the few members that missed a message, not to the fabric at
  // large, so that part only doubles twice (a member on a lossy link is re-sent to often,
  // not after ever longer waits).
  const uint64_t now = ctx_.host.NowPs();
  uint64_t queued = writes_done_ps_ > now ? writes_done_ps_ - now : 0;
  if (g.radix > 0 && Depth(g) > 1) {
    // Chained: the last leaf has it once every level below the root's children forwarded
    // it, each member's writes one after another.
    const uint64_t len = g.flights.at(epoch).len;
    queued += static_cast<uint64_t>(static_cast<double>(len) * (Depth(g) - 1) * g.radix *
                                    ctx_.config.rdma_timeout_ps_per_byte);
  }
  const uint64_t acks = ctx_.config.rto_min_ps + g.tasks.size() * 1'000'000;
  const uint64_t delay = queued + Backoff{2, ctx_.config.rto_max_ps}.Wait(acks, attempt);
  ctx_.timers.After(delay, [this, id, epoch, attempt] { OnTimeout(id, epoch, attempt); });
}

void RdmaMulticast::OnTimeout(uint32_t id, uint64_t epoch, uint32_t attempt) {
  auto git = groups_.find(id);
  if (git == groups_.end()) return;
  Group& g = git->second;
  auto fit = g.flights.find(epoch);
  if (fit == g.flights.end() || fit->second.attempt != attempt) return;
  Flight& f = fit->second;
  if (++f.attempt == kMcastAttempts) {
    // Out of tids for this message: it stays unacknowledged and the job stalls, seen as such.
    ++ctx_.stats.mcast_failed;
    if (on_gave_up_) {
      std::string members;
      for (const uint32_t task : f.missing) {
        members += (members.empty() ? "" : ", ") + std::to_string(task);
      }
      on_gave_up_(
          fmt::format("group {} message {} ({} B) sent {} times, never acknowledged by task{} {}",
                      id, epoch, f.len, kMcastAttempts, f.missing.size() == 1 ? "" : "s", members));
    }
    return;
  }
  const uint32_t slot = Slot(epoch);
  // A message of several packets is sent again with the broadcast's tid: the member's adapter
  // keeps what landed and takes only what it lacks (under loss a write of many packets rarely
  // lands whole in one pass, and a newer tid would start it over). A member that has it all
  // drops such a retry unanswered, as it drops any retry once a later message (another
  // root's) has taken the slot, so each retry comes with a question its answer settles.
  const bool fill = f.len > ctx_.ports[kPort].max_payload();
  for (size_t m = 0; m < g.tasks.size(); ++m) {
    if (f.missing.count(g.tasks[m]) == 0) continue;
    // Chained: a member whose parent also misses the message gets it from that parent, which
    // forwards what its retry brings (a loss high in the tree would otherwise have the root
    // re-send to the whole subtree, one member after another through its own link).
    if (g.radix > 0 && f.missing.count(g.tasks[Parent(g, m)]) != 0) continue;
    ++ctx_.stats.mcast_retries;
    PostWrite(g, epoch, f.len, ctx_.ports.PeerOf(g.tasks[m], kPort), g.addresses[m].rcxt[slot],
              g.addresses[m].pvo, fill ? 0 : f.attempt);
    ++ctx_.stats.mcast_queries;
    SendNotice(g.tasks[m], Kind::kMcastQuery, epoch, id);
  }
  ArmTimer(id, epoch, f.attempt);
}

void RdmaMulticast::OnAck(const Header& h) {
  auto git = groups_.find(h.context);
  if (git == groups_.end()) return;
  Group& g = git->second;
  for (auto it = g.flights.begin(); it != g.flights.end(); ++it) {
    if (static_cast<uint32_t>(it->first) != h.seq) continue;
    it->second.missing.erase(h.src_task);
    if (!it->second.missing.empty()) return;
    std::function<void()> done = std::move(it->second.on_done);
    g.flights.erase(it);
    if (done) done();
    return;
  }
}

void RdmaMulticast::Receive(uint32_t id, uint64_t epoch, uint32_t root, uint8_t* out, uint64_t len,
                            std::function<void()> on_done) {
  Group& g = groups_.at(id);
  const uint32_t slot = Slot(epoch);
  if (g.radix > 0) ParkForwards(g, epoch, root, len);
  g.expects[slot] = Expect{epoch, root, out, len, std::move(on_done), 0};
  if (g.landed_tid[slot] != 0 && EpochOf(g.landed_tid[slot]) == EpochBits(epoch)) {
    Consume(g, slot);
    return;
  }
  if (len == 0 && g.landed_tid[slot] != 0 &&
      EpochAfter(EpochOf(g.landed_tid[slot]), EpochBits(epoch))) {
    EndOvertakenSignal(g, slot);
    return;
  }
  // A signal is not acknowledged: if it does not come, this member asks the root for it. A
  // member of a chained group that waits long repeats its acknowledgement of the slot's last
  // message: having armed the slot for this one, it drops the root's retries of that one as
  // stale, so a lost acknowledgement would never be answered again.
  if (len == 0 || g.radix > 0) ArmWait(id, epoch, 0);
}

void RdmaMulticast::ArmWait(uint32_t id, uint64_t epoch, uint32_t attempt) {
  const Group& waiting = groups_.at(id);
  // A signal is asked for after a packet timeout; an acknowledgement is repeated only once the
  // root would have re-sent (its timer allows a microsecond per member), since a member waits
  // for pieces ahead long before any of them is late.
  const uint64_t root_wait = ctx_.config.rto_min_ps + waiting.tasks.size() * 1'000'000;
  const uint64_t base = waiting.expects[Slot(epoch)]->len == 0 ? ctx_.config.rto_ps : root_wait;
  const uint64_t delay = Backoff{10, ctx_.config.rto_max_ps}.Wait(base, attempt);
  ctx_.timers.After(delay, [this, id, epoch, attempt, repeat_ack = delay >= root_wait] {
    auto git = groups_.find(id);
    if (git == groups_.end()) return;
    Group& g = git->second;
    const uint32_t slot = Slot(epoch);
    std::optional<Expect>& e = g.expects[slot];
    if (!e || e->epoch != epoch || e->waits != attempt) return;
    // A root that answers only that it has not sent the signal yet is on its way to it (behind
    // its own traffic, which under loss may take seconds) and is waited for, up to
    // kMostSignalQuestions questions (about half a minute), so one that never comes still ends
    // in a stall.
    if (e->unanswered + 1 == kMcastAttempts || e->waits + 1 == kMostSignalQuestions) {
      // The root never re-sent a signal: the receive stays open and the job stalls, seen as
      // such.
      if (e->len == 0) {
        ++ctx_.stats.mcast_failed;
        if (on_gave_up_) {
          on_gave_up_(fmt::format(
              "group {} signal {} from task {} asked for {} times ({} in a row unanswered), never "
              "came",
              id, epoch, e->root, e->waits + 1, e->unanswered + 1));
        }
      }
      return;
    }
    ++e->waits;
    ++e->unanswered;
    if (e->len == 0) {
      ++ctx_.stats.mcast_nacks;
      SendNotice(e->root, Kind::kMcastNack, epoch, id, std::min(e->waits, kMcastAttempts - 1));
    }
    if (repeat_ack && g.radix > 0 && g.consumed[slot] && g.consumed_len[slot] > 0) {
      ++ctx_.stats.mcast_reacks;
      SendAck(g, g.consumed_root[slot], *g.consumed[slot]);
    }
    ArmWait(id, epoch, e->waits);
  });
}

void RdmaMulticast::OnNack(const Header& h) {
  auto git = groups_.find(h.context);
  if (git == groups_.end()) return;
  Group& g = git->second;
  // Only a signal this root has sent is sent again (one it has not sent yet will come).
  for (uint64_t epoch : g.signals) {
    if (static_cast<uint32_t>(epoch) != h.seq) continue;
    for (size_t m = 0; m < g.tasks.size(); ++m) {
      if (g.tasks[m] != h.src_task) continue;
      ++ctx_.stats.mcast_retries;
      PostWrite(g, epoch, 0, ctx_.ports.PeerOf(h.src_task, kPort), g.addresses[m].rcxt[Slot(epoch)],
                g.addresses[m].pvo, std::min(h.offset, kMcastAttempts - 1));
    }
    return;
  }
  // Not sent yet, and not one this root sent so long ago that it no longer keeps it (a member
  // asks only for the signal it waits for, and the root sends them in order): the member is to
  // go on waiting however long this root takes to get there.
  if (!g.signals.empty() && !EpochAfter(EpochBits(h.seq), EpochBits(*g.signals.rbegin()))) return;
  ++ctx_.stats.mcast_not_yet;
  SendNotice(h.src_task, Kind::kMcastNotYet, h.seq, h.context);
}

void RdmaMulticast::OnNotYet(const Header& h) {
  auto git = groups_.find(h.context);
  if (git == groups_.end()) return;
  std::optional<Expect>& e = git->second.expects[Slot(h.seq)];
  if (e && static_cast<uint32_t>(e->epoch) == h.seq) e->unanswered = 0;
}

void RdmaMulticast::OnQuery(const Header& h) {
  auto git = groups_.find(h.context);
  if (git == groups_.end()) return;
  const Group& g = git->second;
  const uint32_t slot = Slot(h.seq);
  // The slot's latest message copied out is the one asked about, or a later one (which the
  // root sent only once every member had acknowledged this one, or after: this member had it).
  if (!g.consumed[slot]) return;
  const uint32_t had = EpochBits(*g.consumed[slot]);
  const uint32_t asked = EpochBits(h.seq);
  if (had == asked || EpochAfter(had, asked)) SendAck(g, h.src_task, h.seq);
}

void RdmaMulticast::AbandonReceives() {
  for (auto& [id, g] : groups_) {
    for (std::optional<Expect>& e : g.expects) e.reset();
  }
}

bool RdmaMulticast::OnCompletion(const abi::RecvFrameHeader& frame,
                                 const abi::CompletionRecord& c) {
  auto it = slot_of_.find(c.rcxt);
  if (it == slot_of_.end()) return false;
  Group& g = groups_.at(it->second.first);
  const uint32_t slot = it->second.second;
  g.landed_tid[slot] = c.tid;
  g.landed_root[slot] = frame.ulp_word;
  const uint32_t epoch = EpochOf(c.tid);
  if (g.expects[slot] && EpochBits(g.expects[slot]->epoch) == epoch) {
    Consume(g, slot);
  } else if (g.expects[slot] && g.expects[slot]->len == 0 &&
             EpochAfter(epoch, EpochBits(g.expects[slot]->epoch))) {
    EndOvertakenSignal(g, slot);
  } else if (c.length > 0 && g.consumed[slot] && EpochBits(*g.consumed[slot]) == epoch) {
    // A retry of a message this member has: its acknowledgement was lost or late.
    SendAck(g, frame.ulp_word, *g.consumed[slot]);
  }
  return true;
}

void RdmaMulticast::EndOvertakenSignal(Group& g, uint32_t slot) {
  // A later message reached the slot first (its root went on while this member's signal was
  // lost): messages are sent in epoch order, so the signal was sent, and that is all it says.
  Expect e = std::move(*g.expects[slot]);
  g.expects[slot].reset();
  ++ctx_.stats.mcast_received;
  if (e.on_done) e.on_done();
}

void RdmaMulticast::Consume(Group& g, uint32_t slot) {
  Expect e = std::move(*g.expects[slot]);
  if (e.len > 0) ctx_.host.Read(g.landing + slot * g.slot_bytes, e.out, e.len);
  // The slot still holds that message only if no newer write has reached its rCxt since (a
  // root kMcastSlots messages ahead): then the copy is not trusted and the receive waits.
  const abi::RcxtRecord rec = ctx_.ports[kPort].ReadRcxt(g.self.rcxt[slot]);
  if (rec.tid != g.landed_tid[slot] || rec.state != static_cast<uint8_t>(abi::RcxtState::kIdle)) {
    ++ctx_.stats.mcast_superseded;
    g.expects[slot] = std::move(e);
    return;
  }
  g.expects[slot].reset();
  g.consumed[slot] = e.epoch;
  g.consumed_len[slot] = e.len;
  g.consumed_root[slot] = g.landed_root[slot];
  ++ctx_.stats.mcast_received;
  // Acknowledged, and handed to the receiver, once the CPU has copied it out.
  AfterCopy(e.len, [this, id = g.id, root = g.landed_root[slot], epoch = e.epoch, len = e.len,
                    done = std::move(e.on_done)] {
    if (len > 0) SendAck(groups_.at(id), root, epoch);
    if (done) done();
  });
}

void RdmaMulticast::AfterCopy(uint64_t bytes, std::function<void()> fn) {
  if (bytes > 0) {
    ++ctx_.stats.host_copies;
    ctx_.stats.host_copy_bytes += bytes;
  }
  copies_.Then(ctx_.host.NowPs(), bytes, ctx_.timers, std::move(fn));
}

void RdmaMulticast::SendAck(const Group& g, uint32_t root, uint64_t epoch) {
  ++ctx_.stats.mcast_acks;
  SendNotice(root, Kind::kMcastAck, epoch, g.id);
}

void RdmaMulticast::SendNotice(uint32_t task, Kind kind, uint64_t epoch, uint32_t group,
                               uint32_t offset) {
  Header n{};
  n.kind = static_cast<uint8_t>(kind);
  n.src_task = ctx_.config.task;
  n.seq = static_cast<uint32_t>(epoch);
  n.offset = offset;
  n.context = group;
  ctx_.ports[kPort].Send(ctx_.ports.PeerOf(task, kPort), reinterpret_cast<const uint8_t*>(&n),
                         sizeof(n), 0);
}

}  // namespace nicsim::ulp
