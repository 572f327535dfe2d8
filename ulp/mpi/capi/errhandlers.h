// SPDX-License-Identifier: Apache-2.0
// The error handlers a program makes (MPI_Comm_create_errhandler): a handle is a small
// integer above the predefined MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN, as communicators
// keep it (CommInfo::errhandler).
#pragma once

#include "ulp/mpi/capi/include/mpi.h"

namespace nicsim::mpi::capi {

/** A new handler calling `fn`; the program holds one reference to it. */
MPI_Errhandler AddErrhandler(MPI_Comm_errhandler_function* fn);
/** The program's function behind `handler`, or nullptr for a predefined or unknown one. */
MPI_Comm_errhandler_function* ErrhandlerFunction(MPI_Errhandler handler);
/** A predefined handler or one the program made (a communicator may be given it). */
bool KnownErrhandler(MPI_Errhandler handler);
/** The program got one more handle to `handler` (MPI_Comm_get_errhandler). */
void HoldErrhandler(MPI_Errhandler handler);
/** The program frees a handle (MPI_Errhandler_free); false when it holds none to free. */
bool ReleaseErrhandler(MPI_Errhandler handler);

}  // namespace nicsim::mpi::capi
