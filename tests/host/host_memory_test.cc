// SPDX-License-Identifier: Apache-2.0
// Host memory that costs what is written: a large reservation costs nothing, never-written
// pages read zero for free, writes touch exactly their pages, Free and Discard give pages
// back, and memory handed out again is zero; a device write into freed memory is refused.
#include "host/host_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <new>
#include <thread>
#include <vector>

namespace nicsim::host {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kMiB = uint64_t{1} << 20;

/** The process's resident set in bytes (/proc/self/statm). */
uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

/** True if every byte of [p, p + len) is zero. */
bool AllZero(const uint8_t* p, uint64_t len) {
  return std::all_of(p, p + len, [](uint8_t b) { return b == 0; });
}

class HostMemoryCostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The exact page counts below are in 4 KiB pages, the unit the allocator hands out.
    if (sysconf(_SC_PAGESIZE) != static_cast<long>(kPage)) {
      GTEST_SKIP() << "the system page is not 4 KiB";
    }
  }
};

TEST_F(HostMemoryCostTest, SixtyFourGibibytesReserveAndAllocateWithoutCostingMemory) {
  const uint64_t before = ResidentBytes();
  HostMemory mem(uint64_t{64} << 30);
  EXPECT_EQ(mem.size(), uint64_t{64} << 30);
  // Allocation writes nothing either: free memory is already zero.
  Result<HostRegion> block = mem.AllocContiguous(uint64_t{1} << 30);
  ASSERT_TRUE(block.ok()) << block.status().message();
  EXPECT_EQ(mem.TouchedBytes(), 0u);
  EXPECT_LT(ResidentBytes(), before + kMiB);
}

TEST_F(HostMemoryCostTest, NeverWrittenMemoryReadsZeroWithoutCostingMemory) {
  HostMemory mem(256 * kMiB);
  Result<HostRegion> block = mem.AllocContiguous(64 * kMiB);
  ASSERT_TRUE(block.ok());
  const uint64_t before = ResidentBytes();
  EXPECT_TRUE(AllZero(block->ptr, block->bytes));
  std::vector<uint8_t> dma(kPage, 0xEE);
  EXPECT_EQ(mem.DeviceRead(block->real_addr + 32 * kMiB, dma.data(), dma.size()),
            HostMemory::Access::kOk);
  EXPECT_TRUE(AllZero(dma.data(), dma.size()));
  // 64 MiB read: the kernel's one zero page stands behind all of it.
  EXPECT_LT(ResidentBytes(), before + kMiB);
}

TEST_F(HostMemoryCostTest, WritingOneBytePerPageTouchesExactlyThosePages) {
  HostMemory mem(64 * kMiB);
  Result<HostRegion> block = mem.AllocContiguous(4 * kMiB);
  ASSERT_TRUE(block.ok());
  ASSERT_EQ(mem.TouchedBytes(), 0u);
  // Every third page by the CPU, one byte near its end.
  uint64_t written = 0;
  for (uint64_t page = 0; page < block->bytes / kPage; page += 3, ++written) {
    block->ptr[page * kPage + kPage - 1] = 1;
  }
  EXPECT_EQ(mem.TouchedBytes(), written * kPage);
  // A device write of one byte into a page not yet written touches that page too.
  const uint8_t one = 1;
  ASSERT_EQ(mem.DeviceWrite(block->real_addr + kPage, &one, 1), HostMemory::Access::kOk);
  EXPECT_EQ(mem.TouchedBytes(), (written + 1) * kPage);
  // Writing the same pages again costs nothing more.
  block->ptr[0] = 2;
  EXPECT_EQ(mem.TouchedBytes(), (written + 1) * kPage);
}

