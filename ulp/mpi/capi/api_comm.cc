// SPDX-License-Identifier: Apache-2.0
// MPI's communicator constructors beyond dup and split: from a group, by node, with info,
// nonblocking; and the process-management calls a job started by `nicsim mpirun` refuses.
#include <algorithm>
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/intercomm.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;

namespace {

/** The group of handle `g`, or the error MPI_ERR_GROUP reported on `comm`. */
int CheckGroupOf(MPI_Comm comm, MPI_Group g, const char* call, const GroupInfo** info) {
  *info = C().Group(g);
  if (*info == nullptr) return C().Error(comm, MPI_ERR_GROUP, call, "invalid group");
  const std::vector<int>& members = C().Comm(comm)->members;
  for (int w : (*info)->members) {
    if (!Contains(members, w)) {
      return C().Error(comm, MPI_ERR_GROUP, call, "the group is not a subset of the communicator");
    }
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create";
  NICSIM_MPI_TRY(CheckComm(comm, call));
  const GroupInfo* g = nullptr;
  NICSIM_MPI_TRY(CheckGroupOf(comm, group, call, &g));
  const int in_group = RankIn(g->members, C().world_rank);
  const bool member = in_group != MPI_UNDEFINED;
  if (C().Comm(comm)->inter) {
    // Each side names a part of its own group; the parts face each other.
    *newcomm = SplitIntercomm(comm, member ? 0 : MPI_UNDEFINED, member ? in_group : 0);
    return MPI_SUCCESS;
  }
  // A split in which the members of each group (disjoint groups may be given by different
  // ranks) share a color, their lowest world rank, and keep the group's order.
  const int color =
      member ? *std::min_element(g->members.begin(), g->members.end()) : MPI_UNDEFINED;
  return MPI_Comm_split(comm, color, member ? in_group : 0, newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create_group";
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  NICSIM_MPI_TRY(CheckTag(comm, tag, false, call));
  const GroupInfo* g = nullptr;
  NICSIM_MPI_TRY(CheckGroupOf(comm, group, call, &g));
  if (!Contains(g->members, C().world_rank)) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  Writer w;
  w.Put<int32_t>(comm).Put<uint32_t>(static_cast<uint32_t>(g->members.size()));
  for (int m : g->members) w.Put<int32_t>(m);
  Reply r = C().Call(Call::kCommCreateGroup, w);
  *newcomm = C().AddMade(r.results, C().Comm(comm)->errhandler);
  return MPI_SUCCESS;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_split_type";
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
    return C().Error(comm, MPI_ERR_ARG, call, "unknown split type " + std::to_string(split_type));
  }
  Reply r = C().Call(Call::kCommSplitType,
                     Writer().Put<int32_t>(comm).Put<int32_t>(split_type).Put<int32_t>(key));
  *newcomm = C().AddMade(r.results, C().Comm(comm)->errhandler);
  return MPI_SUCCESS;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info, MPI_Comm* newcomm) {
  // No hint changes what a communicator does here.
  return MPI_Comm_dup(comm, newcomm);
}

int MPI_Comm_spawn(const char*, char*[], int, MPI_Info, int, MPI_Comm comm, MPI_Comm* intercomm,
                   int[]) {
  *intercomm = MPI_COMM_NULL;
  return C().Error(comm, MPI_ERR_SPAWN, "MPI_Comm_spawn",
                   "nicsim mpirun starts every process of a job; none can be spawned");
}

int MPI_Comm_spawn_multiple(int, char*[], char**[], const int[], const MPI_Info[], int,
                            MPI_Comm comm, MPI_Comm* intercomm, int[]) {
  *intercomm = MPI_COMM_NULL;
  return C().Error(comm, MPI_ERR_SPAWN, "MPI_Comm_spawn_multiple",
                   "nicsim mpirun starts every process of a job; none can be spawned");
}

int MPI_Comm_get_parent(MPI_Comm* parent) {
  *parent = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"
