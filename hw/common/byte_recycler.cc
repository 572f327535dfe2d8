// SPDX-License-Identifier: Apache-2.0
// Per-thread pools: a simulation runs on one thread at a time, and a buffer freed on another
// thread simply joins that thread's pool.
#include "hw/common/byte_recycler.h"

#include <utility>

namespace nicsim::hw {
namespace {
/**
 * Two size classes, so a buffer is mostly reused for the same kind of thing (a cache line
 * of DMA, or a frame). Every pooled buffer has its class's full capacity, so reuse never
 * reallocates.
 */
constexpr size_t kSmallBytes = 256;
constexpr size_t kLargeBytes = 4 * 1024;
/** Buffers kept per pool and thread. */
constexpr size_t kMaxPooled = 512;

struct Pools {
  std::vector<std::vector<uint8_t>> small;
  std::vector<std::vector<uint8_t>> large;
  /** The pool for `bytes`, and its class size; nullptr when too large to pool. */
  std::vector<std::vector<uint8_t>>* For(size_t bytes, size_t* class_bytes) {
    if (bytes <= kSmallBytes) {
      *class_bytes = kSmallBytes;
      return &small;
    }
    if (bytes <= kLargeBytes) {
      *class_bytes = kLargeBytes;
      return &large;
    }
    return nullptr;
  }
};
// initial-exec: the pools live in the executable, so no TLS lookup call per access.
/** Exact-size buffers (frames): reuse shrinks or grows them within their capacity. */
[[gnu::tls_model("initial-exec")]] thread_local Pools exact_pools;
/** Staging buffers: size == capacity always, so reuse never zero-fills. */
[[gnu::tls_model("initial-exec")]] thread_local Pools staging_pools;

std::vector<uint8_t> Take(Pools& pools, size_t size, bool exact) {
  size_t class_bytes = 0;
  std::vector<std::vector<uint8_t>>* pool = pools.For(size, &class_bytes);
  if (pool == nullptr) return std::vector<uint8_t>(size);
  if (pool->empty()) {
    std::vector<uint8_t> bytes;
    bytes.reserve(class_bytes);
    bytes.resize(exact ? size : class_bytes);
    return bytes;
  }
  std::vector<uint8_t> bytes = std::move(pool->back());
  pool->pop_back();
  if (exact) bytes.resize(size);
  return bytes;
}

void Give(Pools& pools, std::vector<uint8_t>&& bytes) {
  size_t class_bytes = 0;
  std::vector<std::vector<uint8_t>>* pool = pools.For(bytes.capacity(), &class_bytes);
  if (pool == nullptr || bytes.capacity() != class_bytes || pool->size() >= kMaxPooled) {
    std::vector<uint8_t>().swap(bytes);
    return;
  }
  pool->push_back(std::move(bytes));
}
}  // namespace

std::vector<uint8_t> RecycledBytes(size_t size) { return Take(exact_pools, size, true); }

void Recycle(std::vector<uint8_t>&& bytes) { Give(exact_pools, std::move(bytes)); }

std::vector<uint8_t> RecycledStaging(size_t size) { return Take(staging_pools, size, false); }

void RecycleStaging(std::vector<uint8_t>&& bytes) {
  if (bytes.size() != bytes.capacity()) {  // not a staging buffer: keep the invariant
    std::vector<uint8_t>().swap(bytes);
    return;
  }
  Give(staging_pools, std::move(bytes));
}

}  // namespace nicsim::hw
