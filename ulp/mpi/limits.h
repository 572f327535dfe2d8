// SPDX-License-Identifier: Apache-2.0
// MPI's wildcards and the tag bound, shared by the MPI layer and its C binding.
#pragma once

#include <cstdint>

namespace nicsim::mpi {

inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;
/** Largest user tag (tags above are the library's, for collectives). */
inline constexpr int kTagUb = (1 << 30) - 1;
/** Most bytes one message carries: the transport's header holds a message's length in 32 bits
 *  (ulp/transport/wire.h). */
inline constexpr uint64_t kMaxMessageBytes = UINT32_MAX;

}  // namespace nicsim::mpi
