// SPDX-License-Identifier: Apache-2.0
// Host memory: first-fit contiguous allocation (aligned to 4 KiB or more) over reserved
// address space whose pages materialise on first write and are given back on free,
// bounds-checked translation, and device-write watches.
#include "host/host_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <new>
#include <string>

#include "base/check.h"
#include "base/instance_id.h"

namespace nicsim::host {
namespace {
constexpr uint64_t kAlign = 4096;
uint64_t RoundUp(uint64_t v, uint64_t unit = kAlign) { return (v + unit - 1) / unit * unit; }
uint64_t RoundDown(uint64_t v, uint64_t unit) { return v / unit * unit; }

/**
 * With a device thread: the range a thread last found allocated in memory `memory`, good
 * while that memory's free count is still `frees` (no lock taken to use it).
 */
struct AllocatedRange {
  uint64_t memory = 0;
  uint64_t frees = 0;
  uint64_t lo = 0;
  uint64_t hi = 0;
};
thread_local AllocatedRange t_allocated;
}  // namespace

HostMemory::HostMemory(uint64_t bytes)
    : bytes_(bytes),
      page_bytes_(static_cast<uint64_t>(sysconf(_SC_PAGESIZE))),
      mapped_bytes_(RoundUp(std::max<uint64_t>(bytes, 1), page_bytes_)),
      id_(base::NewInstanceId()) {
  // Address space only: MAP_NORESERVE takes no swap or commit charge for it, and a page
  // becomes memory on its first write. Huge pages are refused for the range, or one byte
  // written would cost 2 MiB.
  void* p = mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  mem_ = static_cast<uint8_t*>(p);
  madvise(mem_, mapped_bytes_, MADV_NOHUGEPAGE);
  free_[0] = bytes;
}

HostMemory::~HostMemory() { munmap(mem_, mapped_bytes_); }

void HostMemory::Zero(uint64_t offset, uint64_t len) {
  // The system pages wholly inside the range are given back (they read zero and cost nothing
  // until written again); with 4 KiB system pages that is all of a block. Bytes sharing a
  // larger system page with another block are cleared in place.
  const uint64_t first = RoundUp(offset, page_bytes_);
  const uint64_t last = RoundDown(offset + len, page_bytes_);
  if (first >= last) {
    std::memset(mem_ + offset, 0, len);
    return;
  }
  std::memset(mem_ + offset, 0, first - offset);
  NICSIM_CHECK(madvise(mem_ + first, last - first, MADV_DONTNEED) == 0,
               "host memory: madvise(MADV_DONTNEED) of %llu bytes failed",
               static_cast<unsigned long long>(last - first));
  std::memset(mem_ + last, 0, offset + len - last);
}

void HostMemory::Discard(uint64_t addr, uint64_t len) {
  if (addr < kBaseAddr || len > bytes_ || addr - kBaseAddr > bytes_ - len) return;
  const uint64_t offset = addr - kBaseAddr;
  const uint64_t first = RoundUp(offset, page_bytes_);
  const uint64_t last = RoundDown(offset + len, page_bytes_);
  if (first < last) Zero(first, last - first);
}

uint64_t HostMemory::ResidentPages(uint64_t offset, uint64_t len) const {
  if (len == 0) return 0;
  const uint64_t end = std::min(RoundUp(offset + len, page_bytes_), mapped_bytes_);
  uint64_t pages = 0;
  unsigned char resident[4096];
  for (uint64_t at = RoundDown(offset, page_bytes_); at < end;) {
    const uint64_t chunk = std::min<uint64_t>(end - at, sizeof(resident) * page_bytes_);
    NICSIM_CHECK(mincore(mem_ + at, chunk, resident) == 0, "host memory: mincore failed");
    const uint64_t n = chunk / page_bytes_;
    for (uint64_t i = 0; i < n; ++i) pages += resident[i] & 1;
    at += chunk;
  }
  return pages;
}

uint64_t HostMemory::TouchedBytes() const {
  // Only the allocated blocks are looked at: the gaps between free blocks.
  const std::unique_lock<std::mutex> lock = LockAllocator();
  uint64_t pages = 0;
  uint64_t at = 0;
  for (const auto& [offset, len] : free_) {
    pages += ResidentPages(at, offset - at);
    at = offset + len;
  }
  pages += ResidentPages(at, bytes_ - at);
  return pages * page_bytes_;
}

Result<HostRegion> HostMemory::AllocContiguous(uint64_t bytes) {
  return AllocAligned(bytes, kAlign);
}

Result<HostRegion> HostMemory::AllocAligned(uint64_t bytes, uint64_t align) {
  if (bytes == 0) return Status::Error("cannot allocate 0 bytes of host memory");
  if (align == 0 || (align & (align - 1)) != 0) {
    return Status::Error("host memory alignment " + std::to_string(align) +
                         " is not a power of two");
  }
  if (bytes > bytes_ || align > bytes_) {
    return Status::Error("host memory exhausted: " + std::to_string(bytes) + " bytes aligned to " +
                         std::to_string(align) + " wanted, memory holds " + std::to_string(bytes_));
  }
  if (align < kAlign) align = kAlign;
  const uint64_t need = RoundUp(bytes);
  const std::unique_lock<std::mutex> lock = LockAllocator();
  // First fit: the lowest free block that holds `need` bytes from an aligned real address.
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t block = it->first;
    const uint64_t block_len = it->second;
    const uint64_t real = kBaseAddr + block;
    const uint64_t skip = (align - real % align) % align;
    if (skip > block_len || block_len - skip < need) continue;
    const uint64_t offset = block + skip;
    const uint64_t rest = block_len - skip - need;
    free_.erase(it);
    if (skip > 0) free_[block] = skip;
    if (rest > 0) free_[offset + need] = rest;
    in_use_ += need;
    // Free memory reads zero: Free gave its pages back. A page materialised while free (a
    // device read of freed memory maps the zero page; a stray CPU store after Free writes
    // one) is given back now, so the block is zero whatever happened to it. Memory never
    // handed out before needs no look (set-up allocates a node's tables there).
    const uint64_t used_before = std::min(offset + need, std::max(offset, allocated_end_));
    if (!clear_on_free_ ||
        (used_before > offset && ResidentPages(offset, used_before - offset) > 0)) {
      Zero(offset, need);
    }
    allocated_end_ = std::max(allocated_end_, offset + need);
    return HostRegion{kBaseAddr + offset, &mem_[offset], need};
  }
  return Status::Error("host memory exhausted: " + std::to_string(need) +
                       " contiguous bytes aligned to " + std::to_string(align) + " wanted, " +
                       std::to_string(bytes_ - in_use_) + " free in all");
}

