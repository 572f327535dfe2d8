// SPDX-License-Identifier: Apache-2.0
// MPI's collectives (the reduction ops are api_ops.cc's). The program packs its blocks (placing
// each at its displacement) and the simulator moves packed bytes with the MPI layer's collectives.
#include <numeric>
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/intercomm.h"
#include "ulp/mpi/capi/reduce_local.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;

namespace {

/** The reduction arguments of a call: a predefined op MPI defines on the type, or the program's. */
int PutReduction(Writer& w, MPI_Op op, MPI_Datatype type, const TypeInfo& t, MPI_Comm comm,
                 const char* call) {
  bool predefined = op >= MPI_SUM && op <= MPI_MINLOC;
  bool commutes = true;
  if (predefined) {
    const auto mop = static_cast<nicsim::mpi::Op>(op - MPI_SUM);
    if (!t.homogeneous || !nicsim::mpi::OpDefinedOn(mop, t.base)) {
      if (!PredefinedOpDefinedOn(op, t)) {
        return C().Error(comm, MPI_ERR_OP, call, "the op is not defined on this datatype");
      }
      // A type the simulator cannot reduce (long double, complex ...): the program's process
      // applies the op, as it does its own ops (Client::Serve).
      predefined = false;
    }
  } else if (op <= 0 || static_cast<size_t>(op) >= C().ops.size() || !C().ops[op].valid) {
    return C().Error(comm, MPI_ERR_OP, call, "invalid op");
  } else {
    commutes = C().ops[op].commute;
  }
  w.Put<uint8_t>(predefined ? static_cast<uint8_t>(op - MPI_SUM) : nicsim::mpi::wire::kUserOp);
  w.Put<uint32_t>(predefined ? 0 : static_cast<uint32_t>(op));
  w.Put<uint8_t>(static_cast<uint8_t>(t.base));
  w.Put<uint64_t>(t.size);
  w.Put<int32_t>(type);
  w.Put<uint8_t>(commutes);
  return MPI_SUCCESS;
}

/** Packs block i (counts[i] items at displs[i] extents) of every rank, back to back. */
std::vector<uint8_t> PackBlocks(const void* buf, const int counts[], const int displs[], int n,
                                const TypeInfo& t, std::vector<size_t>* byte_counts) {
  std::vector<uint8_t> out;
  for (int i = 0; i < n; ++i) {
    const auto* at =
        static_cast<const uint8_t*>(buf) + static_cast<ptrdiff_t>(displs[i]) * t.extent;
    std::vector<uint8_t> block = Pack(at, static_cast<size_t>(counts[i]), t);
    out.insert(out.end(), block.begin(), block.end());
    if (byte_counts != nullptr) byte_counts->push_back(block.size());
  }
  return out;
}

/** Places packed blocks back to back into `buf` at their displacements (skipping `skip`). */
void UnpackBlocks(const uint8_t* data, size_t bytes, void* buf, const int counts[],
                  const int displs[], int n, const TypeInfo& t, int skip = -1) {
  size_t at = 0;
  for (int i = 0; i < n; ++i) {
    const size_t len = static_cast<size_t>(counts[i]) * t.size;
    if (i != skip && at + len <= bytes) {
      auto* to = static_cast<uint8_t*>(buf) + static_cast<ptrdiff_t>(displs[i]) * t.extent;
      Unpack(data + at, len, to, static_cast<size_t>(counts[i]), t);
    }
    at += len;
  }
}

std::vector<size_t> ByteCounts(const int counts[], int n, const TypeInfo& t) {
  std::vector<size_t> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[i] = static_cast<size_t>(counts[i]) * t.size;
  return out;
}

/** Alltoallv over an intercommunicator, as the w form with byte displacements. */
int InterAlltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const int n = C().Comm(comm)->peer_size();
  const TypeInfo* st = C().types.Usable(sendtype);
  const TypeInfo* rt = C().types.Usable(recvtype);
  if (st == nullptr || rt == nullptr) {
    return C().Error(comm, MPI_ERR_TYPE, "MPI_Alltoallv", "invalid or uncommitted datatype");
  }
  std::vector<ptrdiff_t> sd(static_cast<size_t>(n)), rd(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    sd[i] = sdispls[i] * st->extent;
    rd[i] = rdispls[i] * rt->extent;
  }
  const std::vector<MPI_Datatype> stypes(static_cast<size_t>(n), sendtype);
  const std::vector<MPI_Datatype> rtypes(static_cast<size_t>(n), recvtype);
  return InterAlltoallw(sendbuf, sendcounts, sd.data(), stypes.data(), recvbuf, recvcounts,
                        rd.data(), rtypes.data(), comm);
}

