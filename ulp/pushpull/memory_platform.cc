// SPDX-License-Identifier: Apache-2.0
// MemoryPlatform: the zero-buffer copy between "processes" that share one address space.
#include "ulp/pushpull/memory_platform.h"

#include <cstring>

#include "ulp/pushpull/extent_copy.h"

namespace nicsim::ulp::pushpull {

CrossCopy MemoryPlatform::CopyTo(uint64_t token, const Extent* local, size_t local_count,
                                 const Extent* remote, size_t remote_count) {
  (void)token;
  if (force_fallback_) return CrossCopy::kUnsupported;
  ForEachOverlap(local, local_count, remote, remote_count,
                 [](uint64_t src, uint64_t dst, uint64_t n) {
                   std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
                 });
  ++copies_;
  return CrossCopy::kDone;
}

}  // namespace nicsim::ulp::pushpull
