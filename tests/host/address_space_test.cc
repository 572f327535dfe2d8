// SPDX-License-Identifier: Apache-2.0
// Host page tables: page-aligned mappings with guard gaps, scattered real pages, CPU access
// across page boundaries, unmap, remap and discard, bad input; aligned host memory allocation.
#include "host/address_space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <vector>

#include "abi/rdma.h"

namespace nicsim::hw::func {
namespace {

constexpr uint64_t k4K = uint64_t{1} << abi::kPageShift4K;
constexpr uint64_t k64K = uint64_t{1} << abi::kPageShift64K;
constexpr uint64_t k16M = uint64_t{1} << abi::kPageShift16M;

/** The real page behind each virtual page of [vaddr, vaddr + pages * page). */
std::vector<uint64_t> RealPages(const host::AddressSpace& as, uint64_t vaddr, uint64_t pages,
                                uint64_t page) {
  std::vector<uint64_t> reals;
  for (uint64_t i = 0; i < pages; ++i) {
    const auto m = as.Lookup(vaddr + i * page);
    EXPECT_TRUE(m.has_value()) << "page " << i;
    reals.push_back(m ? m->real_addr : 0);
  }
  return reals;
}

TEST(HostMemoryTest, AllocAlignedAlignsTheRealAddressAndKeepsTheSkippedGap) {
  host::HostMemory mem(1 << 20);
  Result<host::HostRegion> small = mem.AllocContiguous(100);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->real_addr, host::HostMemory::kBaseAddr);
  EXPECT_EQ(small->bytes, k4K);
  Result<host::HostRegion> big = mem.AllocAligned(k64K, k64K);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->real_addr, host::HostMemory::kBaseAddr + k64K);
  EXPECT_EQ(big->bytes, k64K);
  EXPECT_EQ(big->ptr, mem.Translate(big->real_addr, k64K));
  // The 60 KiB skipped for alignment is still free: the next 4 KiB block comes from it.
  Result<host::HostRegion> next = mem.AllocContiguous(k4K);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->real_addr, host::HostMemory::kBaseAddr + k4K);
  EXPECT_EQ(mem.bytes_in_use(), 2 * k4K + k64K);
  mem.Free(*big);
  mem.Free(*small);
  mem.Free(*next);
  EXPECT_EQ(mem.bytes_in_use(), 0u);
  EXPECT_TRUE(mem.AllocContiguous(1 << 20).ok());
}

TEST(HostMemoryTest, AllocAlignedRejectsBadAlignmentAndExhaustion) {
  host::HostMemory mem(1 << 20);
  EXPECT_EQ(mem.AllocAligned(k4K, 3 * k4K).status().message(),
            "host memory alignment 12288 is not a power of two");
  EXPECT_FALSE(mem.AllocAligned(k4K, 0).ok());
  EXPECT_FALSE(mem.AllocAligned(0, k4K).ok());
  EXPECT_NE(mem.AllocAligned(2 << 20, k4K).status().message().find("host memory exhausted"),
            std::string::npos);
  // Below 4 KiB means 4 KiB.
  Result<host::HostRegion> r = mem.AllocAligned(10, 8);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->real_addr % k4K, 0u);
  EXPECT_EQ(mem.bytes_in_use(), k4K);
}

TEST(AddressSpaceTest, MapsWholePagesAtFreshAlignedAddressesWithAGuardPage) {
  host::HostMemory mem(1 << 20);
  host::AddressSpace as(mem, 1);
  Result<uint64_t> a = as.Map(10000, abi::kPageShift4K);  // 3 pages
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(*a, host::AddressSpace::kBaseVaddr);
  EXPECT_EQ(mem.bytes_in_use(), 3 * k4K);
  for (uint64_t off : {uint64_t{0}, k4K + 17, 3 * k4K - 1}) {
    const auto m = as.Lookup(*a + off);
    ASSERT_TRUE(m.has_value()) << off;
    EXPECT_EQ(m->page_shift, abi::kPageShift4K);
    EXPECT_EQ(m->real_addr % k4K, 0u);
  }
  EXPECT_FALSE(as.Lookup(*a + 3 * k4K).has_value());  // the guard page
  EXPECT_FALSE(as.Lookup(*a - 1).has_value());
  Result<uint64_t> b = as.Map(k64K, abi::kPageShift64K);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b % k64K, 0u);
  EXPECT_GE(*b, *a + 4 * k4K);
  EXPECT_EQ(as.Lookup(*b)->page_shift, abi::kPageShift64K);
  EXPECT_EQ(as.Lookup(*b)->real_addr % k64K, 0u);
  Result<uint64_t> c = as.Map(1, abi::kPageShift4K);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, *b + 2 * k64K);
}

