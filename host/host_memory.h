// SPDX-License-Identifier: Apache-2.0
// A node's host memory: a range of real addresses backed by bytes, a contiguous allocator
// for driver buffers, and write watches that stand in for a CPU spinning on a cache line.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "base/status.h"
#include "host/host_region.h"

namespace nicsim::host {

/** Host memory of one node. */
class HostMemory {
 public:
  /** Real addresses start here, so address 0 is never valid. */
  static constexpr uint64_t kBaseAddr = 0x1000'0000;

  /**
   * `bytes` of memory, zero. The bytes come from calloc, so pages never allocated to anyone
   * are never touched and cost no real memory (a node can be given room for a large job).
   */
  explicit HostMemory(uint64_t bytes)
      : bytes_(bytes), mem_(static_cast<uint8_t*>(std::calloc(bytes, 1))) {
    if (mem_ == nullptr) throw std::bad_alloc();
    free_[0] = bytes;
  }

  /** Allocates `bytes` of contiguous memory aligned to 4 KiB, zeroed. */
  Result<HostRegion> AllocContiguous(uint64_t bytes);
  /**
   * Allocates `bytes` (rounded up to whole 4 KiB pages) of contiguous, zeroed memory whose
   * real address is a multiple of `align` (a power of two; below 4 KiB means 4 KiB).
   */
  Result<HostRegion> AllocAligned(uint64_t bytes, uint64_t align);
  /** Returns a block from AllocContiguous or AllocAligned. */
  void Free(const HostRegion& block);

  /** CPU pointer for [addr, addr + len), or nullptr if any byte is outside memory. */
  uint8_t* Translate(uint64_t addr, uint64_t len);
  /** True if every byte of [addr, addr + len) is in an allocated block (not freed). */
  bool IsAllocated(uint64_t addr, uint64_t len) const;

  /** Outcome of a device access. */
  enum class Access : uint8_t {
    kOk,
    /** Some byte is outside host memory. */
    kOutOfRange,
    /** Some byte is in memory the driver has freed (a device use-after-free). */
    kFreed,
  };
  /** What DeviceWrite would answer now, without writing. */
  Access CheckDeviceWrite(uint64_t addr, uint64_t len);
  /**
   * A device (DMA) write: copies only if every byte is allocated memory. The first
   * kPolledWordBytes are stored last, after a store fence, so a CPU polling them on another
   * thread sees the whole write once it sees them.
   */
  Access DeviceWrite(uint64_t addr, const uint8_t* src, uint64_t len);
  /** A device (DMA) read. Reading freed memory is allowed (it reads poison). */
  Access DeviceRead(uint64_t addr, uint8_t* dst, uint64_t len);

  /** The word at the start of a write that a host CPU polls: stored last. */
  static constexpr uint64_t kPolledWordBytes = 8;
  /** Byte written over freed memory, so stale reads stand out. */
  static constexpr uint8_t kPoison = 0xDB;

  /** Called after a device write lands in a watched range: (addr, len). */
  using WatchFn = std::function<void(uint64_t addr, uint64_t len)>;
  /** Watches device writes into [addr, addr + len). Returns a handle for Unwatch. */
  int Watch(uint64_t addr, uint64_t len, WatchFn fn);
  void Unwatch(int handle);
  /** Tells watchers that a device wrote [addr, addr + len). */
  void NotifyDeviceWrite(uint64_t addr, uint64_t len);

  /**
   * A device thread of its own (the adapter's loop on another core) checks allocations while
   * the host allocates and frees: from now on the allocator's map is locked around every use.
   * Off (the default), one thread does everything and nothing is locked.
   */
  void SetDeviceThread(bool on) { device_thread_ = on; }

  uint64_t bytes_in_use() const { return in_use_; }
  /** Total bytes of memory; real addresses are [kBaseAddr, kBaseAddr + size()). */
  uint64_t size() const { return bytes_; }

 private:
  struct WatchEntry {
    uint64_t addr;
    uint64_t len;
    WatchFn fn;
  };
  uint64_t bytes_;
  struct FreeBytes {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], FreeBytes> mem_;
  /** A lock on free_ and in_use_ when SetDeviceThread is on; not locked otherwise. */
  std::unique_lock<std::mutex> LockAllocator() const {
    return device_thread_ ? std::unique_lock<std::mutex>(alloc_mutex_)
                          : std::unique_lock<std::mutex>();
  }

  /** Free blocks: offset -> length. */
  std::map<uint64_t, uint64_t> free_;
  bool device_thread_ = false;
  mutable std::mutex alloc_mutex_;
  uint64_t in_use_ = 0;
  std::map<int, WatchEntry> watches_;
  int next_watch_ = 1;
};

}  // namespace nicsim::host
