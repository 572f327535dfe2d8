// SPDX-License-Identifier: Apache-2.0
// MPI's nonblocking collectives. Each runs its collective to the end inside the call and
// returns a request that is already complete: the result is what MPI defines, but the call
// does not return before every member has reached it, so a program that makes progress
// elsewhere between starting a collective and waiting for it (a rank that sends before it
// joins, to a rank that waits for that message first) waits as with the blocking form.
#include "ulp/mpi/capi/checks.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

/** A request that is complete: the collective `code` reports has already run. */
int Completed(int code, MPI_Comm comm, MPI_Request* request) {
  if (code != MPI_SUCCESS) return code;
  RequestInfo done;
  done.comm = comm;
  *request = C().AddRequest(done);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return Completed(MPI_Barrier(comm), comm, request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  return Completed(MPI_Bcast(buffer, count, datatype, root, comm), comm, request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  return Completed(MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm), comm, request);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  return Completed(MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm), comm, request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  return Completed(
      MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), comm,
      request);
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  return Completed(
      MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm),
      comm, request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  return Completed(
      MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), comm,
      request);
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  return Completed(
      MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm),
      comm, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Completed(MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                   comm, request);
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  return Completed(
      MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
      comm, request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Completed(MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                   comm, request);
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  return Completed(MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm),
                   comm, request);
}

int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request) {
  return Completed(MPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm),
                   comm, request);
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return Completed(MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm), comm,
                   request);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  return Completed(MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm), comm,
                   request);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request) {
  return Completed(MPI_Scan(sendbuf, recvbuf, count, datatype, op, comm), comm, request);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  return Completed(MPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm), comm, request);
}

}  // extern "C"
