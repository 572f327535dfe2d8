// SPDX-License-Identifier: Apache-2.0
// Chained multicast groups: a message goes down a tree of the members, each member's adapter
// forwarding it to the member's children as it lands (conditional RDMA on the landing slot's
// armed rCxt), so no host sits on the path between the root and a leaf.
#include <algorithm>

#include "ulp/transport/rdma_multicast.h"

namespace nicsim::ulp {
Status RdmaMulticast::OpenChain(Group& g, uint32_t radix) {
  hal::Port& port = ctx_.ports[kPort];
  g.radix = radix;
  // A queue per slot: the landings of one slot are counted apart from the others', so a
  // message landing early in its slot never fires the forwards of another.
  for (uint32_t s = 0; s < kMcastSlots; ++s) {
    Result<uint32_t> q = port.AcquireConditionalQueue();
    if (!q.ok()) return q.status();
    g.queues.push_back(*q);
  }
  for (uint32_t i = 0; i < kMcastSlots * radix; ++i) {
    Result<uint32_t> ref = port.AcquireRcxt();
    if (!ref.ok()) return ref.status();
    g.forwarders.push_back(*ref);
  }
  return Status();
}

size_t RdmaMulticast::MemberOf(const Group& g, uint32_t task) const {
  return static_cast<size_t>(std::find(g.tasks.begin(), g.tasks.end(), task) - g.tasks.begin());
}

std::vector<size_t> RdmaMulticast::Children(const Group& g, size_t root, size_t member) const {
  // Members are numbered from the root (the root is 0); member v's children are
  // v * radix + 1 ... v * radix + radix.
  const size_t n = g.tasks.size();
  const size_t v = (member + n - root) % n;
  std::vector<size_t> out;
  for (size_t c = v * g.radix + 1; c <= v * g.radix + g.radix && c < n; ++c) {
    out.push_back((c + root) % n);
  }
  return out;
}

size_t RdmaMulticast::Parent(const Group& g, size_t member) const {
  const size_t n = g.tasks.size();
  const size_t root = MemberOf(g, ctx_.config.task);
  const size_t v = (member + n - root) % n;
  return ((v - 1) / g.radix + root) % n;
}

uint32_t RdmaMulticast::Depth(const Group& g) const {
  uint32_t depth = 0;
  uint64_t covered = 1;
  uint64_t level = 1;
  while (covered < g.tasks.size()) {
    level *= g.radix;
    covered += level;
    ++depth;
  }
  return depth;
}

void RdmaMulticast::PostToChildren(Group& g, uint64_t epoch, uint64_t len) {
  const uint32_t slot = Slot(epoch);
  const std::vector<size_t> children =
      Children(g, MemberOf(g, ctx_.config.task), MemberOf(g, ctx_.config.task));
  for (size_t c : children) {
    ++ctx_.stats.mcast_chain_writes;
    PostWrite(g, epoch, len, ctx_.ports.PeerOf(g.tasks[c], kPort), g.addresses[c].rcxt[slot],
              g.addresses[c].pvo, 0);
  }
}

void RdmaMulticast::ParkForwards(Group& g, uint64_t epoch, uint32_t root, uint64_t len) {
  const uint32_t slot = Slot(epoch);
  hal::Port& port = ctx_.ports[kPort];
  const std::vector<size_t> children =
      Children(g, MemberOf(g, root), MemberOf(g, ctx_.config.task));
  if (children.empty()) return;  // a leaf forwards nothing
  // Arm the slot for this message: its counter says whether the message has landed already
  // (a forward parked at count 1 then fires at once) and an older message still arriving is
  // stale from now on (it would fire the forwards with the wrong bytes).
  abi::RdmaRequest arm{};
  arm.local_rcxt = g.self.rcxt[slot];
  arm.tid = Tid(epoch, 0);
  arm.cond_queue = static_cast<uint8_t>(g.queues[slot]);
  port.Post(abi::SlotType::kRcxtArm, port.self(), arm, 0);
  for (size_t j = 0; j < children.size(); ++j) {
    const size_t c = children[j];
    abi::RdmaRequest r{};
    r.local_rcxt = g.forwarders[slot * g.radix + j];
    r.remote_rcxt = g.addresses[c].rcxt[slot];
    r.tid = Tid(epoch, 0);
    r.length = static_cast<uint32_t>(len);
    r.local_pvo = g.self.pvo + slot * g.slot_bytes;
    r.remote_pvo = g.addresses[c].pvo + slot * g.slot_bytes;
    r.flags = abi::kReqNotifyTarget;
    r.cond_queue = static_cast<uint8_t>(g.queues[slot]);
    r.count = 1;
    r.parked_type = static_cast<uint8_t>(abi::SlotType::kRdmaWrite);
    ++ctx_.stats.mcast_chain_forwards;
    // The child's completion names the root (its acknowledgement goes there).
    port.Post(abi::SlotType::kConditional, ctx_.ports.PeerOf(g.tasks[c], kPort), r, root);
  }
}

}  // namespace nicsim::ulp
