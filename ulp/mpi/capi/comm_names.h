// SPDX-License-Identifier: Apache-2.0
// Names the program gives communicators (MPI_Comm_set_name), kept on its side only.
#pragma once

#include "ulp/mpi/capi/include/mpi.h"

namespace nicsim::mpi::capi {

/** The communicator goes (MPI_Comm_free): its handle, if reused, starts with no name. */
void ForgetCommName(MPI_Comm comm);

}  // namespace nicsim::mpi::capi
