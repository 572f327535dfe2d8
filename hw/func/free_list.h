// SPDX-License-Identifier: Apache-2.0
// A LIFO free list of buffer ids 0..n-1, as adapter hardware keeps for DTBs and header
// buffers: the most recently freed id is handed out first, id 0 first after a reset.
#pragma once

#include <cstdint>
#include <vector>

namespace nicsim::hw::func {

/** Free ids of a fixed-size buffer pool; `kNone` when the pool is empty. */
template <typename Id, Id kNone>
class FreeList {
 public:
  /** All `count` ids free, id 0 on top. */
  void Reset(uint32_t count) {
    free_.clear();
    for (uint32_t i = count; i > 0; --i) free_.push_back(static_cast<Id>(i - 1));
  }
  bool empty() const { return free_.empty(); }
  /** Ids free now. */
  uint32_t size() const { return static_cast<uint32_t>(free_.size()); }
  /** The id on top, now taken; kNone if every id is taken. */
  Id Take() {
    if (free_.empty()) return kNone;
    const Id id = free_.back();
    free_.pop_back();
    return id;
  }
  void Put(Id id) { free_.push_back(id); }

 private:
  std::vector<Id> free_;
};

}  // namespace nicsim::hw::func
