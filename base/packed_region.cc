// SPDX-License-Identifier: Apache-2.0
#include "base/packed_region.h"

#include <sys/mman.h>

#include <algorithm>

namespace nicsim::base {

thread_local int PackNodeState::depth_ = 0;

PackedRegion::PackedRegion(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) return;
  begin_ = reinterpret_cast<uintptr_t>(p);
  size_ = bytes;
}

PackedRegion::~PackedRegion() {
  if (size_ > 0) munmap(reinterpret_cast<void*>(begin_), size_);
}

void* PackedRegion::Allocate(size_t bytes, size_t align) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const size_t start = (used_ + align - 1) & ~(align - 1);
  if (start > size_ || std::max<size_t>(bytes, 1) > size_ - start) return nullptr;
  used_ = start + std::max<size_t>(bytes, 1);
  ++live_;
  return reinterpret_cast<void*>(begin_ + start);
}

void PackedRegion::Release() {
  const std::lock_guard<std::mutex> lock(mutex_);
  // The last block back: the next cluster built in this process reuses the same pages.
  if (--live_ == 0) used_ = 0;
}

size_t PackedRegion::used() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

size_t PackedRegion::live() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return live_;
}

}  // namespace nicsim::base