/** Equal counts and back-to-back displacements, for the calls without a v. */
struct Even {
  std::vector<int> counts, displs;
  Even(int n, int count) : counts(static_cast<size_t>(n), count), displs(static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) displs[i] = i * count;
  }
};

int CheckCounts(MPI_Comm comm, const int counts[], int n, const char* call) {
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0) return C().Error(comm, MPI_ERR_COUNT, call, "negative count");
  }
  return MPI_SUCCESS;
}

int Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           MPI_Comm comm, bool all, const char* call) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, &t));
  if (!all) NICSIM_MPI_TRY(CheckRoot(comm, root, call));
  const bool receives = all || C().Comm(comm)->rank == root;
  if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
  Writer w;
  w.Put<int32_t>(comm);
  if (!all) w.Put<int32_t>(root);
  NICSIM_MPI_TRY(PutReduction(w, op, type, *t, comm, call));
  w.Blob(Pack(sendbuf, static_cast<size_t>(count), *t));
  nicsim::mpi::capi::Reply r = C().Call(all ? Call::kAllreduce : Call::kReduce, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  if (receives) Unpack(data, n, recvbuf, static_cast<size_t>(count), *t);
  return r.code;
}

int Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
         bool exclusive, const char* call) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, &t));
  if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
  Writer w;
  w.Put<int32_t>(comm).Put<uint8_t>(exclusive);
  NICSIM_MPI_TRY(PutReduction(w, op, type, *t, comm, call));
  w.Blob(Pack(sendbuf, static_cast<size_t>(count), *t));
  nicsim::mpi::capi::Reply r = C().Call(Call::kScan, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  // An exclusive scan leaves rank 0's buffer as it was (MPI leaves it undefined).
  if (!exclusive || C().Comm(comm)->rank > 0)
    Unpack(data, n, recvbuf, static_cast<size_t>(count), *t);
  return r.code;
}

int Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm, const char* call) {
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  NICSIM_MPI_TRY(CheckRoot(comm, root, call));
  const CommInfo& ci = *C().Comm(comm);
  const bool at_root = ci.rank == root;
  const TypeInfo* rt = nullptr;
  const TypeInfo* st = nullptr;
  if (at_root) {
    NICSIM_MPI_TRY(CheckData(comm, 0, recvtype, call, &rt));
    NICSIM_MPI_TRY(CheckCounts(comm, recvcounts, ci.size, call));
  }
  std::vector<uint8_t> mine;
  if (sendbuf == MPI_IN_PLACE && at_root) {
    mine = PackBlocks(recvbuf, &recvcounts[root], &displs[root], 1, *rt, nullptr);
  } else {
    NICSIM_MPI_TRY(CheckData(comm, sendcount, sendtype, call, &st));
    mine = Pack(sendbuf, static_cast<size_t>(sendcount), *st);
  }
  Writer w;
  w.Put<int32_t>(comm).Put<int32_t>(root).Blob(mine);
  w.Counts(at_root ? ByteCounts(recvcounts, ci.size, *rt) : std::vector<size_t>{});
  nicsim::mpi::capi::Reply r = C().Call(Call::kGatherv, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  if (at_root)
    UnpackBlocks(data, n, recvbuf, recvcounts, displs, ci.size, *rt,
                 sendbuf == MPI_IN_PLACE ? root : -1);
  return r.code;
}

int Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             const char* call) {
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  NICSIM_MPI_TRY(CheckRoot(comm, root, call));
  const CommInfo& ci = *C().Comm(comm);
  const bool at_root = ci.rank == root;
  const bool in_place = at_root && recvbuf == MPI_IN_PLACE;
  const TypeInfo* st = nullptr;
  const TypeInfo* rt = nullptr;
  std::vector<size_t> counts;
  std::vector<uint8_t> all;
  if (at_root) {
    NICSIM_MPI_TRY(CheckData(comm, 0, sendtype, call, &st));
    NICSIM_MPI_TRY(CheckCounts(comm, sendcounts, ci.size, call));
    all = PackBlocks(sendbuf, sendcounts, displs, ci.size, *st, &counts);
  }
  if (!in_place) NICSIM_MPI_TRY(CheckData(comm, recvcount, recvtype, call, &rt));
  const uint64_t room = in_place ? counts[root] : static_cast<uint64_t>(recvcount) * rt->size;
  Writer w;
  w.Put<int32_t>(comm).Put<int32_t>(root).Counts(counts).Blob(all).Put<uint64_t>(room);
  nicsim::mpi::capi::Reply r = C().Call(Call::kScatterv, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  if (!in_place) Unpack(data, n, recvbuf, static_cast<size_t>(recvcount), *rt);
  return r.code;
}

int Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
               const char* call) {
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  const CommInfo& ci = *C().Comm(comm);
  const TypeInfo* rt = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, 0, recvtype, call, &rt));
  NICSIM_MPI_TRY(CheckCounts(comm, recvcounts, ci.size, call));
  std::vector<uint8_t> mine;
  if (sendbuf == MPI_IN_PLACE) {
    mine = PackBlocks(recvbuf, &recvcounts[ci.rank], &displs[ci.rank], 1, *rt, nullptr);
  } else {
    const TypeInfo* st = nullptr;
    NICSIM_MPI_TRY(CheckData(comm, sendcount, sendtype, call, &st));
    mine = Pack(sendbuf, static_cast<size_t>(sendcount), *st);
  }
  Writer w;
  w.Put<int32_t>(comm).Blob(mine).Counts(ByteCounts(recvcounts, ci.size, *rt));
  nicsim::mpi::capi::Reply r = C().Call(Call::kAllgatherv, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  UnpackBlocks(data, n, recvbuf, recvcounts, displs, ci.size, *rt);
  return r.code;
}

int Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, const char* call) {
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  const CommInfo& ci = *C().Comm(comm);
  const TypeInfo* rt = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, 0, recvtype, call, &rt));
  NICSIM_MPI_TRY(CheckCounts(comm, recvcounts, ci.size, call));
  std::vector<size_t> send_counts;
  std::vector<uint8_t> all;
  if (sendbuf == MPI_IN_PLACE) {
    all = PackBlocks(recvbuf, recvcounts, rdispls, ci.size, *rt, &send_counts);
  } else {
    const TypeInfo* st = nullptr;
    NICSIM_MPI_TRY(CheckData(comm, 0, sendtype, call, &st));
    NICSIM_MPI_TRY(CheckCounts(comm, sendcounts, ci.size, call));
    all = PackBlocks(sendbuf, sendcounts, sdispls, ci.size, *st, &send_counts);
  }
  Writer w;
  w.Put<int32_t>(comm).Counts(send_counts).Blob(all).Counts(ByteCounts(recvcounts, ci.size, *rt));
  nicsim::mpi::capi::Reply r = C().Call(Call::kAlltoallv, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  UnpackBlocks(data, n, recvbuf, recvcounts, rdispls, ci.size, *rt);
  return r.code;
}

int ReduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                  MPI_Op op, MPI_Comm comm, const char* call) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  const CommInfo& ci = *C().Comm(comm);
  NICSIM_MPI_TRY(CheckData(comm, 0, type, call, &t));
  NICSIM_MPI_TRY(CheckCounts(comm, recvcounts, ci.size, call));
  const int total = std::accumulate(recvcounts, recvcounts + ci.size, 0);
  if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
  Writer w;
  w.Put<int32_t>(comm);
  NICSIM_MPI_TRY(PutReduction(w, op, type, *t, comm, call));
  w.Counts(ByteCounts(recvcounts, ci.size, *t));
  w.Blob(Pack(sendbuf, static_cast<size_t>(total), *t));
  nicsim::mpi::capi::Reply r = C().Call(Call::kReduceScatter, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  Unpack(data, n, recvbuf, static_cast<size_t>(recvcounts[ci.rank]), *t);
  return r.code;
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Barrier"));
  return C().Call(Call::kBarrier, Writer().Put<int32_t>(comm)).code;
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (IsIntercomm(comm)) return InterBcast(buffer, count, datatype, root, comm);
  const char* call = "MPI_Bcast";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  NICSIM_MPI_TRY(CheckData(comm, count, datatype, call, &t));
  NICSIM_MPI_TRY(CheckRoot(comm, root, call));
  const bool at_root = C().Comm(comm)->rank == root;
  Writer w;
  w.Put<int32_t>(comm).Put<int32_t>(root).Put<uint64_t>(static_cast<uint64_t>(count) * t->size);
  w.Blob(at_root ? Pack(buffer, static_cast<size_t>(count), *t) : std::vector<uint8_t>{});
  nicsim::mpi::capi::Reply r = C().Call(Call::kBcast, w);
  NICSIM_MPI_TRY(CheckCountsAgreed(r, comm, call));
  const auto [data, n] = r.results.Blob();
  if (!at_root) Unpack(data, n, buffer, static_cast<size_t>(count), *t);
  return r.code;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  if (IsIntercomm(comm)) return InterReduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  return Reduce(sendbuf, recvbuf, count, datatype, op, root, comm, false, "MPI_Reduce");
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  if (IsIntercomm(comm)) return InterAllreduce(sendbuf, recvbuf, count, datatype, op, comm);
  return Reduce(sendbuf, recvbuf, count, datatype, op, 0, comm, true, "MPI_Allreduce");
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    const Even even(C().Comm(comm)->peer_size(), recvcount);
    return InterGatherv(sendbuf, sendcount, sendtype, recvbuf, even.counts.data(),
                        even.displs.data(), recvtype, root, comm);
  }
  NICSIM_MPI_TRY(CheckIntracomm(comm, "MPI_Gather"));
  const Even even(C().Comm(comm)->size, recvcount);
  return Gatherv(sendbuf, sendcount, sendtype, recvbuf, even.counts.data(), even.displs.data(),
                 recvtype, root, comm, "MPI_Gather");
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    return InterGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
  }
  return Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 "MPI_Gatherv");
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    const Even even(C().Comm(comm)->peer_size(), sendcount);
    return InterScatterv(sendbuf, even.counts.data(), even.displs.data(), sendtype, recvbuf,
                         recvcount, recvtype, root, comm);
  }
  NICSIM_MPI_TRY(CheckIntracomm(comm, "MPI_Scatter"));
  const Even even(C().Comm(comm)->size, sendcount);
  return Scatterv(sendbuf, even.counts.data(), even.displs.data(), sendtype, recvbuf, recvcount,
                  recvtype, root, comm, "MPI_Scatter");
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    return InterScatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
  }
  return Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  "MPI_Scatterv");
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    const Even even(C().Comm(comm)->peer_size(), recvcount);
    return InterAllgatherv(sendbuf, sendcount, sendtype, recvbuf, even.counts.data(),
                           even.displs.data(), recvtype, comm);
  }
  NICSIM_MPI_TRY(CheckIntracomm(comm, "MPI_Allgather"));
  const Even even(C().Comm(comm)->size, recvcount);
  return Allgatherv(sendbuf, sendcount, sendtype, recvbuf, even.counts.data(), even.displs.data(),
                    recvtype, comm, "MPI_Allgather");
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    return InterAllgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  }
  return Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    "MPI_Allgatherv");
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    const int n = C().Comm(comm)->peer_size();
    const Even sends(n, sendcount), recvs(n, recvcount);
    return InterAlltoallv(sendbuf, sends.counts.data(), sends.displs.data(), sendtype, recvbuf,
                          recvs.counts.data(), recvs.displs.data(), recvtype, comm);
  }
  NICSIM_MPI_TRY(CheckIntracomm(comm, "MPI_Alltoall"));
  const int n = C().Comm(comm)->size;
  const Even sends(n, sendcount), recvs(n, recvcount);
  return Alltoallv(sendbuf, sends.counts.data(), sends.displs.data(), sendtype, recvbuf,
                   recvs.counts.data(), recvs.displs.data(), recvtype, comm, "MPI_Alltoall");
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    return InterAlltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  }
  return Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                   comm, "MPI_Alltoallv");
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    return InterReduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  }
  return ReduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, "MPI_Reduce_scatter");
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (IsIntercomm(comm)) {
    const Even even(C().Comm(comm)->size, recvcount);
    return InterReduceScatter(sendbuf, recvbuf, even.counts.data(), datatype, op, comm);
  }
  NICSIM_MPI_TRY(CheckIntracomm(comm, "MPI_Reduce_scatter_block"));
  const Even even(C().Comm(comm)->size, recvcount);
  return ReduceScatter(sendbuf, recvbuf, even.counts.data(), datatype, op, comm,
                       "MPI_Reduce_scatter_block");
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
  return Scan(sendbuf, recvbuf, count, datatype, op, comm, false, "MPI_Scan");
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
  return Scan(sendbuf, recvbuf, count, datatype, op, comm, true, "MPI_Exscan");
}

}  // extern "C"
