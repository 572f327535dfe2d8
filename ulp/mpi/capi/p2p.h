// SPDX-License-Identifier: Apache-2.0
// The point-to-point operations the C binding's request calls share: starting a send or a
// receive into a request, with the checks MPI defines.
#pragma once

#include "ulp/mpi/capi/client.h"

namespace nicsim::mpi::capi {

/**
 * Checks a send and starts it on the simulator; `info` gets its request (none with
 * MPI_PROC_NULL). The program's bytes are packed and copied as it starts: the buffer may be
 * reused at once.
 */
int StartSend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              bool sync, const char* call, RequestInfo* info);
/** Checks a receive and posts it on the simulator; `info` gets its request and landing. */
int StartRecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              const char* call, RequestInfo* info);
/** StartSend and StartRecv with a type already checked (a persistent request's copy). */
int StartSendOf(const void* buf, int count, const TypeInfo& t, int dest, int tag, MPI_Comm comm,
                bool sync, const char* call, RequestInfo* info);
int StartRecvOf(void* buf, int count, const TypeInfo& t, int source, int tag, MPI_Comm comm,
                const char* call, RequestInfo* info);

}  // namespace nicsim::mpi::capi
