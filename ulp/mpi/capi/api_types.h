// SPDX-License-Identifier: Apache-2.0
// What the datatype calls share (api_types.cc defines it): their argument checks, which report
// errors on MPI_COMM_WORLD as calls without a communicator do, and how a new type is added.
#pragma once

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/types.h"

namespace nicsim::mpi::capi {

/** The type `t` may be built from or queried (committed or not), or MPI_ERR_TYPE. */
int OldType(MPI_Datatype t, const char* call, const TypeInfo** info);
/** A count that is not negative, or MPI_ERR_COUNT. */
int CheckCount(int count, const char* call);
/** `ok`, or MPI_ERR_ARG with `what`. */
int CheckArg(bool ok, const char* call, const char* what);
/** Adds a type a constructor made (`how` it was made, for MPI_Type_get_contents) as an
 *  uncommitted, unnamed handle in *newtype; MPI_ERR_NO_MEM if it was too big to make. */
int AddType(TypeInfo t, Contents how, MPI_Datatype* newtype, const char* call);

}  // namespace nicsim::mpi::capi
