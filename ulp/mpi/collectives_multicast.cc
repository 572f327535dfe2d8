// SPDX-License-Identifier: Apache-2.0
// Bcast and Barrier over a multicast group (mpi.bcast=multicast or chained; the groups
// themselves are multicast_groups.h's): each communicator forms its group on first use,
// collectively, over point to point; a barrier gathers arrivals to rank 0 up a tree of radix
// 8, and rank 0 releases every member with one signal (an empty group message).
#include <optional>
#include <vector>

#include "ulp/mpi/collective_tags.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {
namespace {

/** Children per node of the barrier's arrival tree. */
constexpr int kArrivalRadix = 8;

}  // namespace

bool Mpi::MulticastGroup(const Comm& comm) {
  const uint32_t id = CollectiveContext(comm);
  if (const std::optional<bool> usable = mcast_.Usable(id)) return *usable;
  using Record = MulticastGroups::MemberRecord;
  const Datatype record = Datatype::Bytes(sizeof(Record));
  // Rank 0 opens first; the others take the same rCxt indices and PVO if they can.
  Record first = comm.rank == 0 ? mcast_.Open(id, nullptr) : Record{};
  TreeBcast(&first, 1, record, 0, comm);
  const Record mine = comm.rank == 0 ? first : mcast_.Open(id, &first);
  std::vector<Record> all(static_cast<size_t>(comm.size()));
  Gather(&mine, 1, record, all.data(), 0, comm);
  TreeBcast(all.data(), all.size(), record, 0, comm);
  const bool ok = mcast_.Form(id, *comm.group, all);
  if (ok) ++stats_.multicast_groups;
  return ok;
}

void Mpi::MulticastBcast(uint8_t* bytes, size_t len, int root, const Comm& comm) {
  mcast_.Bcast(bytes, len, comm.rank == root, static_cast<uint32_t>(comm.group->World(root)),
               CollectiveContext(comm));
}

void Mpi::MulticastBarrier(const Comm& comm) {
  const uint32_t ctx = CollectiveContext(comm);
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
