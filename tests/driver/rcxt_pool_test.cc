// SPDX-License-Identifier: Apache-2.0
// rCxt pool on a functional adapter: SRAM records, round-robin order (head alloc, tail free),
// keys from the recovery count, reserved indices, recovery and error cases.
#include "driver/rcxt_pool.h"

#include <gtest/gtest.h>

#include <string>

#include "abi/rdma.h"
#include "driver/adapter_driver.h"
#include "hw/func/func_adapter.h"
#include "hw/func/func_device_access.h"

namespace nicsim::driver {
namespace {

/** Fits the adapter's SRAM whether it is abi::kSramBytes or abi::SramBytesFor(rcxts). */
constexpr uint32_t kPool = 1000;

class RcxtPoolTest : public ::testing::Test {
 protected:
  RcxtPoolTest()
      : host_(1 << 20),
        adapter_(events_, host_, 0, 128, hw::func::AdapterTiming{}, fw::MicrocodeConfig{}),
        access_(adapter_),
        driver_(access_),
        pool_(access_, kPool, [this] { return driver_.recovery_count(); }) {
    EXPECT_TRUE(driver_.Init().ok());
  }

  /** Acquires for window 1 and returns the index (asserting success). */
  uint32_t AcquireIndex() {
    Result<uint32_t> ref = pool_.Acquire(1);
    EXPECT_TRUE(ref.ok()) << ref.status().message();
    return ref.ok() ? abi::RcxtIndex(*ref) : abi::kNoRcxt;
  }

