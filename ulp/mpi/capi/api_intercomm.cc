// SPDX-License-Identifier: Apache-2.0
// MPI's intercommunicators. The simulator knows an intercommunicator as one communicator of
// both groups, the group with the lowest world rank first; the program's side keeps which
// group is local and translates point-to-point ranks (client.h, CommInfo). Of the collectives
// only MPI_Barrier runs over an intercommunicator.
#include <algorithm>
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/intercomm.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;

namespace {

/**
 * Makes the simulator's communicator of `local` and `remote` (disjoint groups of world
 * ranks, this rank in `local`) and records it as an intercommunicator with those groups;
 * collective over both groups. MPI_COMM_NULL if either group is empty.
 */
MPI_Comm Bridge(std::vector<int> local, std::vector<int> remote, MPI_Errhandler errhandler) {
  if (local.empty() || remote.empty()) return MPI_COMM_NULL;
  const bool local_first = *std::min_element(local.begin(), local.end()) <
                           *std::min_element(remote.begin(), remote.end());
  std::vector<int> both = local_first ? local : remote;
  const std::vector<int>& second = local_first ? remote : local;
  both.insert(both.end(), second.begin(), second.end());
  Writer w;
  w.Put<int32_t>(MPI_COMM_WORLD).Put<uint32_t>(static_cast<uint32_t>(both.size()));
  for (int m : both) w.Put<int32_t>(m);
  Reply r = C().Call(Call::kCommCreateGroup, w);
  const MPI_Comm made = C().AddMade(r.results, errhandler);
  if (made == MPI_COMM_NULL) return MPI_COMM_NULL;
  Reply own = C().Call(Call::kCommCreateGroup, w);
  const MPI_Comm collectives = own.results.Get<int32_t>();
  CommInfo& c = C().comms[made];
  c.collectives = collectives;
  c.inter = true;
  c.rank = RankIn(local, C().world_rank);
  c.size = static_cast<int>(local.size());
  c.remote_offset = local_first ? c.size : 0;
  c.members = std::move(local);
  c.remote = std::move(remote);
  return made;
}

/** The intercommunicator `comm`, or the error MPI_ERR_COMM. */
int CheckIntercomm(MPI_Comm comm, const char* call) {
  NICSIM_MPI_TRY(CheckComm(comm, call));
  if (C().Comm(comm)->inter) return MPI_SUCCESS;
  return C().Error(comm, MPI_ERR_COMM, call, "not an intercommunicator");
}

}  // namespace

extern "C" {

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create";
  NICSIM_MPI_TRY(CheckIntracomm(local_comm, call));
  NICSIM_MPI_TRY(CheckRoot(local_comm, local_leader, call));
  const CommInfo local = *C().Comm(local_comm);
  std::vector<int> remote;
  int n = 0;
  if (local.rank == local_leader) {
    // The leaders trade their groups over the peer communicator, sizes first.
    NICSIM_MPI_TRY(CheckComm(peer_comm, call));
    NICSIM_MPI_TRY(CheckPeer(peer_comm, remote_leader, false, call));
    NICSIM_MPI_TRY(CheckTag(peer_comm, tag, false, call));
    int mine = local.size;
    NICSIM_MPI_TRY(MPI_Sendrecv(&mine, 1, MPI_INT, remote_leader, tag, &n, 1, MPI_INT,
                                remote_leader, tag, peer_comm, MPI_STATUS_IGNORE));
    remote.resize(static_cast<size_t>(std::max(n, 0)));
    NICSIM_MPI_TRY(MPI_Sendrecv(local.members.data(), local.size, MPI_INT, remote_leader, tag,
                                remote.data(), n, MPI_INT, remote_leader, tag, peer_comm,
                                MPI_STATUS_IGNORE));
  }
  NICSIM_MPI_TRY(MPI_Bcast(&n, 1, MPI_INT, local_leader, local_comm));
  remote.resize(static_cast<size_t>(std::max(n, 0)));
  NICSIM_MPI_TRY(MPI_Bcast(remote.data(), n, MPI_INT, local_leader, local_comm));
  for (int w : remote) {
    if (Contains(local.members, w)) {
      return C().Error(local_comm, MPI_ERR_COMM, call, "the two groups overlap");
    }
  }
  *newintercomm = Bridge(local.members, std::move(remote), local.errhandler);
  return MPI_SUCCESS;
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const char* call = "MPI_Intercomm_merge";
  NICSIM_MPI_TRY(CheckIntercomm(intercomm, call));
  // A split of the simulator's communicator of both groups: the group that says high goes
  // after the other; with equal answers, the order the groups have there.
  const MPI_Errhandler errhandler = C().Comm(intercomm)->errhandler;
  Writer w;
  w.Put<int32_t>(intercomm).Put<int32_t>(0).Put<int32_t>(high ? 1 : 0);
  Reply r = C().Call(Call::kCommSplit, w);
  *newintracomm = C().AddMade(r.results, errhandler);
  return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Comm_test_inter"));
  *flag = C().Comm(comm)->inter;
  return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  NICSIM_MPI_TRY(CheckIntercomm(comm, "MPI_Comm_remote_size"));
  *size = static_cast<int>(C().Comm(comm)->remote.size());
  return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  NICSIM_MPI_TRY(CheckIntercomm(comm, "MPI_Comm_remote_group"));
  *group = C().AddGroup(C().Comm(comm)->remote);
  return MPI_SUCCESS;
}

}  // extern "C"

namespace nicsim::mpi::capi {

MPI_Comm SplitIntercomm(MPI_Comm comm, int color, int key) {
  // Each group splits by color; same-colored parts of the two groups face each other. One
  // split of the simulator's communicator gathers them (first group first, each by key), and
  // the new bridge is made between the parts.
  const CommInfo old = *C().Comm(comm);
  const bool local_first = old.remote_offset > 0;
  const int order = local_first ? 0 : 1;
  Writer args;
  args.Put<int32_t>(comm).Put<int32_t>(color);
  args.Put<int32_t>(order * (1 << 24) + std::clamp(key, 0, (1 << 24) - 1));
  Reply r = C().Call(Call::kCommSplit, args);
  const MPI_Comm both = C().AddMade(r.results, old.errhandler);
  if (both == MPI_COMM_NULL) return MPI_COMM_NULL;
  std::vector<int> local, remote;
  for (int w : C().Comm(both)->members) (Contains(old.members, w) ? local : remote).push_back(w);
  C().Call(Call::kCommFree, Writer().Put<int32_t>(both));
  C().comms[both] = CommInfo{};
  return Bridge(std::move(local), std::move(remote), old.errhandler);
}

}  // namespace nicsim::mpi::capi
