// SPDX-License-Identifier: Apache-2.0
// What the constructors and destructors of communicators and datatypes tell the parts of the
// library that cache state on them (attributes and names, topologies), so that a duplicate
// carries what MPI says it carries and a freed handle leaves nothing behind.
#pragma once

#include "ulp/mpi/capi/include/mpi.h"

namespace nicsim::mpi::capi {

/** MPI_Comm_dup and its kin: runs each attribute's copy callback onto `made` (api_attr.cc);
 *  returns MPI_SUCCESS or the first callback's error. */
int CopyCommAttributes(MPI_Comm old, MPI_Comm made);
/** MPI_Comm_free: runs each attribute's delete callback, drops the name (api_attr.cc). */
int DeleteCommAttributes(MPI_Comm comm);
/** MPI_Type_dup: the type's attributes, through their copy callbacks (api_attr.cc). */
int CopyTypeAttributes(MPI_Datatype old, MPI_Datatype made);
/** MPI_Type_free: the type's attributes, through their delete callbacks (api_attr.cc). */
int DeleteTypeAttributes(MPI_Datatype type);
/** MPI_Win_free: the window's attributes, through their delete callbacks (api_attr.cc). */
int DeleteWinAttributes(MPI_Win win);
/** MPI_Comm_dup of a communicator with a topology: `made` gets the same one (api_topo.cc). */
void CopyCommTopology(MPI_Comm old, MPI_Comm made);
/** MPI_Comm_free: the communicator's topology goes (api_topo.cc). */
void ForgetCommTopology(MPI_Comm comm);

}  // namespace nicsim::mpi::capi