  kernel::EventQueue events_;
  host::HostMemory host_;
  hw::func::FuncAdapter adapter_;
  hw::func::FuncDeviceAccess access_;
  AdapterDriver driver_;
  RcxtPool pool_;
};

TEST_F(RcxtPoolTest, AcquireWritesAnIdleRecordOwnedByTheWindow) {
  EXPECT_EQ(pool_.size(), kPool);
  EXPECT_EQ(pool_.free_count(), kPool);
  Result<uint32_t> ref = pool_.Acquire(5);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(*ref, abi::MakeRcxtRef(0, 0));
  EXPECT_EQ(pool_.free_count(), kPool - 1);
  const abi::RcxtRecord r = pool_.Read(0);
  EXPECT_EQ(r.state, static_cast<uint8_t>(abi::RcxtState::kIdle));
  EXPECT_EQ(r.window, 5u);
  EXPECT_EQ(r.key, 0u);
  EXPECT_EQ(r.tid, 0u);
  EXPECT_EQ(r.next, abi::kNoRcxt);
  EXPECT_EQ(r.src_pvo, 0u);
  // The record sits at RcxtAddr(0): state in byte 0, window in bytes 4-5.
  const uint64_t word0 = access_.MmioRead(abi::kMmioSramBase + abi::RcxtAddr(0));
  EXPECT_EQ(word0 & 0xFF, static_cast<uint64_t>(abi::RcxtState::kIdle));
  EXPECT_EQ((word0 >> 32) & 0xFFFF, 5u);
  const uint32_t second = abi::RcxtIndex(*pool_.Acquire(127));
  EXPECT_EQ(second, 1u);
  EXPECT_EQ(pool_.Read(1).window, 127u);
}

TEST_F(RcxtPoolTest, AllocatesFromTheHeadAndFreesToTheTail) {
  Result<uint32_t> a = pool_.Acquire(1);
  Result<uint32_t> b = pool_.Acquire(1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(abi::RcxtIndex(*a), 0u);
  EXPECT_EQ(abi::RcxtIndex(*b), 1u);
  ASSERT_TRUE(pool_.Release(*a).ok());
  EXPECT_EQ(pool_.Read(0).state, static_cast<uint8_t>(abi::RcxtState::kFree));
  EXPECT_EQ(pool_.Read(1).state, static_cast<uint8_t>(abi::RcxtState::kIdle));
  // A is at the tail: every other free rCxt comes first.
  EXPECT_EQ(AcquireIndex(), 2u);
  for (uint32_t i = 3; i < kPool; ++i) ASSERT_EQ(AcquireIndex(), i);
  EXPECT_EQ(AcquireIndex(), 0u);
  EXPECT_EQ(pool_.free_count(), 0u);
  Result<uint32_t> none = pool_.Acquire(1);
  EXPECT_EQ(none.status().message(), "acquire rCxt for window 1: all 1000 rCxts are in use");
}

TEST_F(RcxtPoolTest, KeyIsTheRecoveryCountMasked) {
  uint64_t count = 0x5007;
  RcxtPool pool(access_, 4, [&] { return count; });
  Result<uint32_t> ref = pool.Acquire(2);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(abi::RcxtKey(*ref), 0x007u);
  EXPECT_EQ(pool.Read(0).key, 0x007u);
  count = 0x123;
  ref = pool.Acquire(2);
  EXPECT_EQ(*ref, abi::MakeRcxtRef(1, 0x123));
  EXPECT_EQ(pool.Read(1).key, 0x123u);
}

TEST_F(RcxtPoolTest, RecoveryFreesEverythingAndOldReferencesGoStale) {
  const uint32_t r0 = *pool_.Acquire(1);
  const uint32_t r1 = *pool_.Acquire(1);
  const uint32_t r2 = *pool_.Acquire(1);
  ASSERT_TRUE(pool_.Release(r1).ok());  // free list: 3..999, 1
  driver_.RecoverAdapter();
  pool_.OnRecovery();
  EXPECT_EQ(pool_.free_count(), kPool);
  EXPECT_EQ(pool_.Read(0).state, static_cast<uint8_t>(abi::RcxtState::kFree));
  EXPECT_EQ(pool_.Release(r0).message(), "release rCxt 0: not held");
  // Order kept; the held ones join the tail: 3..999, 1, then 0 and 2.
  for (uint32_t i = 3; i < kPool; ++i) ASSERT_EQ(AcquireIndex(), i);
  EXPECT_EQ(AcquireIndex(), 1u);
  Result<uint32_t> again = pool_.Acquire(1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, abi::MakeRcxtRef(0, 1));  // the new recovery count is the key
  EXPECT_EQ(pool_.Read(0).key, 1u);
  EXPECT_EQ(pool_.Release(r0).message(), "release rCxt 0: stale key 0, the rCxt has key 1");
  EXPECT_EQ(pool_.Read(0).state, static_cast<uint8_t>(abi::RcxtState::kIdle));
  EXPECT_TRUE(pool_.Release(*again).ok());
  EXPECT_EQ(AcquireIndex(), 2u);
  static_cast<void>(r2);
}

TEST_F(RcxtPoolTest, AcquireIndexTakesAReservedIdOutOfTheList) {
  RcxtPool pool(access_, 4, [] { return uint64_t{3}; });
  Result<uint32_t> ref = pool.AcquireIndex(1, 9);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(*ref, abi::MakeRcxtRef(1, 3));
  EXPECT_EQ(pool.Read(1).window, 9u);
  EXPECT_EQ(pool.Read(1).state, static_cast<uint8_t>(abi::RcxtState::kIdle));
  EXPECT_EQ(pool.AcquireIndex(1, 9).status().message(), "acquire rCxt 1: not free");
  EXPECT_EQ(pool.AcquireIndex(4, 9).status().message(), "acquire rCxt 4: the pool holds 4");
  EXPECT_FALSE(pool.AcquireIndex(2, 128).ok());
  EXPECT_EQ(abi::RcxtIndex(*pool.Acquire(0)), 0u);
  EXPECT_EQ(abi::RcxtIndex(*pool.Acquire(0)), 2u);
  EXPECT_EQ(abi::RcxtIndex(*pool.Acquire(0)), 3u);
  EXPECT_FALSE(pool.Acquire(0).ok());
  ASSERT_TRUE(pool.Release(*ref).ok());
  EXPECT_EQ(pool.free_count(), 1u);
  EXPECT_EQ(abi::RcxtIndex(*pool.AcquireIndex(1, 2)), 1u);
}

TEST_F(RcxtPoolTest, AnIdTakenAheadAndReturnedComesBackAtTheTail) {
  // The never-handed-out ids are a counter, not list entries: an id taken out of turn and
  // returned before the counter reaches it must still come after every other free id.
  RcxtPool pool(access_, 4, [] { return uint64_t{0}; });
  Result<uint32_t> ahead = pool.AcquireIndex(2, 1);
  ASSERT_TRUE(ahead.ok());
  EXPECT_EQ(pool.free_count(), 3u);
  ASSERT_TRUE(pool.Release(*ahead).ok());
  EXPECT_EQ(pool.free_count(), 4u);
  EXPECT_EQ(abi::RcxtIndex(*pool.Acquire(1)), 0u);
  EXPECT_EQ(abi::RcxtIndex(*pool.Acquire(1)), 1u);
  EXPECT_EQ(abi::RcxtIndex(*pool.Acquire(1)), 3u);
  EXPECT_EQ(abi::RcxtIndex(*pool.Acquire(1)), 2u);
  EXPECT_EQ(pool.free_count(), 0u);
  EXPECT_FALSE(pool.Acquire(1).ok());
}

TEST_F(RcxtPoolTest, RefusesBadWindowsAndBadReleases) {
  EXPECT_EQ(pool_.Acquire(abi::kMaxWindows).status().message(),
            "acquire rCxt: window 128 must be below 128");
  EXPECT_EQ(pool_.free_count(), kPool);
  EXPECT_EQ(pool_.Release(abi::MakeRcxtRef(5, 0)).message(), "release rCxt 5: not held");
  EXPECT_EQ(pool_.Release(abi::MakeRcxtRef(kPool, 0)).message(), "release rCxt 1000: not held");
  EXPECT_FALSE(pool_.Release(abi::kNoRcxt).ok());
  const uint32_t ref = *pool_.Acquire(3);
  EXPECT_EQ(pool_.Release(abi::MakeRcxtRef(0, 9)).message(),
            "release rCxt 0: stale key 9, the rCxt has key 0");
  EXPECT_EQ(pool_.Read(0).state, static_cast<uint8_t>(abi::RcxtState::kIdle));
  ASSERT_TRUE(pool_.Release(ref).ok());
  EXPECT_EQ(pool_.Release(ref).message(), "release rCxt 0: not held");
  EXPECT_EQ(pool_.free_count(), kPool);
  EXPECT_EQ(pool_.Read(kPool).state, 0u);  // outside the pool reads as zeroes
}

}  // namespace
}  // namespace nicsim::driver
