// SPDX-License-Identifier: Apache-2.0
// Collectives over an intercommunicator, as MPI defines them: data goes from one group to the
// other (a root, named MPI_ROOT in its own group, to or from every process of the remote
// group), or each group gets what the other group gave (the all- forms). They run as point-to-
// point messages between the two groups on the intercommunicator's own communicator for
// collectives (CommInfo::collectives), which no message of the program's uses. Reductions
// combine in the program's process, in the remote group's rank order.
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/intercomm.h"
#include "ulp/mpi/capi/reduce_local.h"

using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::CompleteMode;
using nicsim::mpi::wire::Writer;

namespace nicsim::mpi::capi {
namespace {

/** The tag of every message of a collective (its communicator carries nothing else). */
constexpr int32_t kInterTag = 0;

/** Sends `bytes` to remote rank `peer`; returns the simulator's request. */
uint64_t PostSend(MPI_Comm comm, int peer, const std::vector<uint8_t>& bytes) {
  const CommInfo& c = *C().Comm(comm);
  Writer w;
  w.Put<int32_t>(c.collectives).Put<int32_t>(c.ToServer(peer)).Put<int32_t>(kInterTag);
  w.Put<uint8_t>(0).Blob(bytes);
  return C().Call(Call::kIsend, w).results.Get<uint64_t>();
}

/** Waits for the sends PostSend started. */
void WaitSends(const std::vector<uint64_t>& sends) {
  if (sends.empty()) return;
  Writer w;
  w.Put<uint8_t>(static_cast<uint8_t>(CompleteMode::kWaitAll));
  w.Put<uint32_t>(static_cast<uint32_t>(sends.size()));
  for (uint64_t id : sends) w.Put<uint64_t>(id);
  C().Call(Call::kComplete, w);
}

/** Receives at most `room` bytes from remote rank `peer`. */
std::vector<uint8_t> Receive(MPI_Comm comm, int peer, size_t room) {
  const CommInfo& c = *C().Comm(comm);
  Writer w;
  w.Put<int32_t>(c.collectives).Put<int32_t>(c.ToServer(peer)).Put<int32_t>(kInterTag);
  w.Put<uint64_t>(room);
  Reply r = C().Call(Call::kRecv, w);
  r.results.Get<int32_t>();  // the status: source, tag, bytes, flags
  r.results.Get<int32_t>();
  r.results.Get<uint64_t>();
  r.results.Get<uint8_t>();
  return r.results.BlobCopy();
}

int RemoteSize(MPI_Comm comm) { return C().Comm(comm)->peer_size(); }

const uint8_t* At(const void* buf, ptrdiff_t bytes) {
  return static_cast<const uint8_t*>(buf) + bytes;
}
uint8_t* At(void* buf, ptrdiff_t bytes) { return static_cast<uint8_t*>(buf) + bytes; }

/** A root argument of an intercommunicator collective: MPI_ROOT, MPI_PROC_NULL or a remote rank. */
int CheckInterRoot(MPI_Comm comm, int root, const char* call) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < RemoteSize(comm))) {
    return MPI_SUCCESS;
  }
  return C().Error(comm, MPI_ERR_ROOT, call, "root " + std::to_string(root));
}

/**
 * The root side of a rooted collective sends block i (counts[i] items at displs[i] extents)
 * to remote rank i; a remote-group process receives its block from `root`.
 */
int Distribute(const void* sendbuf, const int counts[], const int displs[], MPI_Datatype sendtype,
               void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
               const char* call) {
  NICSIM_MPI_TRY(CheckInterRoot(comm, root, call));
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root == MPI_ROOT) {
    const TypeInfo* t = nullptr;
    NICSIM_MPI_TRY(CheckData(comm, 0, sendtype, call, &t));
    std::vector<uint64_t> sends;
    for (int i = 0; i < RemoteSize(comm); ++i) {
      sends.push_back(PostSend(
          comm, i, Pack(At(sendbuf, displs[i] * t->extent), static_cast<size_t>(counts[i]), *t)));
    }
    WaitSends(sends);
    return MPI_SUCCESS;
  }
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, recvcount, recvtype, call, &t));
  const std::vector<uint8_t> got = Receive(comm, root, static_cast<size_t>(recvcount) * t->size);
  Unpack(got.data(), got.size(), recvbuf, static_cast<size_t>(recvcount), *t);
  return MPI_SUCCESS;
}

