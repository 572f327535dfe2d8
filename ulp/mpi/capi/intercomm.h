// SPDX-License-Identifier: Apache-2.0
// What the communicator calls need of the intercommunicators' file (api_intercomm.cc).
#pragma once

#include <cstddef>

#include "ulp/mpi/capi/include/mpi.h"

namespace nicsim::mpi::capi {

/**
 * MPI_Comm_split of intercommunicator `comm`: each group splits by color, and the parts of
 * the two groups with one color form a new intercommunicator (MPI_COMM_NULL where either part
 * is empty, or with MPI_UNDEFINED).
 */
MPI_Comm SplitIntercomm(MPI_Comm comm, int color, int key);

// The collectives over intercommunicator `comm` (api_intercoll.cc), with MPI's arguments: a
// root is MPI_ROOT, MPI_PROC_NULL or a rank of the remote group. The v and w forms carry the
// others (Alltoallw's displacements in bytes).
int InterBcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int InterGatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm);
int InterScatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm);
int InterAllgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm);
int InterAlltoallw(const void* sendbuf, const int sendcounts[], const ptrdiff_t sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const ptrdiff_t rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int InterReduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm);
int InterAllreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm);
int InterReduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm);

}  // namespace nicsim::mpi::capi
