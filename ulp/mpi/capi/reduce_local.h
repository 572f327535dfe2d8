// SPDX-License-Identifier: Apache-2.0
// Reductions in the program's process: every predefined op on every predefined C type MPI
// defines it on (long double, complex numbers and Fortran's types included, which the
// simulator's reductions do not know), on derived types made of one such type, and the
// program's own ops. MPI_Reduce_local runs on it; so may collectives on such types.
#pragma once

#include "ulp/mpi/capi/include/mpi.h"
#include "ulp/mpi/capi/types.h"

namespace nicsim::mpi::capi {

/**
 * inout[i] = in[i] op inout[i] over `count` items of `type` (in buffers laid out as the type
 * says). Returns MPI_SUCCESS, or the error class without reporting it: MPI_ERR_TYPE (unknown
 * or uncommitted type), MPI_ERR_COUNT, or MPI_ERR_OP (an unknown op, or one
 * MPI does not define on the type).
 */
int ReduceLocal(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int count);
/** The same on the type `t` (which need not have a handle any more: `type` only goes to the
 *  program's op, as its datatype argument). */
int ReduceLocal(MPI_Op op, const TypeInfo& t, MPI_Datatype type, const void* in, void* inout,
                int count);

/** Whether predefined `op` is defined on `t` (a type made of one predefined type that allows
 *  it; MPI_REPLACE and MPI_NO_OP on any type). */
bool PredefinedOpDefinedOn(MPI_Op op, const TypeInfo& t);

/**
 * acc[i] = in[i] op acc[i] over `n` packed units of the predefined type `unit`, for a
 * predefined op (not MPI_REPLACE / MPI_NO_OP) defined on it; false if it is not.
 */
bool ReducePacked(MPI_Op op, MPI_Datatype unit, const uint8_t* in, uint8_t* acc, size_t n);

}  // namespace nicsim::mpi::capi