TEST(AddressSpaceTest, SixteenMegabytePagesAreAlignedToTheirSize) {
  host::HostMemory mem(64 << 20);
  host::AddressSpace as(mem, 1);
  ASSERT_TRUE(as.Map(k4K, abi::kPageShift4K).ok());
  Result<uint64_t> v = as.Map(2 * k16M, abi::kPageShift16M);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(*v % k16M, 0u);
  const std::vector<uint64_t> reals = RealPages(as, *v, 2, k16M);
  for (uint64_t r : reals) EXPECT_EQ(r % k16M, 0u);
  EXPECT_NE(reals[0], reals[1]);
  EXPECT_EQ(as.Lookup(*v + k16M + 5)->real_addr, reals[1]);
}

TEST(AddressSpaceTest, BacksAVirtuallyContiguousBufferWithScatteredRealPages) {
  host::HostMemory mem(1 << 20);
  host::AddressSpace as(mem, 7);
  constexpr uint64_t kPages = 16;
  Result<uint64_t> v = as.Map(kPages * k4K, abi::kPageShift4K);
  ASSERT_TRUE(v.ok());
  const std::vector<uint64_t> reals = RealPages(as, *v, kPages, k4K);
  EXPECT_EQ(std::set<uint64_t>(reals.begin(), reals.end()).size(), kPages);
  // No virtual page is followed by the real page right after its own.
  for (uint64_t i = 1; i < kPages; ++i) EXPECT_NE(reals[i], reals[i - 1] + k4K) << i;
  EXPECT_FALSE(std::is_sorted(reals.begin(), reals.end()));
  EXPECT_FALSE(std::is_sorted(reals.rbegin(), reals.rend()));
  // Two pages can only be scattered one way: backwards.
  Result<uint64_t> two = as.Map(2 * k4K, abi::kPageShift4K);
  ASSERT_TRUE(two.ok());
  const std::vector<uint64_t> pair = RealPages(as, *two, 2, k4K);
  EXPECT_EQ(pair[0], pair[1] + k4K);
}

TEST(AddressSpaceTest, TheSeedDecidesThePageOrder) {
  host::HostMemory m1(1 << 20), m2(1 << 20), m3(1 << 20);
  host::AddressSpace a1(m1, 5), a2(m2, 5), a3(m3, 6);
  const uint64_t v1 = *a1.Map(32 * k4K, abi::kPageShift4K);
  const uint64_t v2 = *a2.Map(32 * k4K, abi::kPageShift4K);
  const uint64_t v3 = *a3.Map(32 * k4K, abi::kPageShift4K);
  EXPECT_EQ(RealPages(a1, v1, 32, k4K), RealPages(a2, v2, 32, k4K));
  EXPECT_NE(RealPages(a1, v1, 32, k4K), RealPages(a3, v3, 32, k4K));
}

