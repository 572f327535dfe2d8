// SPDX-License-Identifier: Apache-2.0
// A bounded lock-free ring between exactly one producer thread and one consumer thread: the
// doorbell path from a host CPU to an adapter's poll loop running on a core of its own.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace nicsim::hw {

/**
 * Single-producer, single-consumer ring of trivially copyable values. Push from one thread,
 * Pop from one other thread; neither ever blocks or takes a lock.
 *
 * The producer owns `tail_`, the consumer `head_`; each publishes its index with a release
 * store and reads the other's with an acquire load, so a popped slot's contents are exactly
 * what was pushed. Each side also keeps the last index it read of the other side's and
 * re-reads the shared one only when that copy says full (producer) or empty (consumer): in
 * steady streaming the two cores share a cache line once per lap, not once per value.
 */
template <typename T>
class SpscRing {
  static_assert(std::is_trivially_copyable_v<T>, "ring slots are copied bytewise");

 public:
  /** A ring holding `capacity` values, rounded up to a power of two (at least 2). */
  explicit SpscRing(uint32_t capacity) : slots_(RoundUp(capacity)), mask_(slots_.size() - 1) {}
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  /** Producer: appends `value`; false (nothing written) if the ring is full. */
  bool TryPush(const T& value) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - producer_.head_seen == slots_.size()) {
      producer_.head_seen = head_.load(std::memory_order_acquire);
      if (tail - producer_.head_seen == slots_.size()) return false;
    }
    slots_[tail & mask_] = value;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

  /** Consumer: takes the oldest value into `*value`; false if the ring is empty. */
  bool TryPop(T* value) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == consumer_.tail_seen) {
      consumer_.tail_seen = tail_.load(std::memory_order_acquire);
      if (head == consumer_.tail_seen) return false;
    }
    *value = slots_[head & mask_];
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  /** Values in the ring as some moment saw it (exact only when neither side is running). */
  uint64_t size() const {
    return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_acquire);
  }
  uint64_t capacity() const { return slots_.size(); }

 private:
  static constexpr size_t kLine = 64;
  static size_t RoundUp(uint32_t n) {
    size_t c = 2;
    while (c < n) c <<= 1;
    return c;
  }

  std::vector<T> slots_;
  const uint64_t mask_;
  /** Written by the consumer: the next slot to pop. */
  alignas(kLine) std::atomic<uint64_t> head_{0};
  /** The consumer's own: its last reading of tail_. */
  struct alignas(kLine) {
    uint64_t tail_seen = 0;
  } consumer_;
  /** Written by the producer: the next slot to fill. */
  alignas(kLine) std::atomic<uint64_t> tail_{0};
  /** The producer's own: its last reading of head_. */
  struct alignas(kLine) {
    uint64_t head_seen = 0;
  } producer_;
};

}  // namespace nicsim::hw
