// SPDX-License-Identifier: Apache-2.0
// A block of a node's host memory as both sides see it: the bus address a device uses and the
// CPU's pointer to the same bytes.
#pragma once

#include <cstdint>

namespace nicsim::host {

/** Contiguous real memory: the bus address the adapter uses and the CPU's pointer to it. */
struct HostRegion {
  uint64_t real_addr = 0;
  uint8_t* ptr = nullptr;
  uint64_t bytes = 0;
};

}  // namespace nicsim::host