TEST_F(HostMemoryCostTest, FreeGivesThePagesBackAndTheyReadZero) {
  HostMemory mem(256 * kMiB);
  Result<HostRegion> kept = mem.AllocContiguous(kPage);
  Result<HostRegion> block = mem.AllocContiguous(64 * kMiB);
  ASSERT_TRUE(kept.ok() && block.ok());
  kept->ptr[0] = 7;
  const uint64_t before = ResidentBytes();
  std::fill(block->ptr, block->ptr + block->bytes, uint8_t{0xAB});
  EXPECT_EQ(mem.TouchedBytes(), kPage + 64 * kMiB);
  EXPECT_GE(ResidentBytes(), before + 63 * kMiB);
  const uint8_t* stale = block->ptr;
  mem.Free(*block);
  // The process holds the pages no more: they were given back, not overwritten.
  EXPECT_LT(ResidentBytes(), before + kMiB);
  EXPECT_EQ(mem.TouchedBytes(), kPage);
  // Freed memory reads zero, by a stale CPU pointer or by the device; the block kept is intact.
  EXPECT_TRUE(AllZero(stale, 64 * kMiB));
  std::vector<uint8_t> dma(kPage, 0xEE);
  EXPECT_EQ(mem.DeviceRead(block->real_addr, dma.data(), dma.size()), HostMemory::Access::kOk);
  EXPECT_TRUE(AllZero(dma.data(), dma.size()));
  EXPECT_EQ(kept->ptr[0], 7);
}

TEST_F(HostMemoryCostTest, DiscardGivesBackWholePagesOnlyAndKeepsTheBlock) {
  HostMemory mem(16 * kMiB);
  Result<HostRegion> block = mem.AllocContiguous(8 * kPage);
  ASSERT_TRUE(block.ok());
  std::fill(block->ptr, block->ptr + block->bytes, uint8_t{0x5A});
  EXPECT_EQ(mem.TouchedBytes(), 8 * kPage);
  // From the middle of page 1 to the middle of page 6: pages 2-5 go, the ends stay.
  mem.Discard(block->real_addr + kPage + 100, 5 * kPage);
  EXPECT_EQ(mem.TouchedBytes(), 4 * kPage);
  // Less than a page, or outside memory: nothing happens.
  mem.Discard(block->real_addr + 7 * kPage, kPage - 1);
  mem.Discard(HostMemory::kBaseAddr + 15 * kMiB, 2 * kMiB);
  EXPECT_EQ(mem.TouchedBytes(), 4 * kPage);
  EXPECT_TRUE(AllZero(block->ptr + 2 * kPage, 4 * kPage));
  EXPECT_EQ(block->ptr[2 * kPage - 1], 0x5A);
  EXPECT_EQ(block->ptr[6 * kPage], 0x5A);
  EXPECT_EQ(block->ptr[8 * kPage - 1], 0x5A);
  // Still allocated: the device may write it again.
  const uint8_t byte = 1;
  EXPECT_EQ(mem.DeviceWrite(block->real_addr + 3 * kPage, &byte, 1), HostMemory::Access::kOk);
}

TEST_F(HostMemoryCostTest, DeviceWriteIntoFreedMemoryIsRefusedAndWritesNothing) {
  HostMemory mem(kMiB);
  Result<HostRegion> block = mem.AllocContiguous(4 * kPage);
  ASSERT_TRUE(block.ok());
  mem.Free(*block);
  const std::vector<uint8_t> data(kPage, 0x5A);
  EXPECT_EQ(mem.CheckDeviceWrite(block->real_addr, kPage), HostMemory::Access::kFreed);
  EXPECT_EQ(mem.DeviceWrite(block->real_addr, data.data(), data.size()),
            HostMemory::Access::kFreed);
  EXPECT_TRUE(AllZero(block->ptr, block->bytes));
  EXPECT_EQ(mem.TouchedBytes(), 0u);
}