void HostMemory::Free(const HostRegion& block) {
  uint64_t offset = block.real_addr - kBaseAddr;
  uint64_t len = block.bytes;
  const std::unique_lock<std::mutex> lock = LockAllocator();
  // Before free_ changes: a thread's cached range (IsAllocated) is not used from here on.
  frees_.fetch_add(1);
  in_use_ -= len;
  allocated_lo_ = allocated_hi_ = 0;
  if (clear_on_free_) Zero(offset, len);
  // Merge with the neighbours so large blocks can be allocated again.
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  free_[offset] = len;
}

uint8_t* HostMemory::Translate(uint64_t addr, uint64_t len) {
  if (addr < kBaseAddr) return nullptr;
  const uint64_t offset = addr - kBaseAddr;
  if (offset > bytes_ || len > bytes_ - offset) return nullptr;
  return mem_ + offset;
}

bool HostMemory::IsAllocated(uint64_t addr, uint64_t len) const {
  if (addr < kBaseAddr) return false;
  const uint64_t offset = addr - kBaseAddr;
  if (offset > bytes_ || len > bytes_ - offset) return false;
  // With a device thread, the range this thread last found, if no Free came since: no lock.
  if (device_thread_) {
    const AllocatedRange& mine = t_allocated;
    if (mine.memory == id_ && mine.frees == frees_.load() && offset >= mine.lo &&
        offset < mine.hi && offset + len <= mine.hi) {
      return true;
    }
  }
  // The free block starting at or before the range, and the next one, must not overlap it.
  const std::unique_lock<std::mutex> lock = LockAllocator();
  // A start at the run's end is outside it (a zero-length range there touches the free block).
  if (offset >= allocated_lo_ && offset < allocated_hi_ && offset + len <= allocated_hi_) {
    return true;
  }
  auto next = free_.upper_bound(offset);
  const uint64_t hi = next != free_.end() ? next->first : bytes_;
  if (hi < offset + len) return false;
  uint64_t lo = 0;
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    lo = prev->first + prev->second;
    if (lo > offset) return false;
  }
  allocated_lo_ = lo;
  allocated_hi_ = hi;
  if (device_thread_) t_allocated = AllocatedRange{id_, frees_.load(), lo, hi};
  return true;
}

