// SPDX-License-Identifier: Apache-2.0
// A window the call server holds for its rank's program: the MPI layer's window, the results
// that come back to the program when an epoch ends, and which epochs are open (a
// synchronisation out of turn fails with MPI_ERR_RMA_SYNC instead of reaching the layer); and
// its images, this process's copies of the program's window memory kept in step with the
// program's (ulp/mpi/capi/window_image.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "sim/mpirun/shared_segments.h"
#include "ulp/mpi/capi/window_image.h"
#include "ulp/mpi/one_sided.h"

namespace nicsim::sim {

struct ServedWindow {
  mpi::Win win;
  /** Where gets and fetching accumulates land, by result id, until their epoch ends. */
  struct Result {
    std::unique_ptr<uint8_t[]> bytes;
    uint64_t size = 0;
  };
  std::map<uint64_t, Result> results;
  /** Targets this rank holds a lock at; a lock_all epoch; a start and a post epoch. */
  std::set<int> locked;
  bool locked_all = false;
  bool accessing = false;
  bool exposed = false;
  /** A shared window's segment (SharedSegments), let go when the window is freed. */
  std::optional<SharedSegments::Key> shared;
};

/** This process's copy of a window's memory, or of memory attached to a dynamic window. */
struct ServedImage {
  int32_t window = 0;
  /** Where the program attached it (a dynamic window's memory), else 0. */
  uint64_t address = 0;
  /** The copy, for the program's own memory (MPI_Win_allocate's is the layer's). */
  std::unique_ptr<uint8_t[]> copy;
  std::unique_ptr<mpi::wire::WindowImage> image;
  /** Detached in the call being served: goes once its last changes are in the reply. */
  bool detached = false;
};

}  // namespace nicsim::sim