/** The checks of the test below, with the allocator locked for a device thread or not. */
void ExpectADeviceWriteRefusedOnceItsBlockIsFreed(bool device_thread) {
  HostMemory mem(kMiB);
  mem.SetDeviceThread(device_thread);
  Result<HostRegion> a = mem.AllocContiguous(2 * kPage);
  Result<HostRegion> b = mem.AllocContiguous(2 * kPage);
  Result<HostRegion> c = mem.AllocContiguous(2 * kPage);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  // Allowed first (the checker remembers the allocated run a, b, c), then freed under it.
  EXPECT_EQ(mem.CheckDeviceWrite(b->real_addr + 8, kPage), HostMemory::Access::kOk);
  EXPECT_EQ(mem.CheckDeviceWrite(a->real_addr, 6 * kPage), HostMemory::Access::kOk);
  mem.Free(*b);
  EXPECT_EQ(mem.CheckDeviceWrite(b->real_addr + 8, kPage), HostMemory::Access::kFreed);
  EXPECT_EQ(mem.CheckDeviceWrite(a->real_addr, 6 * kPage), HostMemory::Access::kFreed);
  EXPECT_EQ(mem.CheckDeviceWrite(a->real_addr, 2 * kPage), HostMemory::Access::kOk);
  EXPECT_EQ(mem.CheckDeviceWrite(c->real_addr, 2 * kPage), HostMemory::Access::kOk);
  // A range running past the end of the last block into never-allocated memory is refused.
  EXPECT_EQ(mem.CheckDeviceWrite(c->real_addr, 3 * kPage), HostMemory::Access::kFreed);
  // An empty range counts as inside a block only where a block holds its first byte: not at
  // the end of c, where free memory starts, nor anywhere in a fresh memory.
  EXPECT_TRUE(mem.IsAllocated(c->real_addr + kPage, 0));
  EXPECT_FALSE(mem.IsAllocated(c->real_addr + 2 * kPage, 0));
  EXPECT_FALSE(HostMemory(kMiB).IsAllocated(HostMemory::kBaseAddr, 0));
  // Allocated again (first fit: b's place), it is allowed again.
  Result<HostRegion> again = mem.AllocContiguous(2 * kPage);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->real_addr, b->real_addr);
  EXPECT_EQ(mem.CheckDeviceWrite(a->real_addr, 6 * kPage), HostMemory::Access::kOk);
}

TEST(HostMemoryCheckTest, ADeviceWriteIsRefusedOnceItsBlockIsFreedAfterItWasAllowed) {
  ExpectADeviceWriteRefusedOnceItsBlockIsFreed(false);
}

// With a device thread, each thread remembers the range it last found allocated (no lock):
// a Free on the host's thread must make the device thread look again.
TEST(HostMemoryCheckTest, WithADeviceThreadAFreeOnTheHostThreadEndsWhatTheDeviceRemembers) {
  ExpectADeviceWriteRefusedOnceItsBlockIsFreed(true);
  HostMemory mem(kMiB);
  mem.SetDeviceThread(true);
  Result<HostRegion> a = mem.AllocContiguous(2 * kPage);
  Result<HostRegion> b = mem.AllocContiguous(2 * kPage);
  ASSERT_TRUE(a.ok() && b.ok());
  HostMemory::Access before = HostMemory::Access::kOutOfRange;
  std::thread([&] { before = mem.CheckDeviceWrite(a->real_addr, 4 * kPage); }).join();
  EXPECT_EQ(before, HostMemory::Access::kOk);
  mem.Free(*b);
  HostMemory::Access after = HostMemory::Access::kOk;
  std::thread([&] { after = mem.CheckDeviceWrite(a->real_addr, 4 * kPage); }).join();
  EXPECT_EQ(after, HostMemory::Access::kFreed);
  // Another memory built where this one was is not taken for it.
  alignas(HostMemory) unsigned char place[sizeof(HostMemory)];
  auto* first = new (place) HostMemory(kMiB);
  first->SetDeviceThread(true);
  Result<HostRegion> block = first->AllocContiguous(4 * kPage);
  ASSERT_TRUE(block.ok());
  EXPECT_TRUE(first->IsAllocated(block->real_addr, 4 * kPage));
  first->~HostMemory();
  auto* second = new (place) HostMemory(kMiB);
  second->SetDeviceThread(true);
  EXPECT_FALSE(second->IsAllocated(HostMemory::kBaseAddr, 4 * kPage));
  second->~HostMemory();
}

