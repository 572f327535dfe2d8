// SPDX-License-Identifier: Apache-2.0
// Node and rank state laid out one object after another: a region that hands out memory by
// moving a pointer, and the scope in which a thread's `new` takes memory from it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace nicsim::base {

/**
 * A reserved range of address space handed out front to back; a block is never reused on its
 * own, but once every block handed out has been given back the region starts again from its
 * front. Pages cost nothing until written. Thread-safe: each thread takes a chunk of
 * kChunkBytes at a time (under a lock) and hands out its blocks from it, so the blocks one
 * thread allocates in a row lie together even while another thread allocates too (a run
 * split over threads builds a cluster on each).
 */
class PackedRegion {
 public:
  /** Reserves `bytes` of address space (not memory); an empty region if the system refuses. */
  explicit PackedRegion(size_t bytes);
  ~PackedRegion();
  PackedRegion(const PackedRegion&) = delete;
  PackedRegion& operator=(const PackedRegion&) = delete;

  /** What a thread takes of the region at a time (less if less is left, more for a block). */
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  /**
   * `bytes` aligned to `align` (a power of two), right after the last block this thread had
   * from the region (in a new chunk if it does not fit in the thread's); null when full.
   */
  void* Allocate(size_t bytes, size_t align);
  /** True if `p` lies in the region (a block it handed out). */
  bool Owns(const void* p) const {
    const auto at = reinterpret_cast<uintptr_t>(p);
    return at - begin_ < size_;
  }
  /** A block of this region is given back. */
  void Release();

  /** Bytes from the front to the end of the last chunk a thread took. */
  size_t used() const;
  /** Blocks handed out and not given back. */
  size_t live() const { return live_.load(); }

 private:
  /** A thread's chunk: where its next block goes, while region `region`'s epoch is `epoch`. */
  struct Chunk {
    uint64_t region = 0;
    uint64_t epoch = 0;
    uintptr_t next = 0;
    uintptr_t end = 0;
  };
  static thread_local Chunk chunk_;

  /** Takes a new chunk for this thread that holds `bytes` at `align`; false when full. */
  bool TakeChunk(size_t bytes, size_t align);

  /** Never 0 and never another region's, also one built where a destroyed one was. */
  const uint64_t id_;
  uintptr_t begin_ = 0;
  size_t size_ = 0;
  /** Guards used_ and the start over: chunks are taken rarely. */
  mutable std::mutex mutex_;
  size_t used_ = 0;
  std::atomic<size_t> live_{0};
  /** Moves on when the region may start over: every thread's chunk is then stale. */
  std::atomic<uint64_t> epoch_{0};
};

/**
 * While one exists, the thread's `operator new` takes memory from the process's packed
 * region, where the executable replaces `operator new` to do so (app/packed_new.cc, the
 * nicsim executable); elsewhere (tests, libraries) it changes nothing. Cluster and MpiJob
 * build each node and rank inside one, so the objects one node's events touch lie next to
 * each other instead of among every other node's objects of the same size. Nests.
 */
class PackNodeState {
 public:
  PackNodeState() { ++depth_; }
  ~PackNodeState() { --depth_; }
  PackNodeState(const PackNodeState&) = delete;
  PackNodeState& operator=(const PackNodeState&) = delete;

  /** True on this thread while a PackNodeState exists on it. */
  static bool active() { return depth_ > 0; }

 private:
  static thread_local int depth_;
};

}  // namespace nicsim::base
