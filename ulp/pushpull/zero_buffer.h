// SPDX-License-Identifier: Apache-2.0
// A zero buffer: the (address, length) list of a user buffer split at page boundaries, built
// once ("address translation") and then sliced for each pull round without touching data.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ulp/pushpull/config.h"
#include "ulp/pushpull/platform.h"

namespace nicsim::ulp::pushpull {

/**
 * The page list of one buffer. The reference needs physical pages for a kernel copy; here
 * the pages are virtual, but the list is built the same way and just as early (while a push
 * is in flight), so its cost stays off the path the reference wants it off.
 */
class ZeroBuffer {
 public:
  ZeroBuffer() = default;

  /** Translates `bytes` bytes at `base`: one extent per page touched. */
  ZeroBuffer(const void* base, uint64_t bytes) : base_(reinterpret_cast<uint64_t>(base)) {
    uint64_t at = base_;
    const uint64_t end = base_ + bytes;
    while (at < end) {
      const uint64_t page_end = (at / kPageBytes + 1) * kPageBytes;
      const uint64_t len = std::min(end, page_end) - at;
      extents_.push_back({at, len});
      at += len;
    }
    bytes_ = bytes;
  }

  /** Bytes covered. */
  uint64_t bytes() const { return bytes_; }
  /** Entries (pages touched). */
  size_t entries() const { return extents_.size(); }

  /**
   * Appends to `out` the extents covering [offset, offset + len) of the buffer, clipped at
   * the ends. Returns the number appended (at most len / kPageBytes + 2).
   */
  size_t Slice(uint64_t offset, uint64_t len, std::vector<Extent>* out) const {
    if (len == 0 || extents_.empty()) return 0;
    // Every extent but the first starts on a page boundary, so the index is arithmetic.
    const uint64_t first_len = extents_[0].len;
    size_t i = offset < first_len ? 0 : 1 + static_cast<size_t>((offset - first_len) / kPageBytes);
    uint64_t start = i == 0 ? 0 : first_len + (i - 1) * kPageBytes;  // offset of extent i
    size_t added = 0;
    while (len > 0 && i < extents_.size()) {
      const Extent& e = extents_[i];
      const uint64_t skip = offset > start ? offset - start : 0;
      const uint64_t take = std::min(e.len - skip, len);
      out->push_back({e.addr + skip, take});
      ++added;
      len -= take;
      offset += take;
      start += e.len;
      ++i;
    }
    return added;
  }

 private:
  uint64_t base_ = 0;
  uint64_t bytes_ = 0;
  std::vector<Extent> extents_;
};

}  // namespace nicsim::ulp::pushpull
