// SPDX-License-Identifier: Apache-2.0
#include "base/packed_region.h"

#include <sys/mman.h>

#include <algorithm>

#include "base/instance_id.h"

namespace nicsim::base {

thread_local int PackNodeState::depth_ = 0;

PackedRegion::PackedRegion(size_t bytes) : id_(NewInstanceId()) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return;
  begin_ = reinterpret_cast<uintptr_t>(p);
  size_ = bytes;
}

PackedRegion::~PackedRegion() {
  if (size_ > 0) munmap(reinterpret_cast<void*>(begin_), size_);
}

thread_local PackedRegion::Chunk PackedRegion::chunk_;

namespace {
uintptr_t AlignUp(uintptr_t at, size_t align) { return (at + align - 1) & ~(uintptr_t{align} - 1); }
}  // namespace

void* PackedRegion::Allocate(size_t bytes, size_t align) {
  bytes = std::max<size_t>(bytes, 1);
  if (bytes > size_) return nullptr;
  // Counted before the epoch is read: a start over that has not yet looked at the count now
  // sees this block, and one that has moved the epoch on sends this thread to a new chunk.
  live_.fetch_add(1);
  Chunk& c = chunk_;
  const bool stale = c.region != id_ || c.epoch != epoch_.load();
  uintptr_t start = AlignUp(c.next, align);
  if (stale || c.next == 0 || start > c.end || bytes > c.end - start) {
    if (!TakeChunk(bytes, align)) {
      live_.fetch_sub(1);
      return nullptr;
    }
    start = AlignUp(c.next, align);
  }
  c.next = start + bytes;
  return reinterpret_cast<void*>(start);
}

bool PackedRegion::TakeChunk(size_t bytes, size_t align) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t first = AlignUp(begin_ + used_, align);
  const size_t left = begin_ + size_ - std::min<uintptr_t>(first, begin_ + size_);
  if (bytes > left) return false;
  const size_t take = std::min(left, std::max(kChunkBytes, bytes));
  chunk_ = Chunk{id_, epoch_.load(), first, first + take};
  used_ = first + take - begin_;
  return true;
}

void PackedRegion::Release() {
  if (live_.fetch_sub(1) != 1) return;
  // The last block back: the next cluster built in this process reuses the same pages. The
  // epoch moves on first, so a thread allocating meanwhile either is counted below or takes
  // a new chunk, which waits for the lock.
  const std::lock_guard<std::mutex> lock(mutex_);
  epoch_.fetch_add(1);
  if (live_.load() == 0) used_ = 0;
}

size_t PackedRegion::used() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

}  // namespace nicsim::base