/** The mirror of Distribute: remote-group processes send to the root, which places each. */
int Collect(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int counts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
            const char* call) {
  NICSIM_MPI_TRY(CheckInterRoot(comm, root, call));
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root == MPI_ROOT) {
    const TypeInfo* t = nullptr;
    NICSIM_MPI_TRY(CheckData(comm, 0, recvtype, call, &t));
    for (int i = 0; i < RemoteSize(comm); ++i) {
      const std::vector<uint8_t> got = Receive(comm, i, static_cast<size_t>(counts[i]) * t->size);
      Unpack(got.data(), got.size(), At(recvbuf, displs[i] * t->extent),
             static_cast<size_t>(counts[i]), *t);
    }
    return MPI_SUCCESS;
  }
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, sendcount, sendtype, call, &t));
  WaitSends({PostSend(comm, root, Pack(sendbuf, static_cast<size_t>(sendcount), *t))});
  return MPI_SUCCESS;
}

/**
 * Every process sends its block for remote rank i (byte displacement sdispls[i]) to it and
 * places what remote rank i sent at byte displacement rdispls[i]: the all- forms.
 */
int Exchange(const void* sendbuf, const int sendcounts[], const ptrdiff_t sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const ptrdiff_t rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             const char* call) {
  const int n = RemoteSize(comm);
  std::vector<uint64_t> sends;
  for (int i = 0; i < n; ++i) {
    const TypeInfo* t = nullptr;
    NICSIM_MPI_TRY(CheckData(comm, sendcounts[i], sendtypes[i], call, &t));
    sends.push_back(
        PostSend(comm, i, Pack(At(sendbuf, sdispls[i]), static_cast<size_t>(sendcounts[i]), *t)));
  }
  for (int i = 0; i < n; ++i) {
    const TypeInfo* t = nullptr;
    NICSIM_MPI_TRY(CheckData(comm, recvcounts[i], recvtypes[i], call, &t));
    const std::vector<uint8_t> got = Receive(comm, i, static_cast<size_t>(recvcounts[i]) * t->size);
    Unpack(got.data(), got.size(), At(recvbuf, rdispls[i]), static_cast<size_t>(recvcounts[i]), *t);
  }
  WaitSends(sends);
  return MPI_SUCCESS;
}

/** Per-rank arguments of Exchange that are the same for every peer, or spaced by a stride. */
struct Uniform {
  std::vector<int> counts;
  std::vector<ptrdiff_t> displs;
  std::vector<MPI_Datatype> types;
  Uniform(int n, int count, ptrdiff_t stride, MPI_Datatype type)
      : counts(static_cast<size_t>(n), count),
        displs(static_cast<size_t>(n)),
        types(static_cast<size_t>(n), type) {
    for (int i = 0; i < n; ++i) displs[i] = i * stride;
  }
};

/**
 * Receives `count` items of `type` from every remote process and reduces them, in the remote
 * group's rank order, into `acc` (laid out as the type says, from its lower bound).
 */
int ReduceReceived(int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, const char* call,
                   std::vector<uint8_t>* acc) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, &t));
  const int n = RemoteSize(comm);
  const size_t span = static_cast<size_t>(count) * static_cast<size_t>(t->extent);
  std::vector<uint8_t> in(span);
  acc->assign(span, 0);
  for (int i = n - 1; i >= 0; --i) {
    const std::vector<uint8_t> got = Receive(comm, i, static_cast<size_t>(count) * t->size);
    std::vector<uint8_t>& into = i == n - 1 ? *acc : in;
    Unpack(got.data(), got.size(), into.data() - t->lb, static_cast<size_t>(count), *t);
    // acc = data(i) op acc: the lower ranks' data comes first, as MPI orders a reduction.
    if (i < n - 1) {
      const int code = ReduceLocal(op, type, in.data() - t->lb, acc->data() - t->lb, count);
      if (code != MPI_SUCCESS) return C().Error(comm, code, call, "the op cannot reduce this type");
    }
  }
  return MPI_SUCCESS;
}

/**
 * What each process of a group gets in the all- forms: the reduction over the remote group
 * (every process sends its own `count` items to every remote process).
 */
