// SPDX-License-Identifier: Apache-2.0
// Recycled byte buffers for the simulation's hot path: frames on the wire and DMA staging
// are taken from and returned to a per-thread pool instead of the allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nicsim::hw {

/** A buffer of `size` bytes (contents unspecified), reusing a returned one when it can. */
std::vector<uint8_t> RecycledBytes(size_t size);
/** Gives a buffer back for reuse (large or surplus buffers are simply freed). */
void Recycle(std::vector<uint8_t>&& bytes);

}  // namespace nicsim::hw
