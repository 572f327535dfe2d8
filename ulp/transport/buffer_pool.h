// SPDX-License-Identifier: Apache-2.0
// Areas of a task's virtual memory kept for reuse: mapped at power-of-two sizes and handed
// out again, so their registrations (in the registration cache) are reused too. What the pool
// keeps free it gives back when a map anywhere on the node would fail for want of memory.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>

#include "base/status.h"
#include "hal/task_host.h"
#include "ulp/transport/registration_cache.h"

namespace nicsim::ulp {

class BufferPool {
 public:
  /**
   * Areas are at least `min_bytes` (a power of two). `regs`, if given, is the cache that may
   * hold registrations of the pool's areas: they are dropped before an area is unmapped.
   */
  BufferPool(hal::TaskHost& host, uint64_t min_bytes, RegistrationCache* regs = nullptr)
      : host_(host),
        min_bytes_(min_bytes),
        regs_(regs),
        reclaimer_(host.AddReclaimer([this] { return Trim(); })) {}
  ~BufferPool() { host_.RemoveReclaimer(reclaimer_); }
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  /** The smallest free area of at least `bytes`, or a fresh one mapped for it. */
  Result<uint64_t> Take(uint64_t bytes) {
    auto it = free_.lower_bound(bytes);
    if (it != free_.end()) {
      const uint64_t vaddr = it->second;
      free_.erase(it);
      return vaddr;
    }
    const uint64_t size = AreaBytes(bytes);
    Result<uint64_t> vaddr = host_.Map(size);
    if (vaddr.ok()) size_[*vaddr] = size;
    return vaddr;
  }
  /** The size of a fresh area for `bytes` (min_bytes doubled until it holds them). */
  uint64_t AreaBytes(uint64_t bytes) const {
    uint64_t size = min_bytes_;
    while (size < bytes) size *= 2;
    return size;
  }
  /** Returns an area from Take. */
  void Give(uint64_t vaddr) { free_.emplace(size_.at(vaddr), vaddr); }
  /**
   * Unmaps every free area (its registrations dropped first): memory kept for reuse goes back
   * to the node. True if there was any. Areas handed out are not touched.
   */
  bool Trim() {
    if (free_.empty()) return false;
    for (const auto& [size, vaddr] : free_) {
      if (regs_ != nullptr) regs_->Forget(vaddr, size);
      static_cast<void>(host_.Unmap(vaddr));
      size_.erase(vaddr);
    }
    free_.clear();
    ++trims_;
    return true;
  }
  /** Times Trim gave memory back. */
  uint64_t trims() const { return trims_; }

 private:
  hal::TaskHost& host_;
  uint64_t min_bytes_;
  RegistrationCache* regs_;
  uint64_t reclaimer_;
  /** Free areas by size. */
  std::multimap<uint64_t, uint64_t> free_;
  /** Size of every area handed out or free, by address. */
  std::unordered_map<uint64_t, uint64_t> size_;
  uint64_t trims_ = 0;
};

}  // namespace nicsim::ulp