int ReduceRemote(const void* sendbuf, std::vector<uint8_t>* result, int count, MPI_Datatype type,
                 MPI_Op op, MPI_Comm comm, const char* call) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, &t));
  std::vector<uint64_t> sends;
  const std::vector<uint8_t> mine = Pack(sendbuf, static_cast<size_t>(count), *t);
  for (int i = 0; i < RemoteSize(comm); ++i) sends.push_back(PostSend(comm, i, mine));
  NICSIM_MPI_TRY(ReduceReceived(count, type, op, comm, call, result));
  WaitSends(sends);
  return MPI_SUCCESS;
}

}  // namespace

int InterBcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const Uniform u(RemoteSize(comm), count, 0, type);
  return Distribute(buffer, u.counts.data(), std::vector<int>(u.counts.size(), 0).data(), type,
                    buffer, count, type, root, comm, "MPI_Bcast");
}

int InterGatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  return Collect(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 "MPI_Gather");
}

int InterScatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
  return Distribute(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                    "MPI_Scatter");
}

int InterAlltoallw(const void* sendbuf, const int sendcounts[], const ptrdiff_t sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const ptrdiff_t rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return Exchange(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                  comm, "MPI_Alltoall");
}

int InterAllgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm) {
  // Every process sends its one block to every remote process and gathers theirs.
  const int n = RemoteSize(comm);
  const TypeInfo* rt = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, 0, recvtype, "MPI_Allgather", &rt));
  const Uniform send(n, sendcount, 0, sendtype);
  std::vector<ptrdiff_t> rdispls(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) rdispls[i] = displs[i] * rt->extent;
  const std::vector<MPI_Datatype> rtypes(static_cast<size_t>(n), recvtype);
  return Exchange(sendbuf, send.counts.data(), send.displs.data(), send.types.data(), recvbuf,
                  recvcounts, rdispls.data(), rtypes.data(), comm, "MPI_Allgather");
}

int InterReduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm) {
  const char* call = "MPI_Reduce";
  NICSIM_MPI_TRY(CheckInterRoot(comm, root, call));
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, &t));
  if (root != MPI_ROOT) {
    WaitSends({PostSend(comm, root, Pack(sendbuf, static_cast<size_t>(count), *t))});
    return MPI_SUCCESS;
  }
  std::vector<uint8_t> acc;
  NICSIM_MPI_TRY(ReduceReceived(count, type, op, comm, call, &acc));
  const std::vector<uint8_t> packed = Pack(acc.data() - t->lb, static_cast<size_t>(count), *t);
  Unpack(packed.data(), packed.size(), recvbuf, static_cast<size_t>(count), *t);
  return MPI_SUCCESS;
}

int InterAllreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm) {
  std::vector<uint8_t> result;
  NICSIM_MPI_TRY(ReduceRemote(sendbuf, &result, count, type, op, comm, "MPI_Allreduce"));
  const TypeInfo* t = C().types.Usable(type);
  const std::vector<uint8_t> packed = Pack(result.data() - t->lb, static_cast<size_t>(count), *t);
  Unpack(packed.data(), packed.size(), recvbuf, static_cast<size_t>(count), *t);
  return MPI_SUCCESS;
}

int InterReduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  // The other group's data, reduced, then this process's block of it (blocks by recvcounts
  // over this group).
  const int rank = C().Comm(comm)->rank, size = C().Comm(comm)->size;
  int total = 0, before = 0;
  for (int i = 0; i < size; ++i) {
    if (i == rank) before = total;
    total += recvcounts[i];
  }
  std::vector<uint8_t> result;
  NICSIM_MPI_TRY(ReduceRemote(sendbuf, &result, total, type, op, comm, "MPI_Reduce_scatter"));
  const TypeInfo* t = C().types.Usable(type);
  const uint8_t* mine = result.data() - t->lb + static_cast<ptrdiff_t>(before) * t->extent;
  const std::vector<uint8_t> packed = Pack(mine, static_cast<size_t>(recvcounts[rank]), *t);
  Unpack(packed.data(), packed.size(), recvbuf, static_cast<size_t>(recvcounts[rank]), *t);
  return MPI_SUCCESS;
}

}  // namespace nicsim::mpi::capi
