// SPDX-License-Identifier: Apache-2.0
// Walking two extent lists that cover the same bytes, piece by piece: the platforms' copy
// loop for the in-process zero buffer and for the staged fallback alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "ulp/pushpull/platform.h"

namespace nicsim::ulp::pushpull {

/**
 * Calls `fn(src_addr, dst_addr, len)` for each run where a `from` extent overlaps a `to`
 * extent, in order. Returns the bytes walked (less than the lists' sums if one runs out).
 */
template <typename Fn>
uint64_t ForEachOverlap(const Extent* from, size_t from_count, const Extent* to, size_t to_count,
                        Fn fn) {
  size_t i = 0, j = 0;
  uint64_t di = 0, dj = 0, walked = 0;
  while (i < from_count && j < to_count) {
    const uint64_t n = std::min(from[i].len - di, to[j].len - dj);
    if (n > 0) fn(from[i].addr + di, to[j].addr + dj, n);
    walked += n;
    di += n;
    dj += n;
    if (di == from[i].len) {
      ++i;
      di = 0;
    }
    if (dj == to[j].len) {
      ++j;
      dj = 0;
    }
  }
  return walked;
}

}  // namespace nicsim::ulp::pushpull