HostMemory::Access HostMemory::CheckDeviceWrite(uint64_t addr, uint64_t len) {
  if (Translate(addr, len) == nullptr) return Access::kOutOfRange;
  return IsAllocated(addr, len) ? Access::kOk : Access::kFreed;
}

HostMemory::Access HostMemory::DeviceWrite(uint64_t addr, const uint8_t* src, uint64_t len) {
  const Access access = CheckDeviceWrite(addr, len);
  if (access != Access::kOk) return access;
  uint8_t* dst = Translate(addr, len);
  // The write lands as a cache-line write does for a CPU on another core that polls it: never
  // partly. The HAL polls the first word of a line (a receive frame's valid byte, a send
  // slot's status), so that word is stored last, behind a store fence; the fence also orders
  // this write after every earlier one (a frame's body before its first line). A plain
  // memcpy stores its pieces in no set order. (On x86 stores are ordered; the fences keep
  // the compiler from reordering them.)
  std::atomic_thread_fence(std::memory_order_release);
  if (len > kPolledWordBytes) {
    std::memcpy(dst + kPolledWordBytes, src + kPolledWordBytes, len - kPolledWordBytes);
    std::atomic_thread_fence(std::memory_order_release);
    std::memcpy(dst, src, kPolledWordBytes);
  } else {
    std::memcpy(dst, src, len);
  }
  return access;
}

HostMemory::Access HostMemory::DeviceRead(uint64_t addr, uint8_t* dst, uint64_t len) {
  const uint8_t* src = Translate(addr, len);
  if (src == nullptr) return Access::kOutOfRange;
  std::memcpy(dst, src, len);
  return Access::kOk;
}

int HostMemory::Watch(uint64_t addr, uint64_t len, WatchFn fn) {
  const int handle = next_watch_++;
  watches_.push_back(WatchEntry{handle, addr, len, std::make_unique<WatchFn>(std::move(fn))});
  return handle;
}

void HostMemory::Unwatch(int handle) {
  const auto at = std::lower_bound(watches_.begin(), watches_.end(), handle,
                                   [](const WatchEntry& w, int h) { return w.handle < h; });
  if (at != watches_.end() && at->handle == handle) watches_.erase(at);
}

uint64_t HostMemory::AddReclaimer(Reclaimer fn) {
  const uint64_t handle = next_reclaimer_++;
  reclaimers_.emplace(handle, std::move(fn));
  return handle;
}

void HostMemory::RemoveReclaimer(uint64_t handle) { reclaimers_.erase(handle); }

bool HostMemory::Reclaim() {
  bool any = false;
  for (auto& [handle, fn] : reclaimers_) any |= fn();
  return any;
}

void HostMemory::NotifyDeviceWrite(uint64_t addr, uint64_t len) {
  // By index, over the watches there are now: a function may add a watch (at the end, heard
  // from the next write on), and the function running stays put.
  const size_t count = watches_.size();
  for (size_t i = 0; i < count; ++i) {
    const WatchEntry& w = watches_[i];
    if (addr < w.addr + w.len && w.addr < addr + len) (*w.fn)(addr, len);
  }
}

}  // namespace nicsim::host
