// SPDX-License-Identifier: Apache-2.0
// MPI's wildcards and the tag bound, shared by the MPI layer and its C binding.
#pragma once

namespace nicsim::mpi {

inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;
/** Largest user tag (tags above are the library's, for collectives). */
inline constexpr int kTagUb = (1 << 30) - 1;

}  // namespace nicsim::mpi