TEST(HostMemoryWatchTest, OnlyWatchesOverlappingAWriteAreToldAndUnwatchStopsOne) {
  HostMemory mem(kMiB);
  std::vector<int> told;
  const int first =
      mem.Watch(HostMemory::kBaseAddr, kPage, [&](uint64_t, uint64_t) { told.push_back(1); });
  const int second = mem.Watch(HostMemory::kBaseAddr + kPage, kPage, [&](uint64_t, uint64_t) {
    told.push_back(2);
    // A watch that adds a watch while it runs: the new one hears later writes only.
    if (told.size() == 2) {
      mem.Watch(HostMemory::kBaseAddr, 2 * kPage, [&](uint64_t, uint64_t) { told.push_back(3); });
    }
  });
  mem.NotifyDeviceWrite(HostMemory::kBaseAddr + kPage - 8, 16);  // both pages
  EXPECT_EQ(told, (std::vector<int>{1, 2}));
  told.clear();
  mem.NotifyDeviceWrite(HostMemory::kBaseAddr + kPage, 8);
  EXPECT_EQ(told, (std::vector<int>{2, 3}));
  told.clear();
  mem.Unwatch(second);
  mem.Unwatch(first);
  mem.Unwatch(first);  // twice: nothing
  mem.NotifyDeviceWrite(HostMemory::kBaseAddr, 8);
  EXPECT_EQ(told, (std::vector<int>{3}));
}

TEST_F(HostMemoryCostTest, MemoryAllocatedAgainAfterFreeIsZero) {
  HostMemory mem(kMiB);
  Result<HostRegion> first = mem.AllocContiguous(16 * kPage);
  ASSERT_TRUE(first.ok());
  std::fill(first->ptr, first->ptr + first->bytes, uint8_t{0xAB});
  mem.Free(*first);
  Result<HostRegion> again = mem.AllocContiguous(16 * kPage);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->real_addr, first->real_addr) << "first fit hands out the same block";
  EXPECT_TRUE(AllZero(again->ptr, again->bytes));
  mem.Free(*again);
  // A CPU store through a stale pointer after Free (a host use-after-free) materialises a
  // page of free memory; the next allocation still gets zeros.
  again->ptr[5 * kPage + 9] = 0xCD;
  Result<HostRegion> third = mem.AllocContiguous(16 * kPage);
  ASSERT_TRUE(third.ok());
  ASSERT_EQ(third->real_addr, first->real_addr);
  EXPECT_EQ(mem.TouchedBytes(), 0u) << "the stray page was given back, not cleared in place";
  EXPECT_TRUE(AllZero(third->ptr, third->bytes));
}

TEST_F(HostMemoryCostTest, AfterStopClearingOnFreeAFreedBlockKeepsItsPagesAndComesBackZero) {
  HostMemory mem(kMiB);
  Result<HostRegion> first = mem.AllocContiguous(16 * kPage);
  ASSERT_TRUE(first.ok());
  std::fill(first->ptr, first->ptr + first->bytes, uint8_t{0xAB});
  mem.StopClearingOnFree();
  mem.Free(*first);
  // Only the books changed: the pages are still there, with their bytes.
  EXPECT_EQ(mem.bytes_in_use(), 0u);
  EXPECT_EQ(first->ptr[3 * kPage], 0xAB);
  Result<HostRegion> again = mem.AllocContiguous(16 * kPage);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->real_addr, first->real_addr);
  EXPECT_TRUE(AllZero(again->ptr, again->bytes)) << "an allocation still gets zeros";
}

}  // namespace
}  // namespace nicsim::host
