// SPDX-License-Identifier: Apache-2.0
// Ring prefaulting: each group is materialised once, as the walk first reaches it, never
// beyond the group reached; the bytes stay as they were; and a page it materialised takes no
// fault when it is then read and written (where a poll's read would have mapped the zero page
// and the first write faulted again).
#include "host/prefault.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>

#include "host/host_memory.h"

namespace nicsim::host {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kGroup = RingPrefault::kGroupBytes;

class RingPrefaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (sysconf(_SC_PAGESIZE) != static_cast<long>(kPage)) {
      GTEST_SKIP() << "the system page is not 4 KiB";
    }
    // The kernel must know MADV_POPULATE_WRITE (Linux 5.14); without it prefaulting is a no-op.
    void* probe = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(probe, MAP_FAILED);
    const bool supported = PrefaultForWrite(static_cast<const uint8_t*>(probe), kPage);
    munmap(probe, kPage);
    if (!supported) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE";
  }
};

long MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

TEST_F(RingPrefaultTest, MaterialisesEachGroupOnceAsTheWalkReachesIt) {
  HostMemory mem(uint64_t{1} << 20);
  // A ring of four and a half groups.
  const uint64_t ring_bytes = 4 * kGroup + kGroup / 2;
  Result<HostRegion> ring = mem.AllocContiguous(ring_bytes);
  ASSERT_TRUE(ring.ok());
  ASSERT_EQ(mem.TouchedBytes(), 0u);

  RingPrefault prefault(ring->ptr, ring_bytes);
  EXPECT_EQ(mem.TouchedBytes(), kGroup);  // the first group, where the walk starts
  prefault.Reach(kGroup - 1);
  EXPECT_EQ(mem.TouchedBytes(), kGroup);
  prefault.Reach(kGroup);
  EXPECT_EQ(mem.TouchedBytes(), 2 * kGroup);
  prefault.Reach(3 * kGroup + 5);  // a jump: everything up to the group reached
  EXPECT_EQ(mem.TouchedBytes(), 4 * kGroup);
  prefault.Reach(4 * kGroup);  // the last, partial group
  EXPECT_EQ(mem.TouchedBytes(), ring_bytes);
  prefault.Reach(0);  // the second pass: nothing more
  EXPECT_EQ(mem.TouchedBytes(), ring_bytes);
}

TEST_F(RingPrefaultTest, KeepsTheBytesAndSparesTheFaultsOfAPollThenAWrite) {
  HostMemory mem(uint64_t{1} << 20);
  const uint64_t ring_bytes = 2 * kGroup;
  Result<HostRegion> ring = mem.AllocContiguous(ring_bytes);
  ASSERT_TRUE(ring.ok());
  ring->ptr[kGroup + 100] = 0x5a;  // a device write ahead of the walk
  RingPrefault prefault(ring->ptr, ring_bytes);
  prefault.Reach(kGroup);
  EXPECT_EQ(ring->ptr[kGroup + 100], 0x5a);
  EXPECT_EQ(ring->ptr[kGroup + 101], 0);

  volatile uint8_t* bytes = ring->ptr;
  uint32_t seen = 0;
  const long before = MinorFaults();
  for (uint64_t at = 0; at < ring_bytes; at += kPage) {
    seen += bytes[at];  // the poll
    bytes[at] = 1;      // the write that follows it
  }
  const long faults = MinorFaults() - before;
  EXPECT_EQ(faults, 0);
  EXPECT_EQ(seen, 0u);
}

}  // namespace
}  // namespace nicsim::host
