// SPDX-License-Identifier: Apache-2.0
// MPI's neighbourhood collectives, built on the library's own nonblocking point-to-point
// calls: each process receives one block from each of its sources and sends one to each of
// its destinations, in the order MPI defines for its topology (topology.h). The messages go
// on the topology's private channel, so no receive of the program's can take one.
#include <cstdint>
#include <string>
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/topology.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

/** One neighbour's part of a buffer. */
struct Block {
  void* at;
  int count;
  MPI_Datatype type;
};

/** The place `offset` bytes from `buf` (which may be MPI_BOTTOM, with absolute offsets). */
void* At(const void* buf, MPI_Aint offset) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(offset));
}

/** The call's communicator and its neighbours (MPI_ERR_TOPOLOGY if it has no topology). */
int Start(MPI_Comm comm, const void* sendbuf, const char* call, const Topology** t,
          Neighbourhood* n) {
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_UNDEFINED, call, t));
  if (sendbuf == MPI_IN_PLACE) {
    return C().Error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed here");
  }
  *n = NeighboursOf(**t, C().Comm(comm)->rank);
  return MPI_SUCCESS;
}

/** A block's count and datatype, with the type's extent (for the calls that step by it). */
int CheckBlock(MPI_Comm comm, int count, MPI_Datatype type, const char* call,
               MPI_Aint* extent = nullptr) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, &t));
  if (extent != nullptr) *extent = t->extent;
  return MPI_SUCCESS;
}

/** Per-neighbour counts: there, and none negative. */
int CheckCounts(MPI_Comm comm, const int counts[], const void* displs, size_t n, const char* call) {
  if (n > 0 && (counts == nullptr || displs == nullptr)) {
    return C().Error(comm, MPI_ERR_ARG, call, "no counts or displacements array");
  }
  for (size_t i = 0; i < n; ++i) {
    if (counts[i] < 0) {
      return C().Error(
          comm, MPI_ERR_COUNT, call,
          "count " + std::to_string(counts[i]) + " for neighbour " + std::to_string(i));
    }
  }
  return MPI_SUCCESS;
}

/**
 * Receives block i from source i and sends block j to destination j, skipping the slots of
 * MPI_PROC_NULL, and waits for all. The receives are posted first so that no send waits for
 * a receive its peer has yet to post.
 */
int Exchange(const Topology& t, const Neighbourhood& n, const std::vector<Block>& recvs,
             const std::vector<Block>& sends) {
  std::vector<MPI_Request> requests;
  requests.reserve(recvs.size() + sends.size());
  for (size_t i = 0; i < recvs.size(); ++i) {
    if (n.sources[i] == MPI_PROC_NULL) continue;
    requests.push_back(MPI_REQUEST_NULL);
    NICSIM_MPI_TRY(MPI_Irecv(recvs[i].at, recvs[i].count, recvs[i].type, n.sources[i],
                             n.recv_tags[i], t.channel, &requests.back()));
  }
  for (size_t j = 0; j < sends.size(); ++j) {
    if (n.destinations[j] == MPI_PROC_NULL) continue;
    requests.push_back(MPI_REQUEST_NULL);
    NICSIM_MPI_TRY(MPI_Isend(sends[j].at, sends[j].count, sends[j].type, n.destinations[j],
                             n.send_tags[j], t.channel, &requests.back()));
  }
  return MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

/**
 * MPI_Neighbor_allgather, and with `v` MPI_Neighbor_allgatherv (`recvcount` unused): the one
 * send block to every destination.
 */
int Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, bool v,
              const int recvcounts[], const int displs[], int recvcount, MPI_Datatype recvtype,
              MPI_Comm comm, const char* call) {
  const Topology* t = nullptr;
  Neighbourhood n;
  NICSIM_MPI_TRY(Start(comm, sendbuf, call, &t, &n));
  MPI_Aint extent = 0;
  NICSIM_MPI_TRY(CheckBlock(comm, sendcount, sendtype, call));
  NICSIM_MPI_TRY(CheckBlock(comm, v ? 0 : recvcount, recvtype, call, &extent));
  if (v) NICSIM_MPI_TRY(CheckCounts(comm, recvcounts, displs, n.sources.size(), call));
  std::vector<Block> recvs, sends;
  for (size_t i = 0; i < n.sources.size(); ++i) {
    const int count = v ? recvcounts[i] : recvcount;
    const MPI_Aint displ = v ? displs[i] : static_cast<MPI_Aint>(i) * recvcount;
    recvs.push_back(Block{At(recvbuf, displ * extent), count, recvtype});
  }
  for (size_t j = 0; j < n.destinations.size(); ++j) {
    sends.push_back(Block{const_cast<void*>(sendbuf), sendcount, sendtype});
  }
  return Exchange(*t, n, recvs, sends);
}

