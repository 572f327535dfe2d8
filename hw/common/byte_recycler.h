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
/**
 * A staging buffer of at least `size` bytes (its size is its whole capacity, so reuse never
 * grows it; the caller keeps the length it uses). Give it back with RecycleStaging.
 */
std::vector<uint8_t> RecycledStaging(size_t size);
/** Gives a staging buffer back for reuse. */
void RecycleStaging(std::vector<uint8_t>&& bytes);
/** Gives a RecycledBytes buffer back for reuse (large or surplus buffers are simply freed). */
void Recycle(std::vector<uint8_t>&& bytes);

}  // namespace nicsim::hw
