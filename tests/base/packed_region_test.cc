// SPDX-License-Identifier: Apache-2.0
#include "base/packed_region.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

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
  EXPECT_EQ(region.used(), size_t{1} << 20);  // this thread's chunk: the whole region
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

TEST(PackedRegionTest, EachThreadsBlocksLieTogetherInChunksOfItsOwn) {
  PackedRegion region(16 * PackedRegion::kChunkBytes);
  constexpr int kBlocks = 20000;  // 64 B each: more than one chunk per thread
  std::vector<uintptr_t> blocks[2];
  std::thread other([&] {
    for (int i = 0; i < kBlocks; ++i) blocks[1].push_back(At(region.Allocate(64, 16)));
  });
  for (int i = 0; i < kBlocks; ++i) blocks[0].push_back(At(region.Allocate(64, 16)));
  other.join();
  EXPECT_EQ(region.live(), 2u * kBlocks);
  std::vector<uintptr_t> all;
  for (const std::vector<uintptr_t>& mine : blocks) {
    size_t jumps = 0;
    for (size_t i = 0; i < mine.size(); ++i) {
      ASSERT_NE(mine[i], 0u);
      if (i > 0 && mine[i] != mine[i - 1] + 64) ++jumps;  // a new chunk
    }
    // Two chunks at most (the second may follow the first), not blocks among the other's.
    EXPECT_LE(jumps, 1u);
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::sort(all.begin(), all.end());
  for (size_t i = 1; i < all.size(); ++i) ASSERT_GE(all[i], all[i - 1] + 64) << "overlap";
  for (int i = 0; i < 2 * kBlocks; ++i) region.Release();
  EXPECT_EQ(region.used(), 0u);
}

TEST(PackedRegionTest, ARegionBuiltWhereAnotherWasStartsFromItsOwnFront) {
  alignas(PackedRegion) unsigned char place[sizeof(PackedRegion)];
  auto* first = new (place) PackedRegion(1 << 16);
  ASSERT_NE(first->Allocate(64, 16), nullptr);
  first->~PackedRegion();
  auto* second = new (place) PackedRegion(1 << 16);
  void* a = second->Allocate(64, 16);
  EXPECT_TRUE(second->Owns(a));
  EXPECT_EQ(second->used(), size_t{1} << 16);
  second->~PackedRegion();
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