/**
 * MPI_Neighbor_alltoall, and with `v` MPI_Neighbor_alltoallv (the single counts unused): a
 * block of its own for each neighbour, placed by extents of the type.
 */
int Alltoall(bool v, const void* sendbuf, const int sendcounts[], const int sdispls[],
             int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
             const int rdispls[], int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             const char* call) {
  const Topology* t = nullptr;
  Neighbourhood n;
  NICSIM_MPI_TRY(Start(comm, sendbuf, call, &t, &n));
  MPI_Aint send_extent = 0, recv_extent = 0;
  NICSIM_MPI_TRY(CheckBlock(comm, v ? 0 : sendcount, sendtype, call, &send_extent));
  NICSIM_MPI_TRY(CheckBlock(comm, v ? 0 : recvcount, recvtype, call, &recv_extent));
  if (v) {
    NICSIM_MPI_TRY(CheckCounts(comm, sendcounts, sdispls, n.destinations.size(), call));
    NICSIM_MPI_TRY(CheckCounts(comm, recvcounts, rdispls, n.sources.size(), call));
  }
  std::vector<Block> recvs, sends;
  for (size_t i = 0; i < n.sources.size(); ++i) {
    const int count = v ? recvcounts[i] : recvcount;
    const MPI_Aint displ = v ? rdispls[i] : static_cast<MPI_Aint>(i) * recvcount;
    recvs.push_back(Block{At(recvbuf, displ * recv_extent), count, recvtype});
  }
  for (size_t j = 0; j < n.destinations.size(); ++j) {
    const int count = v ? sendcounts[j] : sendcount;
    const MPI_Aint displ = v ? sdispls[j] : static_cast<MPI_Aint>(j) * sendcount;
    sends.push_back(Block{At(sendbuf, displ * send_extent), count, sendtype});
  }
  return Exchange(*t, n, recvs, sends);
}

}  // namespace

extern "C" {

int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Allgather(sendbuf, sendcount, sendtype, recvbuf, false, nullptr, nullptr, recvcount,
                   recvtype, comm, "MPI_Neighbor_allgather");
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
  return Allgather(sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, displs, 0, recvtype,
                   comm, "MPI_Neighbor_allgatherv");
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Alltoall(false, sendbuf, nullptr, nullptr, sendcount, sendtype, recvbuf, nullptr, nullptr,
                  recvcount, recvtype, comm, "MPI_Neighbor_alltoall");
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Alltoall(true, sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
                  recvtype, comm, "MPI_Neighbor_alltoallv");
}

int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm) {
  static const char* const kCall = "MPI_Neighbor_alltoallw";
  const Topology* t = nullptr;
  Neighbourhood n;
  NICSIM_MPI_TRY(Start(comm, sendbuf, kCall, &t, &n));
  const size_t in = n.sources.size(), out = n.destinations.size();
  if ((in > 0 && (recvcounts == nullptr || rdispls == nullptr || recvtypes == nullptr)) ||
      (out > 0 && (sendcounts == nullptr || sdispls == nullptr || sendtypes == nullptr))) {
    return C().Error(comm, MPI_ERR_ARG, kCall, "no counts, displacements or types array");
  }
  // Displacements are in bytes, each block of its own type.
  std::vector<Block> recvs, sends;
  for (size_t i = 0; i < in; ++i) {
    NICSIM_MPI_TRY(CheckBlock(comm, recvcounts[i], recvtypes[i], kCall));
    recvs.push_back(Block{At(recvbuf, rdispls[i]), recvcounts[i], recvtypes[i]});
  }
  for (size_t j = 0; j < out; ++j) {
    NICSIM_MPI_TRY(CheckBlock(comm, sendcounts[j], sendtypes[j], kCall));
    sends.push_back(Block{At(sendbuf, sdispls[j]), sendcounts[j], sendtypes[j]});
  }
  return Exchange(*t, n, recvs, sends);
}

}  // extern "C"
