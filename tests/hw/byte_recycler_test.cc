// SPDX-License-Identifier: Apache-2.0
// The hot path's buffer recycler: exact-size buffers for frames, whole-capacity staging
// buffers for DMA, each reused from its own pool.
#include "hw/common/byte_recycler.h"

#include <gtest/gtest.h>

#include <vector>

namespace nicsim::hw {
namespace {

TEST(ByteRecyclerTest, ExactBuffersHaveTheAskedSizeAndAreReused) {
  std::vector<uint8_t> a = RecycledBytes(1072);
  EXPECT_EQ(a.size(), 1072u);
  const uint8_t* storage = a.data();
  Recycle(std::move(a));
  std::vector<uint8_t> b = RecycledBytes(1000);  // same size class: the same storage
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_EQ(b.data(), storage);
  Recycle(std::move(b));
}

TEST(ByteRecyclerTest, StagingBuffersAreWholeCapacityAndNeverGrowOnReuse) {
  std::vector<uint8_t> s = RecycledStaging(100);
  EXPECT_GE(s.size(), 100u);
  EXPECT_EQ(s.size(), s.capacity());
  const uint8_t* storage = s.data();
  RecycleStaging(std::move(s));
  std::vector<uint8_t> t = RecycledStaging(200);
  EXPECT_EQ(t.data(), storage);
  EXPECT_EQ(t.size(), t.capacity());
  RecycleStaging(std::move(t));
  // A large request comes from the large class, with room for a frame.
  std::vector<uint8_t> big = RecycledStaging(2100);
  EXPECT_GE(big.size(), 2100u);
  RecycleStaging(std::move(big));
}

TEST(ByteRecyclerTest, OversizedAndForeignBuffersAreFreedNotPooled) {
  std::vector<uint8_t> huge = RecycledBytes(64 * 1024);  // beyond every class
  EXPECT_EQ(huge.size(), 64u * 1024u);
  Recycle(std::move(huge));
  std::vector<uint8_t> foreign(300);  // capacity 300 is no class size
  ASSERT_EQ(foreign.capacity(), 300u);
  Recycle(std::move(foreign));
  std::vector<uint8_t> next = RecycledBytes(300);
  EXPECT_NE(next.capacity(), 300u);  // not the foreign buffer: a pooled one has a class size
  EXPECT_EQ(next.size(), 300u);
}

}  // namespace
}  // namespace nicsim::hw
