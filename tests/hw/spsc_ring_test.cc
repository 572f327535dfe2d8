// SPDX-License-Identifier: Apache-2.0
// SpscRing: order, full and empty on one thread; a million values across two threads arrive
// once each, in order.
#include "hw/common/spsc_ring.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>

namespace nicsim::hw {
namespace {

TEST(SpscRingTest, RoundsTheCapacityUpToAPowerOfTwo) {
  EXPECT_EQ(SpscRing<int>(0).capacity(), 2u);
  EXPECT_EQ(SpscRing<int>(5).capacity(), 8u);
  EXPECT_EQ(SpscRing<int>(1024).capacity(), 1024u);
}

TEST(SpscRingTest, PopsInPushOrderAndRefusesWhenFullOrEmpty) {
  SpscRing<uint32_t> ring(4);
  uint32_t v = 0;
  EXPECT_FALSE(ring.TryPop(&v));
  for (uint32_t i = 0; i < 4; ++i) EXPECT_TRUE(ring.TryPush(i));
  EXPECT_FALSE(ring.TryPush(99));
  EXPECT_EQ(ring.size(), 4u);
  ASSERT_TRUE(ring.TryPop(&v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(ring.TryPush(4));  // the freed slot is reused
  for (uint32_t want = 1; want <= 4; ++want) {
    ASSERT_TRUE(ring.TryPop(&v));
    EXPECT_EQ(v, want);
  }
  EXPECT_FALSE(ring.TryPop(&v));
  EXPECT_EQ(ring.size(), 0u);
}

TEST(SpscRingTest, WrapsAroundManyTimes) {
  SpscRing<uint64_t> ring(8);
  uint64_t next_pop = 0;
  uint64_t v = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(ring.TryPush(i));
    // Let the ring fill up to its capacity before draining most of it.
    if (ring.size() == ring.capacity()) {
      for (int k = 0; k < 5; ++k) {
        ASSERT_TRUE(ring.TryPop(&v));
        EXPECT_EQ(v, next_pop++);
      }
    }
  }
  while (ring.TryPop(&v)) EXPECT_EQ(v, next_pop++);
  EXPECT_EQ(next_pop, 1000u);
}

/** A value spread over two words: a torn copy would show as a mismatch. */
struct Pair {
  uint64_t seq;
  uint64_t check;
};

TEST(SpscRingTest, TwoThreadsPassAMillionValuesInOrder) {
  constexpr uint64_t kValues = 1'000'000;
  SpscRing<Pair> ring(64);
  std::thread producer([&] {
    for (uint64_t i = 0; i < kValues; ++i) {
      while (!ring.TryPush({i, ~i})) std::this_thread::yield();
    }
  });
  uint64_t expected = 0;
  uint64_t bad = 0;
  Pair p{};
  while (expected < kValues) {
    if (!ring.TryPop(&p)) {
      std::this_thread::yield();
      continue;
    }
    bad += p.seq != expected || p.check != ~expected;
    ++expected;
  }
  producer.join();
  EXPECT_EQ(bad, 0u);
  EXPECT_FALSE(ring.TryPop(&p));
}

}  // namespace
}  // namespace nicsim::hw
