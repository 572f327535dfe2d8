// SPDX-License-Identifier: Apache-2.0
// Eager RDMA rings, the receiver's side: ring provisioning, flag checks, delivery and release.
#include <algorithm>
#include <cstring>

#include "ulp/transport/eager_rdma.h"

namespace nicsim::ulp {

void EagerRdma::OnOpen(const Header& h) {
  InConn& conn = in_[h.src_task];
  // A generation seen before (a duplicate request): its answer is already reliable.
  if (h.seq <= conn.newest) return;
  conn.newest = h.seq;
  InRing in;
  Ring& r = in.ring;
  r.generation = h.seq;
  r.slot_bytes = std::clamp<uint64_t>(h.total, kEagerFraming + 1, uint64_t{1} << 30);
  r.slots = std::clamp<uint32_t>(h.offset, 1, kMaxEagerSlots);
  bool ok = Provide(r);
  for (uint32_t s = 0; ok && s < r.slots; ++s) {
    Result<uint32_t> ref = ctx_.ports[kPort].AcquireRcxt();
    if (!ref.ok()) {
      ok = false;
      break;
    }
    r.rcxts.push_back(*ref);
    ++ctx_.stats.eager_rcxts_taken;
  }
  if (!ok) {
    // Not enough memory, registration or rCxts: refused, the connection keeps what it had.
    ++ctx_.stats.eager_refusals;
    if (r.vaddr != 0) Withdraw(r);
    for (uint32_t ref : r.rcxts) {
      ctx_.ports[kPort].ReleaseRcxt(ref);
      ++ctx_.stats.eager_rcxts_released;
    }
    Ring refused;
    refused.generation = h.seq;
    SendReady(h.src_task, refused);
    return;
  }
  for (uint32_t s = 0; s < r.slots; ++s) slot_of_[r.rcxts[s]] = SlotRef{h.src_task, h.seq, s};
  in.delivered.assign(r.slots, 0);
  SendReady(h.src_task, r);
  conn.rings.emplace(h.seq, std::move(in));
}

void EagerRdma::SendReady(uint32_t src, const Ring& r) {
  EagerReadyBody body{};
  body.head_flag = r.generation;
  body.slots = r.slots;
  body.slot_bytes = r.slot_bytes;
  body.pvo = r.reg.pvo;
  for (uint32_t s = 0; s < r.slots; ++s) body.rcxt[s] = r.rcxts[s];
  body.tail_flag = r.generation;
  Header h{};
  h.kind = static_cast<uint8_t>(Kind::kEagerReady);
  h.src_task = ctx_.config.task;
  h.seq = r.generation;
  h.frag_len = sizeof(body);
  packets_.Queue(src, h, reinterpret_cast<const uint8_t*>(&body), sizeof(body));
}

bool EagerRdma::OnCompletion(const abi::CompletionRecord& c) {
  auto at = slot_of_.find(c.rcxt);
  if (at == slot_of_.end()) {
    // A late write to a ring being released: nothing to deliver.
    if (lingering_refs_.count(c.rcxt) == 0) return false;
    ++ctx_.stats.eager_duplicates;
    return true;
  }
  const SlotRef ref = at->second;
  InRing& in = in_.at(ref.src).rings.at(ref.generation);
  const Ring& r = in.ring;
  const uint32_t index = c.tid / kEagerAttempts;
  if (index <= in.delivered[ref.slot]) {
    // A redrive of a write already delivered: its acknowledgement was lost or late.
    ++ctx_.stats.eager_duplicates;
    SendAck(ref.src, ref.generation, index);
    return true;
  }
  const uint64_t base = r.vaddr + ref.slot * r.slot_bytes;
  EagerSlotHead head;
  ctx_.host.Read(base, &head, sizeof(head));
  EagerSlotTail tail{};
  const bool sized = head.len + kEagerFraming <= r.slot_bytes;
  if (sized) ctx_.host.Read(base + sizeof(head) + head.len, &tail, sizeof(tail));
  // Taken only whole: head and tail name the write the completion is for.
  if (!sized || head.flag != index || tail.flag != index || head.generation != ref.generation ||
      tail.generation != ref.generation) {
    ++ctx_.stats.eager_flag_mismatches;
    return true;
  }
  std::vector<uint8_t> data;
  ctx_.host.ReadAppend(base + sizeof(head), head.len, data);
  in.delivered[ref.slot] = index;
  // The slot's bytes are dead until the next write: its whole pages cost nothing meanwhile.
  ctx_.host.Discard(base, r.slot_bytes);
  SendAck(ref.src, ref.generation, index);
  events_.landed(ref.src, head.seq, head.context, head.tag, std::move(data));
  return true;
}

void EagerRdma::SendAck(uint32_t src, uint32_t generation, uint32_t index) {
  Header a{};
  a.kind = static_cast<uint8_t>(Kind::kEagerAck);
  a.src_task = ctx_.config.task;
  a.seq = index;
  a.context = generation;
  ctx_.ports.SendHeader(kPort, src, a);
}

void EagerRdma::OnRelease(const Header& h) {
  auto c = in_.find(h.src_task);
  if (c == in_.end()) return;
  InConn& conn = c->second;
  auto it = conn.rings.find(h.seq);
  if (it == conn.rings.end()) return;  // released before (a duplicate notice)
  const Ring& newest = conn.rings.rbegin()->second.ring;
  const bool shrink = it->second.ring.slot_bytes > newest.slot_bytes;
  // The newest ring is released only when its sender could not use it (it never writes it).
  if (it->first != conn.newest && !ctx_.config.eager_release_small && !shrink) return;
  // The ring lingers first: a write the fabric still holds (a duplicate, a late attempt)
  // lands in memory that is still registered and is ignored. Then its registration and
  // rCxts go, and a write to it after that (trickle traffic) is dropped by the adapter and
  // never delivered.
  for (uint32_t ref : it->second.ring.rcxts) {
    slot_of_.erase(ref);
    lingering_refs_.insert(ref);
  }
  Linger(std::move(it->second.ring), /*landing=*/true);
  conn.rings.erase(it);
}

void EagerRdma::Linger(Ring r, bool landing) {
  const uint64_t id = next_lingering_++;
  lingering_.emplace(id, Lingering{std::move(r), landing});
  ctx_.timers.After(ctx_.config.rto_max_ps, [this, id] { EndLinger(id); });
}

void EagerRdma::EndLinger(uint64_t id) {
  auto it = lingering_.find(id);
  if (it == lingering_.end()) return;
  Ring& r = it->second.ring;
  Withdraw(r);
  if (it->second.landing) {
    for (uint32_t ref : r.rcxts) {
      ctx_.ports[kPort].ReleaseRcxt(ref);
      lingering_refs_.erase(ref);
      ++ctx_.stats.eager_rcxts_released;
    }
    ++ctx_.stats.eager_rings_released;
  }
  lingering_.erase(it);
}

}  // namespace nicsim::ulp
