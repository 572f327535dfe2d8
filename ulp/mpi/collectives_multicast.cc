// SPDX-License-Identifier: Apache-2.0
// Bcast and Barrier over a multicast group (mpi.bcast=multicast; or chained: the group's
// messages go down a tree of adapters instead of one broadcast write): each communicator forms
// its group on first use, collectively, over point to point; a broadcast goes as slot-sized group
// messages, up to ulp::kMcastSlots of them in flight from the root (which returns once it has
// copied the last one into its source slot); a barrier gathers arrivals to rank 0 up a tree of
// radix 8, and rank 0 releases every member with one signal (an empty group message).
#include <algorithm>
#include <cstring>
#include <memory>

#include "ulp/mpi/collective_tags.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {
namespace {

/** What each member tells the others when a group forms. */
struct MemberRecord {
  uint32_t ok = 0;
  uint32_t reserved = 0;
  ulp::McastAddress address;
};

/** Children per node of the barrier's arrival tree. */
constexpr int kArrivalRadix = 8;

}  // namespace

bool Mpi::MulticastGroup(const Comm& comm) {
  const uint32_t id = CollContext(comm);
  if (auto it = mcast_usable_.find(id); it != mcast_usable_.end()) return it->second;
  ulp::RdmaMulticast& group = transport_.multicast();
  const int n = comm.size();
  const uint32_t radix = config_.bcast == CollectiveTransport::kChained ? config_.chain_radix : 0;
  // Rank 0 opens first; the others take the same rCxt indices and PVO if they can.
  MemberRecord first;
  if (comm.rank == 0) {
    Result<ulp::McastAddress> a = group.Open(id, config_.mcast_slot_bytes, nullptr, radix);
    first.ok = a.ok() ? 1 : 0;
    if (a.ok()) first.address = *a;
  }
  TreeBcast(&first, 1, Datatype::Bytes(sizeof(first)), 0, comm);
  MemberRecord mine = first;
  if (comm.rank != 0) {
    mine.ok = 0;
    if (first.ok) {
      Result<ulp::McastAddress> a = group.Open(id, config_.mcast_slot_bytes, &first.address, radix);
      mine.ok = a.ok() ? 1 : 0;
      if (a.ok()) mine.address = *a;
    }
  }
  std::vector<MemberRecord> all(static_cast<size_t>(n));
  Gather(&mine, 1, Datatype::Bytes(sizeof(mine)), all.data(), 0, comm);
  TreeBcast(all.data(), all.size(), Datatype::Bytes(sizeof(MemberRecord)), 0, comm);
  const bool ok = std::all_of(all.begin(), all.end(), [](const MemberRecord& r) { return r.ok; });
  if (ok) {
    std::vector<uint32_t> tasks;
    std::vector<ulp::McastAddress> addresses;
    for (int r = 0; r < n; ++r) {
      tasks.push_back(static_cast<uint32_t>(comm.group->World(r)));
      addresses.push_back(all[static_cast<size_t>(r)].address);
    }
    group.SetMembers(id, std::move(tasks), std::move(addresses));
    ++stats_.multicast_groups;
  }
  mcast_usable_[id] = ok;
  mcast_epoch_[id] = 1;
  return ok;
}

void Mpi::MulticastBcast(uint8_t* bytes, size_t len, int root, const Comm& comm) {
  const uint32_t id = CollContext(comm);
  ulp::RdmaMulticast& group = transport_.multicast();
  const uint64_t slot = group.slot_bytes(id);
  const uint64_t pieces = len == 0 ? 1 : (len + slot - 1) / slot;
  const uint64_t first = mcast_epoch_[id];
  mcast_epoch_[id] += pieces;
  if (comm.rank == root) {
    for (uint64_t i = 0; i < pieces; ++i) {
      const uint64_t offset = i * slot;
      // The piece is copied into the root's source slot at once: the root goes on while the
      // members acknowledge, and waits only for its slot's last message to be acknowledged.
      blocker_.BlockUntil([&] { return group.SlotFree(id, first + i); });
      group.Send(id, first + i, bytes + offset, std::min<uint64_t>(slot, len - offset), nullptr);
    }
    return;
  }
  // A member expects up to kMcastSlots pieces at once (one per slot), so each is ready when it
  // lands: copied out and, in a chained group, forwarded by the adapter at once.
  // Shared with the callbacks, which may outlive this call if the job is abandoned.
  auto landed = std::make_shared<std::vector<bool>>(pieces, false);
  uint64_t expected = 0;
  for (uint64_t i = 0; i < pieces; ++i) {
    for (; expected < pieces && expected < i + ulp::kMcastSlots; ++expected) {
      const uint64_t offset = expected * slot;
      group.Receive(id, first + expected, static_cast<uint32_t>(comm.group->World(root)),
                    bytes + offset, std::min<uint64_t>(slot, len - offset),
                    [landed, expected] { (*landed)[expected] = true; });
    }
    blocker_.BlockUntil([&] { return (*landed)[i]; });
  }
}

void Mpi::MulticastBarrier(const Comm& comm) {
  const uint32_t ctx = CollContext(comm);
  const int n = comm.size();
  ++stats_.multicast_barriers;
  const Datatype none = Datatype::Bytes(0);
  // Arrivals go up a tree of radix kArrivalRadix (a rank reports once its subtree has), so
  // rank 0 learns that all have entered after log_radix(n) steps, each taking in up to
  // radix - 1 reports at once; one signal to the group releases everyone.
  for (int stride = 1; stride < n; stride *= kArrivalRadix) {
    const int span = stride * kArrivalRadix;
    if (comm.rank % span != 0) {
      const int parent = comm.rank - comm.rank % span;
      Wait(StartSend(nullptr, 0, none, parent, kBarrierTag, ctx, comm));
      break;
    }
    std::vector<Request> reports;
    for (int j = 1; j < kArrivalRadix && comm.rank + j * stride < n; ++j) {
      reports.push_back(
          StartRecv(nullptr, 0, none, comm.rank + j * stride, kBarrierTag, ctx, comm));
    }
    Waitall(reports);
  }
  MulticastBcast(nullptr, 0, 0, comm);
}

}  // namespace nicsim::mpi
