// SPDX-License-Identifier: Apache-2.0
// What the one-sided calls share: one operation checked, placed and started on the simulator
// (api_rma.cc), and an epoch call whose reply brings the results that are complete
// (api_win_sync.cc).
#pragma once

#include "ulp/mpi/capi/client.h"

namespace nicsim::mpi::capi {

/** A window synchronisation on the simulator: `target` (a rank of the window, or -1) and
 *  `ranks` where it takes them; delivers the results the reply brings. `*done` (if given)
 *  gets the reply's flag (MPI_Win_test). */
int SyncWindow(MPI_Win win, wire::WinSync what, int target, bool exclusive,
               const std::vector<int>& ranks, const char* call, int* done = nullptr);

/** Completes request `r` if it is a request-based one-sided operation not yet complete. */
void CompleteRmaRequest(RequestInfo& r);

}  // namespace nicsim::mpi::capi
