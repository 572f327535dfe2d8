// SPDX-License-Identifier: Apache-2.0
// What the program's library knows of a window: its members, its memory and every member's
// size and displacement unit (to check and place an operation before it travels), its images
// (its memory, of which the simulator holds a copy kept in step at each call: window_image.h)
// and its name and error handler.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ulp/mpi/capi/include/mpi.h"
#include "ulp/mpi/capi/info.h"
#include "ulp/mpi/capi/types.h"
#include "ulp/mpi/capi/window_image.h"

namespace nicsim::mpi::capi {

struct WinInfo {
  bool valid = false;
  /** The world rank of each member, by rank; this process's rank among them. */
  std::vector<int> members;
  int rank = 0;
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  /** Every member's window size and displacement unit, by rank. */
  std::vector<uint64_t> sizes;
  std::vector<int> disp_units;
  /** Its images by the simulator's number (wire.h): the window's memory, or each memory
   *  attached to a dynamic window; and those attached, by address. */
  std::map<int32_t, std::unique_ptr<wire::WindowImage>> images;
  std::map<uint64_t, int32_t> attached;
  /** The memory MPI_Win_allocate took, freed with the window. */
  std::unique_ptr<uint8_t[]> allocated;
  /** A shared window's memory, every member's back to back (offsets by rank), mapped here
   *  and in the simulator alike. */
  uint8_t* shared_map = nullptr;
  uint64_t shared_bytes = 0;
  std::vector<uint64_t> offsets;
  /** MPI_WIN_MODEL: separate (two copies kept in step at each call), or unified (shared). */
  int model = MPI_WIN_SEPARATE;
  std::string name;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  /** The hints in use (MPI_Win_get_info): those the library knows, as last set. */
  InfoEntries hints;
};

/** Where the bytes of a get (or a fetching accumulate's result) go when the simulator sends
 *  them, at the end of the epoch (kWinSync). */
struct PendingResult {
  void* buf = nullptr;
  int count = 0;
  std::shared_ptr<const TypeInfo> type;
};

}  // namespace nicsim::mpi::capi