TEST(AddressSpaceTest, CpuAccessCrossesPagesThroughTheirRealAddresses) {
  host::HostMemory mem(1 << 20);
  host::AddressSpace as(mem, 3);
  const uint64_t v = *as.Map(4 * k4K, abi::kPageShift4K);
  std::vector<uint8_t> data(2 * k4K + 100);
  std::iota(data.begin(), data.end(), uint8_t{1});
  const uint64_t start = v + k4K - 50;  // pages 0..3
  ASSERT_TRUE(as.Write(start, data.data(), data.size()));
  std::vector<uint8_t> back(data.size());
  ASSERT_TRUE(as.Read(start, back.data(), back.size()));
  EXPECT_EQ(back, data);
  // Each byte sits in the real page Lookup names.
  for (uint64_t i : {uint64_t{0}, uint64_t{49}, uint64_t{50}, k4K + 50, data.size() - 1}) {
    const uint64_t va = start + i;
    const uint64_t real = as.Lookup(va)->real_addr + va % k4K;
    EXPECT_EQ(*mem.Translate(real, 1), data[i]) << i;
  }
}

TEST(AddressSpaceTest, ReadAppendAddsTheBytesAcrossScatteredPagesAfterWhatIsThere) {
  host::HostMemory mem(1 << 20);
  host::AddressSpace as(mem, 3);
  const uint64_t v = *as.Map(4 * k4K, abi::kPageShift4K);
  std::vector<uint8_t> data(2 * k4K + 100);
  std::iota(data.begin(), data.end(), uint8_t{7});
  const uint64_t start = v + k4K - 50;
  ASSERT_TRUE(as.Write(start, data.data(), data.size()));
  std::vector<uint8_t> out = {0xEE, 0xFF};
  ASSERT_TRUE(as.ReadAppend(start, data.size(), out));
  ASSERT_EQ(out.size(), data.size() + 2);
  EXPECT_EQ(out[0], 0xEE);
  EXPECT_EQ(out[1], 0xFF);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), out.begin() + 2));
  // Running into the guard page: false, and as many zero bytes as were asked for.
  std::vector<uint8_t> short_read = {0x11};
  EXPECT_FALSE(as.ReadAppend(v + 4 * k4K - 8, 16, short_read));
  EXPECT_EQ(short_read,
            (std::vector<uint8_t>{0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  std::vector<uint8_t> none;
  EXPECT_TRUE(as.ReadAppend(v, 0, none));
  EXPECT_TRUE(none.empty());
}

TEST(AddressSpaceTest, AccessTouchingAnUnmappedByteFailsAndWritesNothing) {
  host::HostMemory mem(1 << 20);
  host::AddressSpace as(mem, 3);
  const uint64_t v = *as.Map(k4K, abi::kPageShift4K);
  const std::vector<uint8_t> data(16, 0xAB);
  EXPECT_FALSE(as.Write(v + k4K - 8, data.data(), data.size()));  // runs into the guard page
  uint8_t byte = 1;
  ASSERT_TRUE(as.Read(v + k4K - 8, &byte, 1));
  EXPECT_EQ(byte, 0);
  std::vector<uint8_t> out(16);
  EXPECT_FALSE(as.Read(v + k4K - 8, out.data(), out.size()));
  EXPECT_FALSE(as.Read(v - 1, out.data(), 1));
  EXPECT_FALSE(as.Write(~uint64_t{0} - 3, data.data(), data.size()));
  EXPECT_TRUE(as.Write(v, data.data(), 0));
}

TEST(AddressSpaceTest, UnmapFreesTheRealPages) {
  host::HostMemory mem(1 << 20);
  host::AddressSpace as(mem, 3);
  const uint64_t v = *as.Map(5 * k4K, abi::kPageShift4K);
  const uint64_t w = *as.Map(k4K, abi::kPageShift4K);
  const uint64_t real = as.Lookup(v)->real_addr;
  ASSERT_TRUE(as.Unmap(v).ok());
  EXPECT_EQ(mem.bytes_in_use(), k4K);
  EXPECT_FALSE(mem.IsAllocated(real, k4K));
  EXPECT_FALSE(as.Lookup(v).has_value());
  EXPECT_TRUE(as.Lookup(w).has_value());
  EXPECT_EQ(as.Unmap(v).message(), "unmap: no mapping starts at 0x700000000000");
  EXPECT_FALSE(as.Unmap(w + 8).ok());
  // Virtual addresses are never reused.
  EXPECT_GT(*as.Map(k4K, abi::kPageShift4K), w);
}

TEST(AddressSpaceTest, DiscardClearsTheWholeRealPagesOfAVirtualRange) {
  host::HostMemory mem(4 << 20);
  host::AddressSpace as(mem, 5);
  const uint64_t v = *as.Map(4 * k4K, abi::kPageShift4K);
  std::vector<uint8_t> ones(4 * k4K, 1);
  ASSERT_TRUE(as.Write(v, ones.data(), ones.size()));
  // Pages 1 and 2 whole, page 0's last byte and page 3's first: the scattered real pages
  // behind the two whole ones read zero, the bytes at the ends keep their value.
  as.Discard(v + k4K - 1, 2 * k4K + 2);
  std::vector<uint8_t> back(4 * k4K);
  ASSERT_TRUE(as.Read(v, back.data(), back.size()));
  EXPECT_EQ(std::count(back.begin(), back.end(), 0), static_cast<long>(2 * k4K));
  EXPECT_EQ(back[k4K - 1], 1);
  EXPECT_EQ(back[3 * k4K], 1);
  // Past the end of the mapping (its guard page) it stops.
  as.Discard(v + 3 * k4K, 2 * k4K);
  ASSERT_TRUE(as.Read(v + 3 * k4K, back.data(), k4K));
  EXPECT_EQ(std::count(back.begin(), back.begin() + k4K, 0), static_cast<long>(k4K));
}

TEST(AddressSpaceTest, RemapPutsNewRealPagesBehindTheSameAddresses) {
  host::HostMemory mem(1 << 20);
  host::AddressSpace as(mem, 3);
  const uint64_t v = *as.Map(4 * k4K, abi::kPageShift4K);
  const uint32_t word = 0xFEEDF00D;
  ASSERT_TRUE(as.Write(v + 8, &word, sizeof(word)));
  const std::vector<uint64_t> before = RealPages(as, v, 4, k4K);
  ASSERT_TRUE(as.Remap(v).ok());
  const std::vector<uint64_t> after = RealPages(as, v, 4, k4K);
  for (uint64_t r : after) {
    EXPECT_EQ(std::count(before.begin(), before.end(), r), 0) << r;
    EXPECT_TRUE(mem.IsAllocated(r, k4K));
  }
  for (uint64_t r : before) EXPECT_FALSE(mem.IsAllocated(r, k4K));
  EXPECT_EQ(mem.bytes_in_use(), 4 * k4K);
  uint32_t read = 1;
  ASSERT_TRUE(as.Read(v + 8, &read, sizeof(read)));
  EXPECT_EQ(read, 0u);  // nothing is copied
  EXPECT_FALSE(as.Remap(v + k4K).ok());
}

TEST(AddressSpaceTest, RejectsBadInput) {
  host::HostMemory mem(1 << 20);
  host::AddressSpace as(mem, 3);
  EXPECT_EQ(as.Map(k4K, 13).status().message(),
            "map: page shift 13 is not 12 (4 KiB), 16 (64 KiB) or 24 (16 MiB)");
  EXPECT_EQ(as.Map(0, abi::kPageShift4K).status().message(), "map: cannot map 0 bytes");
  EXPECT_FALSE(as.Map(~uint64_t{0}, abi::kPageShift4K).ok());
  EXPECT_FALSE(as.Map(k16M, abi::kPageShift16M).ok());  // more than the node has
  // Memory that runs out half way leaves nothing allocated.
  EXPECT_TRUE(as.Map(200 * k4K, abi::kPageShift4K).ok());
  EXPECT_NE(as.Map(100 * k4K, abi::kPageShift4K).status().message().find("exhausted"),
            std::string::npos);
  EXPECT_EQ(mem.bytes_in_use(), 200 * k4K);
  EXPECT_EQ(as.Remap(0x1234).message(), "remap: no mapping starts at 0x1234");
}

}  // namespace
}  // namespace nicsim::hw::func
