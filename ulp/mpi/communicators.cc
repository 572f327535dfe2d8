// SPDX-License-Identifier: Apache-2.0
// Communicators: the contexts that keep their messages apart, agreed among the members (Dup,
// Split, CreateGroup) or set aside for Idup, which needs no message.
#include <algorithm>

#include "base/check.h"
#include "ulp/mpi/mpi.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {

uint32_t Mpi::NewContext() {
  NICSIM_CHECK(next_context_ < kAgreedContextLimit,
               "rank %d: the job's communicators used up the %u contexts there are", world_.rank,
               kAgreedContextLimit / 2);
  const uint32_t c = next_context_;
  next_context_ += 2;  // even: point to point; odd: the same communicator's collectives
  return c;
}

uint32_t Mpi::AgreeOnContext(uint32_t largest_next) {
  // Every member's contexts so far are below its next one: the largest is fresh for all.
  next_context_ = std::max(next_context_, largest_next);
  return NewContext();
}

Comm Mpi::Dup(const Comm& comm) {
  Comm c = comm;
  c.context = FreshContextAmong(comm);
  return c;
}

Comm Mpi::Idup(const Comm& comm) {
  const uint32_t parent = comm.context;
  const uint32_t first_child = parent / 2 * kIdupChildren;
  uint32_t& taken = idups_[parent];
  if ((parent & kDerivedContextBit) != 0 || taken == kIdupChildren ||
      first_child + kIdupChildren > kDerivedContextBit / 2) {
    return Dup(comm);
  }
  Comm c = comm;
  c.context = kDerivedContextBit | (first_child + taken++) * 2;
  return c;
}

uint32_t Mpi::FreshContextAmong(const Comm& members) {
  // The members agree on a context no member has used (they may have made different
  // communicators before: each rank counts only those it belongs to).
  const int64_t mine = next_context_;
  int64_t largest = 0;
  Allreduce(&mine, &largest, 1, Datatype::Of(Base::kInt64), Op::kMax, members);
  return AgreeOnContext(static_cast<uint32_t>(largest));
}

Comm Mpi::CreateGroup(const Comm& parent, std::vector<int> world_ranks) {
  // The members agree among themselves on the parent's context: no other rank takes part,
  // and every message of the agreement is between two members, so none can match another's.
  Comm among;
  among.context = parent.context;
  among.rank = static_cast<int>(std::find(world_ranks.begin(), world_ranks.end(), world().rank) -
                                world_ranks.begin());
  among.group = Group::Of(std::move(world_ranks));
  Comm c = among;
  c.context = FreshContextAmong(among);
  return c;
}

Comm Mpi::Split(const Comm& comm, int color, int key) {
  const int mine[3] = {color, key, static_cast<int>(next_context_)};
  std::vector<int> all(3 * static_cast<size_t>(comm.size()));
  Allgather(mine, 3, Datatype::Of(Base::kInt32), all.data(), comm);
  struct Member {
    int key, rank;
  };
  std::vector<Member> members;
  uint32_t largest_next = 0;
  for (int r = 0; r < comm.size(); ++r) {
    largest_next = std::max(largest_next, static_cast<uint32_t>(all[3 * r + 2]));
    if (all[3 * r] == color) members.push_back({all[3 * r + 1], r});
  }
  std::stable_sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    return a.key != b.key ? a.key < b.key : a.rank < b.rank;
  });
  Comm c;
  // As in Dup: a context fresh for every member of `comm`, so for every member of c.
  c.context = AgreeOnContext(largest_next);
  std::vector<int> world_ranks;
  for (const Member& m : members) {
    if (m.rank == comm.rank) c.rank = static_cast<int>(world_ranks.size());
    world_ranks.push_back(comm.group->World(m.rank));
  }
  c.group = Group::Of(std::move(world_ranks));
  return c;
}

}  // namespace nicsim::mpi
