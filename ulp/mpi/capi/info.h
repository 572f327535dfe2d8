// SPDX-License-Identifier: Apache-2.0
// The program's info objects (MPI_Info handles): keys with string values, in the order the
// keys were first set. MPI_INFO_ENV is predefined and describes how the process started.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ulp/mpi/capi/include/mpi.h"

namespace nicsim::mpi::capi {

using InfoEntries = std::vector<std::pair<std::string, std::string>>;

/** The entries of `info`, or nullptr for MPI_INFO_NULL, a freed or an unknown handle. */
const InfoEntries* FindInfo(MPI_Info info);
/** A new info handle holding `entries` (e.g. the hints a get_info call returns). */
MPI_Info AddInfo(InfoEntries entries);

}  // namespace nicsim::mpi::capi
