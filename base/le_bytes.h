// SPDX-License-Identifier: Apache-2.0
// Little-endian fields for what the processes of a split run send each other.
#pragma once

#include <cstdint>
#include <vector>

namespace nicsim {

/** Appends the low `bytes` bytes of `v`, least significant first. */
inline void PutLe(std::vector<uint8_t>* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

/** Reads `bytes` bytes at `p`, least significant first. */
inline uint64_t GetLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

}  // namespace nicsim
