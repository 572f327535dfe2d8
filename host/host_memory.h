// SPDX-License-Identifier: Apache-2.0
// A node's host memory: a range of real addresses that costs only the pages written, a
// contiguous allocator for driver buffers, and write watches standing in for a polling CPU.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "base/status.h"
#include "host/host_region.h"

namespace nicsim::host {

/**
 * Host memory of one node. Its bytes are reserved address space, not memory: a page costs
 * real memory from its first write until the block holding it is freed, and a page never
 * written reads as zero without costing any. So a node can be given room for a large job and
 * pay only for what the job writes (TouchedBytes).
 */
class HostMemory {
 public:
  /** Real addresses start here, so address 0 is never valid. */
  static constexpr uint64_t kBaseAddr = 0x1000'0000;

  /**
   * `bytes` of memory, zero. Throws std::bad_alloc if the address space cannot be reserved
   * (a `ulimit -v` below it).
   */
  explicit HostMemory(uint64_t bytes);
  ~HostMemory();
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  /** Allocates `bytes` of contiguous memory aligned to 4 KiB, zeroed. */
  Result<HostRegion> AllocContiguous(uint64_t bytes);
  /**
   * Allocates `bytes` (rounded up to whole 4 KiB pages) of contiguous, zeroed memory whose
   * real address is a multiple of `align` (a power of two; below 4 KiB means 4 KiB). Free
   * memory is kept zero (Free gives its pages back), so nothing is written here: a block
   * costs memory only as it is written.
   */
  Result<HostRegion> AllocAligned(uint64_t bytes, uint64_t align);
  /**
   * Returns a block from AllocContiguous or AllocAligned. Its pages are given back to the
   * operating system: they cost nothing and read as zero again. A device write into it is
   * refused from now on (Access::kFreed).
   */
  void Free(const HostRegion& block);

  /**
   * Bytes of real memory the allocated blocks hold: the pages the kernel has materialised in
   * them, written (or, rarely, only read: a read of a never-written page maps the kernel's
   * shared zero page, which costs no memory but is counted). Free blocks hold none, as Free
   * gives their pages back. Costs a mincore() over the allocated blocks, walking only the
   * page tables that exist, so call it every so many events, not per access.
   */
  uint64_t TouchedBytes() const;

  /**
   * The contents of [addr, addr + len) are no longer wanted (a process's
   * madvise(MADV_DONTNEED)): the system pages wholly inside it are given back, cost no memory
   * and read zero until written again; bytes at either end sharing a page with other data are
   * left as they are. Nothing happens outside memory.
   */
  void Discard(uint64_t addr, uint64_t len);

  /** CPU pointer for [addr, addr + len), or nullptr if any byte is outside memory. */
  uint8_t* Translate(uint64_t addr, uint64_t len);
  /**
   * The memory is about to go (its owner is being destroyed): from now on Free only keeps
   * the books, without giving pages back or clearing them, and an allocation clears its
   * block instead. Saves a madvise per block freed at the end of a run.
   */
  void StopClearingOnFree() { clear_on_free_ = false; }
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
  /**
   * A device (DMA) read. Reading freed memory is allowed: it reads zeros (its pages were
   * given back).
   */
  Access DeviceRead(uint64_t addr, uint8_t* dst, uint64_t len);

  /** The word at the start of a write that a host CPU polls: stored last. */
  static constexpr uint64_t kPolledWordBytes = 8;

  /** Called after a device write lands in a watched range: (addr, len). */
  using WatchFn = std::function<void(uint64_t addr, uint64_t len)>;
  /** Watches device writes into [addr, addr + len). Returns a handle for Unwatch. */
  int Watch(uint64_t addr, uint64_t len, WatchFn fn);
  void Unwatch(int handle);
  /**
   * Tells watchers that a device wrote [addr, addr + len). A watcher may add a watch (it hears
   * the next write on) but not remove one while it is told.
   */
  void NotifyDeviceWrite(uint64_t addr, uint64_t len);

  /**
   * A device thread of its own (the adapter's loop on another core) checks allocations while
   * the host allocates and frees: from now on the allocator's map is locked around every use.
   * Off (the default), one thread does everything and nothing is locked.
   */
  void SetDeviceThread(bool on) { device_thread_ = on; }

  /**
   * Something that keeps memory it does not use now for later (a process's pool of buffers)
   * and gives it back on request: returns true if it gave any back.
   */
  using Reclaimer = std::function<bool()>;
  /** Registers a reclaimer (run on the thread that allocates); returns its handle. */
  uint64_t AddReclaimer(Reclaimer fn);
  void RemoveReclaimer(uint64_t handle);
  /**
   * An allocation failed: asks every reclaimer to give back what it keeps. True if any did
   * (the allocation is worth trying again). Reclaimers must not add or remove reclaimers.
   */
  bool Reclaim();

  uint64_t bytes_in_use() const { return in_use_; }
  /** Total bytes of memory; real addresses are [kBaseAddr, kBaseAddr + size()). */
  uint64_t size() const { return bytes_; }

 private:
  struct WatchEntry {
    int handle;
    uint64_t addr;
    uint64_t len;
    /** Held apart so that it stays put while it runs, even if it adds a watch. */
    std::unique_ptr<WatchFn> fn;
  };
  /** Pages of [offset, offset + len) the kernel has materialised (whole system pages). */
  uint64_t ResidentPages(uint64_t offset, uint64_t len) const;
  /** Makes [offset, offset + len) read zero, giving back every whole system page in it. */
  void Zero(uint64_t offset, uint64_t len);

  uint64_t bytes_;
  /** The operating system's page size: the unit of give-back and of TouchedBytes. */
  uint64_t page_bytes_;
  /** bytes_ rounded up to whole system pages: the size of the mapping. */
  uint64_t mapped_bytes_;
  uint8_t* mem_;
  /** A lock on free_, in_use_ and allocated_end_ when SetDeviceThread is on; else none. */
  std::unique_lock<std::mutex> LockAllocator() const {
    return device_thread_ ? std::unique_lock<std::mutex>(alloc_mutex_)
                          : std::unique_lock<std::mutex>();
  }

  /** Free blocks: offset -> length. */
  std::map<uint64_t, uint64_t> free_;
  /**
   * [lo, hi): offsets IsAllocated last found between two free blocks (empty at first). An
   * allocation only shrinks free space, so the range stays allocated until the next Free, which
   * empties it; a device access inside it needs no look at free_.
   */
  mutable uint64_t allocated_lo_ = 0;
  mutable uint64_t allocated_hi_ = 0;
  /**
   * Frees so far, read without the lock: with a device thread, each thread keeps the range it
   * last found allocated (IsAllocated's thread-local cache) while this count stays the same.
   */
  std::atomic<uint64_t> frees_{0};
  /** Tells this memory from another built where it was, for those thread-local caches. */
  const uint64_t id_;
  bool device_thread_ = false;
  mutable std::mutex alloc_mutex_;
  uint64_t in_use_ = 0;
  /**
   * End of the highest block ever handed out: memory from here on has never been allocated,
   * so nothing has written it (device writes need an allocated block) and it reads zero.
   */
  uint64_t allocated_end_ = 0;
  /** False once StopClearingOnFree is called. */
  bool clear_on_free_ = true;
  /** Watches by handle, ascending (new handles are larger: Watch appends). */
  std::vector<WatchEntry> watches_;
  /** Reclaimers by handle, and the next handle. */
  std::map<uint64_t, Reclaimer> reclaimers_;
  uint64_t next_reclaimer_ = 1;
  int next_watch_ = 1;
};

}  // namespace nicsim::host
