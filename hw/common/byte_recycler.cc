// SPDX-License-Identifier: Apache-2.0
// Per-thread pool: a simulation runs on one thread at a time, and a buffer freed on another
// thread simply joins that thread's pool.
#include "hw/common/byte_recycler.h"

#include <utility>

namespace nicsim::hw {
namespace {
/**
 * Two size classes, so a buffer is mostly reused for the same kind of thing (a cache line
 * of DMA, or a frame) and seldom grows (growing zero-fills the new bytes).
 */
constexpr size_t kSmallBytes = 256;
constexpr size_t kLargeBytes = 4 * 1024;
/** Buffers kept per class and thread. */
constexpr size_t kMaxPooled = 512;
// initial-exec: the pools live in the executable, so no TLS lookup call per access.
[[gnu::tls_model("initial-exec")]] thread_local std::vector<std::vector<uint8_t>> small_pool;
[[gnu::tls_model("initial-exec")]] thread_local std::vector<std::vector<uint8_t>> large_pool;

std::vector<std::vector<uint8_t>>* PoolFor(size_t bytes) {
  if (bytes <= kSmallBytes) return &small_pool;
  if (bytes <= kLargeBytes) return &large_pool;
  return nullptr;
}
}  // namespace

std::vector<uint8_t> RecycledBytes(size_t size) {
  std::vector<std::vector<uint8_t>>* pool = PoolFor(size);
  if (pool == nullptr) return std::vector<uint8_t>(size);
  if (pool->empty()) {
    // A new buffer gets its class's full capacity, so reuse never reallocates.
    std::vector<uint8_t> bytes;
    bytes.reserve(pool == &small_pool ? kSmallBytes : kLargeBytes);
    bytes.resize(size);
    return bytes;
  }
  std::vector<uint8_t> bytes = std::move(pool->back());
  pool->pop_back();
  bytes.resize(size);
  return bytes;
}

void Recycle(std::vector<uint8_t>&& bytes) {
  std::vector<std::vector<uint8_t>>* pool = bytes.capacity() == 0 ? nullptr : PoolFor(bytes.capacity());
  if (pool == nullptr || pool->size() >= kMaxPooled) {
    std::vector<uint8_t>().swap(bytes);
    return;
  }
  pool->push_back(std::move(bytes));
}

}  // namespace nicsim::hw
