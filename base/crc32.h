// SPDX-License-Identifier: Apache-2.0
// CRC-32 (IEEE 802.3 polynomial, reflected) over byte ranges.
// Used for the wire header's integrity field; chainable over several ranges.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nicsim {

/** Continues a CRC-32 over `len` bytes; start with crc = 0. */
uint32_t Crc32(uint32_t crc, const void* data, size_t len);

}  // namespace nicsim
