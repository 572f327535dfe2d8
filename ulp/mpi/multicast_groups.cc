// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/multicast_groups.h"

#include <algorithm>
#include <memory>

namespace nicsim::mpi {

std::optional<bool> MulticastGroups::Usable(uint32_t id) const {
  const auto it = usable_.find(id);
  if (it == usable_.end()) return std::nullopt;
  return it->second;
}

MulticastGroups::MemberRecord MulticastGroups::Open(uint32_t id, const MemberRecord* first) {
  MemberRecord mine;
  if (first != nullptr && !first->ok) return mine;  // the first member could not: nor will we
  Result<ulp::McastAddress> a =
      groups_.Open(id, slot_bytes_, first ? &first->address : nullptr, chain_radix_);
  mine.ok = a.ok() ? 1 : 0;
  if (a.ok()) mine.address = *a;
  return mine;
}

bool MulticastGroups::Form(uint32_t id, const Group& group, const std::vector<MemberRecord>& all) {
  const bool ok = std::all_of(all.begin(), all.end(), [](const MemberRecord& r) { return r.ok; });
  if (ok) {
    std::vector<uint32_t> tasks;
    std::vector<ulp::McastAddress> addresses;
    for (int r = 0; r < group.size(); ++r) {
      tasks.push_back(static_cast<uint32_t>(group.World(r)));
      addresses.push_back(all[static_cast<size_t>(r)].address);
    }
    groups_.SetMembers(id, std::move(tasks), std::move(addresses));
  }
  usable_[id] = ok;
  epoch_[id] = 1;
  return ok;
}

void MulticastGroups::Bcast(uint8_t* bytes, size_t len, bool at_root, uint32_t root_world,
                            uint32_t id) {
  const uint64_t slot = groups_.slot_bytes(id);
  const uint64_t pieces = len == 0 ? 1 : (len + slot - 1) / slot;
  const uint64_t first = epoch_[id];
  epoch_[id] += pieces;
  if (at_root) {
    for (uint64_t i = 0; i < pieces; ++i) {
      const uint64_t offset = i * slot;
      // The piece is copied into the root's source slot at once: the root goes on while the
      // members acknowledge, and waits only for its slot's last message to be acknowledged.
      blocker_.BlockUntil([&] { return groups_.SlotFree(id, first + i); });
      groups_.Send(id, first + i, bytes + offset, std::min<uint64_t>(slot, len - offset), nullptr);
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
      groups_.Receive(id, first + expected, root_world, bytes + offset,
                      std::min<uint64_t>(slot, len - offset),
                      [landed, expected] { (*landed)[expected] = true; });
    }
    blocker_.BlockUntil([&] { return (*landed)[i]; });
  }
}

}  // namespace nicsim::mpi
