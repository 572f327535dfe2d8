// SPDX-License-Identifier: Apache-2.0
// Areas of a task's virtual memory kept for reuse: mapped at power-of-two sizes and handed
// out again, so their registrations (in the registration cache) are reused too.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>

#include "base/status.h"
#include "hal/task_host.h"

namespace nicsim::ulp {

class BufferPool {
 public:
  /** Areas are at least `min_bytes` (a power of two). */
  BufferPool(hal::TaskHost& host, uint64_t min_bytes) : host_(host), min_bytes_(min_bytes) {}

  /** The smallest free area of at least `bytes`, or a fresh one mapped for it. */
  Result<uint64_t> Take(uint64_t bytes) {
    auto it = free_.lower_bound(bytes);
    if (it != free_.end()) {
      const uint64_t vaddr = it->second;
      free_.erase(it);
      return vaddr;
    }
    uint64_t size = min_bytes_;
    while (size < bytes) size *= 2;
    Result<uint64_t> vaddr = host_.Map(size);
    if (vaddr.ok()) size_[*vaddr] = size;
    return vaddr;
  }
  /** Returns an area from Take. */
  void Give(uint64_t vaddr) { free_.emplace(size_.at(vaddr), vaddr); }

 private:
  hal::TaskHost& host_;
  uint64_t min_bytes_;
  /** Free areas by size. */
  std::multimap<uint64_t, uint64_t> free_;
  /** Size of every area ever mapped, by address. */
  std::unordered_map<uint64_t, uint64_t> size_;
};

}  // namespace nicsim::ulp
