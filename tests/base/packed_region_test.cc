// SPDX-License-Identifier: Apache-2.0
#include "base/packed_region.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace nicsim::base {
namespace {

uintptr_t At(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(PackedRegionTest, HandsOutBlocksOneAfterAnotherAligned) {
  PackedRegion region(1 << 20);
  void* a = region.Allocate(24, 16);
  void* b = region.Allocate(40, 16);
  void* c = region.Allocate(8, 64);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(At(b), At(a) + 32);  // 24 rounded up to the next 16
  EXPECT_EQ(At(c) % 64, 0u);
  EXPECT_GE(At(c), At(b) + 40);
  EXPECT_LT(At(c), At(b) + 40 + 64);
  EXPECT_EQ(region.live(), 3u);
  EXPECT_EQ(region.used(), At(c) + 8 - At(a));
  // The blocks are writable memory.
  std::memset(a, 0xab, 24);
  std::memset(b, 0xcd, 40);
  EXPECT_EQ(static_cast<uint8_t*>(a)[23], 0xab);
}

TEST(PackedRegionTest, OwnsExactlyItsOwnRange) {
  PackedRegion region(1 << 16);
  void* a = region.Allocate(16, 16);
  int on_stack = 0;
  EXPECT_TRUE(region.Owns(a));
  EXPECT_TRUE(region.Owns(static_cast<char*>(a) + (1 << 16) - 1));
  EXPECT_FALSE(region.Owns(static_cast<char*>(a) + (1 << 16)));
  EXPECT_FALSE(region.Owns(static_cast<char*>(a) - 1));
  EXPECT_FALSE(region.Owns(&on_stack));
  EXPECT_FALSE(region.Owns(nullptr));
}

TEST(PackedRegionTest, StartsOverOnlyOnceEveryBlockIsBack) {
  PackedRegion region(1 << 16);
  void* first = region.Allocate(100, 16);
  region.Allocate(100, 16);
  region.Release();
  EXPECT_EQ(region.live(), 1u);
  // One block still out: the next goes after both.
  EXPECT_GT(At(region.Allocate(8, 16)), At(first) + 200);
  region.Release();
  region.Release();
  EXPECT_EQ(region.live(), 0u);
  EXPECT_EQ(region.used(), 0u);
  EXPECT_EQ(region.Allocate(8, 16), first);
}

TEST(PackedRegionTest, AFullRegionSaysSoAndKeepsWhatItHandedOut) {
  PackedRegion region(4096);
  void* a = region.Allocate(4000, 16);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(region.Allocate(100, 16), nullptr);
  EXPECT_EQ(region.Allocate(SIZE_MAX - 8, 16), nullptr);
  EXPECT_EQ(region.live(), 1u);
  EXPECT_NE(region.Allocate(96, 16), nullptr);  // exactly what is left
  EXPECT_EQ(region.Allocate(1, 1), nullptr);
}

TEST(PackedRegionTest, ScopesNestAndEndOnTheirThread) {
  EXPECT_FALSE(PackNodeState::active());
  {
    PackNodeState outer;
    EXPECT_TRUE(PackNodeState::active());
    {
      PackNodeState inner;
      EXPECT_TRUE(PackNodeState::active());
    }
    EXPECT_TRUE(PackNodeState::active());
  }
  EXPECT_FALSE(PackNodeState::active());
}

}  // namespace
}  // namespace nicsim::base
