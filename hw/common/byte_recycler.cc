// SPDX-License-Identifier: Apache-2.0
// Per-thread pool: a simulation runs on one thread at a time, and a buffer freed on another
// thread simply joins that thread's pool.
#include "hw/common/byte_recycler.h"

#include <utility>

namespace nicsim::hw {
namespace {
/** Buffers kept per thread, and the largest capacity worth keeping (a frame is ~2 KiB). */
constexpr size_t kMaxPooled = 1024;
constexpr size_t kMaxPooledCapacity = 16 * 1024;
thread_local std::vector<std::vector<uint8_t>> pool;
}  // namespace

std::vector<uint8_t> RecycledBytes(size_t size) {
  if (pool.empty()) return std::vector<uint8_t>(size);
  std::vector<uint8_t> bytes = std::move(pool.back());
  pool.pop_back();
  bytes.resize(size);
  return bytes;
}

void Recycle(std::vector<uint8_t>&& bytes) {
  if (pool.size() >= kMaxPooled || bytes.capacity() > kMaxPooledCapacity ||
      bytes.capacity() == 0) {
    std::vector<uint8_t>().swap(bytes);
    return;
  }
  pool.push_back(std::move(bytes));
}

}  // namespace nicsim::hw
