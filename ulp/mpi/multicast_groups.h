// SPDX-License-Identifier: Apache-2.0
// The multicast groups of a rank's communicators (mpi.bcast=multicast, or chained: a group's
// messages go down a tree of adapters instead of one broadcast write): what each member opens
// and tells the others when a group forms, whether a communicator's group is usable, the
// epoch of its next message, and a broadcast as slot-sized group messages, up to
// ulp::kMcastSlots of them in flight from the root. Forming a group is collective over point
// to point, which the MPI layer runs (collectives_multicast.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "ulp/mpi/blocker.h"
#include "ulp/mpi/group.h"
#include "ulp/transport/rdma_multicast.h"

namespace nicsim::mpi {

class MulticastGroups {
 public:
  /** What each member tells the others when a group forms. */
  struct MemberRecord {
    uint32_t ok = 0;
    uint32_t reserved = 0;
    ulp::McastAddress address;
  };

  /** Groups of `slot_bytes` slots; `chain_radix` children per adapter in a chained group (0:
   *  one broadcast write). */
  MulticastGroups(ulp::RdmaMulticast& groups, Blocker& blocker, uint64_t slot_bytes,
                  uint32_t chain_radix)
      : groups_(groups), blocker_(blocker), slot_bytes_(slot_bytes), chain_radix_(chain_radix) {}

  /** Whether the group of collective context `id` is usable; nullopt before it formed. */
  std::optional<bool> Usable(uint32_t id) const;
  /**
   * Opens this task's slots of group `id`: the first member (first == nullptr) where it
   * likes, every other member at the first's rCxt indices and PVO if it can.
   */
  MemberRecord Open(uint32_t id, const MemberRecord* first);
  /** Every member's record, in rank order of the communicator (`group`): the group is
   *  usable if every member opened it. Returns that. */
  bool Form(uint32_t id, const Group& group, const std::vector<MemberRecord>& all);

  /**
   * Broadcasts `len` bytes at `bytes` from `root_world` (this task if `at_root`) through group
   * `id`: the root copies each piece into its source slot and goes on while members
   * acknowledge; a member returns once every piece has landed.
   */
  void Bcast(uint8_t* bytes, size_t len, bool at_root, uint32_t root_world, uint32_t id);

 private:
  ulp::RdmaMulticast& groups_;
  Blocker& blocker_;
  uint64_t slot_bytes_;
  uint32_t chain_radix_;
  /** Per communicator (collective context): its group is usable. */
  std::map<uint32_t, bool> usable_;
  /** Per communicator: the epoch of the group's next message (every member counts the same). */
  std::map<uint32_t, uint64_t> epoch_;
};

}  // namespace nicsim::mpi
