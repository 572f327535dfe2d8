// SPDX-License-Identifier: Apache-2.0
// MPI_Alltoallw: each block has a type of its own and a displacement in bytes; the blocks are
// packed one by one and travel as an all-to-all of bytes.
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/intercomm.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry point below is global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;

extern "C" {

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    const int n = C().Comm(comm)->peer_size();
    const std::vector<ptrdiff_t> sd(sdispls, sdispls + n), rd(rdispls, rdispls + n);
    return InterAlltoallw(sendbuf, sendcounts, sd.data(), sendtypes, recvbuf, recvcounts, rd.data(),
                          recvtypes, comm);
  }
  // Each block has a type of its own and a displacement in bytes: the blocks are packed one by
  // one and travel as an all-to-all of bytes.
  const char* call = "MPI_Alltoallw";
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  const int size = C().Comm(comm)->size;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::vector<size_t> send_counts, recv_counts;
  std::vector<uint8_t> all;
  for (int i = 0; i < size; ++i) {
    const TypeInfo *st = nullptr, *rt = nullptr;
    NICSIM_MPI_TRY(CheckData(comm, recvcounts[i], recvtypes[i], call, &rt));
    recv_counts.push_back(static_cast<size_t>(recvcounts[i]) * rt->size);
    const void* from = in_place ? recvbuf : sendbuf;
    const int count = in_place ? recvcounts[i] : sendcounts[i];
    const int displ = in_place ? rdispls[i] : sdispls[i];
    if (!in_place) NICSIM_MPI_TRY(CheckData(comm, count, sendtypes[i], call, &st));
    const std::vector<uint8_t> block = Pack(static_cast<const uint8_t*>(from) + displ,
                                            static_cast<size_t>(count), in_place ? *rt : *st);
    all.insert(all.end(), block.begin(), block.end());
    send_counts.push_back(block.size());
  }
  Writer w;
  w.Put<int32_t>(comm).Counts(send_counts).Blob(all).Counts(recv_counts);
  nicsim::mpi::capi::Reply r = C().Call(Call::kAlltoallv, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  size_t at = 0;
  for (int i = 0; i < size; ++i) {
    const TypeInfo* rt = C().types.Usable(recvtypes[i]);
    if (at + recv_counts[i] <= n) {
      Unpack(data + at, recv_counts[i], static_cast<uint8_t*>(recvbuf) + rdispls[i],
             static_cast<size_t>(recvcounts[i]), *rt);
    }
    at += recv_counts[i];
  }
  return r.code;
}

}  // extern "C"
