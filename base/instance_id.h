// SPDX-License-Identifier: Apache-2.0
// Ids that tell one object from another built later at the same address, for caches kept
// outside the object (thread-local ones) that must not be taken for a new object's.
#pragma once

#include <atomic>
#include <cstdint>

namespace nicsim::base {

/** A process-wide id never handed out before, and never 0. Thread-safe. */
inline uint64_t NewInstanceId() {
  static std::atomic<uint64_t> last{0};
  return ++last;
}

}  // namespace nicsim::base
