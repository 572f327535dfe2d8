// SPDX-License-Identifier: Apache-2.0
// RingedDeviceAccess: direct calls before the ring starts; posted writes that land only when
// the adapter side serves them, in order; reads answered across threads after the writes
// before them; interrupts counted while ringed; host timers on the host's own queue.
#include "hw/func/ringed_device_access.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

namespace nicsim::hw::func {
namespace {

/** A device that records the MMIO it receives; a read returns 1000 + the writes so far. */
class RecordingDevice final : public driver::DeviceAccess {
 public:
  uint16_t AdapterId() const override { return 7; }
  uint32_t CacheLineBytes() const override { return 128; }
  void MmioWrite(uint64_t offset, uint64_t value) override { writes.emplace_back(offset, value); }
  uint64_t MmioRead(uint64_t offset) override {
    reads.push_back(offset);
    return 1000 + writes.size();
  }
  Result<host::HostRegion> AllocContiguous(uint64_t) override {
    return Status::Error("no memory here");
  }
  void FreeContiguous(const host::HostRegion&) override {}
  void SetInterruptHandler(InterruptHandler h) override { handler = std::move(h); }
  void HostTimer(uint64_t, std::function<void()> fn) override { timers.push_back(std::move(fn)); }

  /** Raises an interrupt the way the adapter would. */
  void Interrupt() {
    if (handler) handler(3, {});
  }

  std::vector<std::pair<uint64_t, uint64_t>> writes;
  std::vector<uint64_t> reads;
  std::vector<std::function<void()>> timers;
  InterruptHandler handler;
};

class RingedDeviceAccessTest : public ::testing::Test {
 protected:
  RecordingDevice device_;
  kernel::EventQueue host_events_;
  RingedDeviceAccess access_{device_, host_events_, 8};
};

TEST_F(RingedDeviceAccessTest, CallsTheDeviceDirectlyUntilTheRingStarts) {
  access_.MmioWrite(0x10, 1);
  EXPECT_EQ(access_.MmioRead(0x20), 1001u);
  EXPECT_EQ(device_.writes.size(), 1u);
  access_.HostTimer(5, [] {});
  EXPECT_EQ(device_.timers.size(), 1u);
  EXPECT_EQ(access_.AdapterId(), 7);
  EXPECT_EQ(access_.commands_sent(), 0u);
}

TEST_F(RingedDeviceAccessTest, PostedWritesLandInOrderWhenServed) {
  access_.StartRing();
  for (uint64_t i = 0; i < 5; ++i) access_.MmioWrite(0x100 + 8 * i, i);
  EXPECT_TRUE(device_.writes.empty());  // posted: nothing reached the device yet
  EXPECT_EQ(access_.ServeCommands(2), 2u);
  EXPECT_EQ(device_.writes.size(), 2u);
  EXPECT_EQ(access_.ServeCommands(100), 3u);
  EXPECT_EQ(access_.ServeCommands(100), 0u);
  ASSERT_EQ(device_.writes.size(), 5u);
  for (uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(device_.writes[i], std::make_pair(0x100 + 8 * i, i));
  }
  EXPECT_EQ(access_.commands_sent(), 5u);
  access_.StopRing();
  access_.MmioWrite(0x200, 9);
  EXPECT_EQ(device_.writes.size(), 6u);  // direct again
}

TEST_F(RingedDeviceAccessTest, AReadIsAnsweredAfterEveryWritePostedBeforeIt) {
  access_.StartRing();
  std::atomic<bool> stop{false};
  std::thread adapter([&] {
    while (!stop.load()) access_.ServeCommands(4);
    while (access_.ServeCommands(100) > 0) {
    }
  });
  // More writes than the ring holds: the host waits for room now and then.
  for (uint64_t i = 0; i < 100; ++i) access_.MmioWrite(0x300, i);
  const uint64_t first = access_.MmioRead(0x400);
  access_.MmioWrite(0x300, 100);
  const uint64_t second = access_.MmioRead(0x408);
  stop.store(true);
  adapter.join();
  access_.StopRing();
  EXPECT_EQ(first, 1100u);
  EXPECT_EQ(second, 1101u);
  EXPECT_EQ(device_.reads, (std::vector<uint64_t>{0x400, 0x408}));
  EXPECT_EQ(access_.commands_sent(), 103u);
}

TEST_F(RingedDeviceAccessTest, CountsInterruptsWhileRingedAndRestoresTheHandler) {
  int delivered = 0;
  access_.SetInterruptHandler(
      [&](uint32_t, const std::vector<abi::InterruptEvent>&) { ++delivered; });
  device_.Interrupt();
  EXPECT_EQ(delivered, 1);
  access_.StartRing();
  device_.Interrupt();
  device_.Interrupt();
  EXPECT_EQ(delivered, 1);
  EXPECT_EQ(access_.interrupts_while_ringed(), 2u);
  access_.StopRing();
  device_.Interrupt();
  EXPECT_EQ(delivered, 2);
}

TEST_F(RingedDeviceAccessTest, HostTimersRunOnTheHostQueueWhileRinged) {
  access_.StartRing();
  bool fired = false;
  access_.HostTimer(1000, [&] { fired = true; });
  EXPECT_TRUE(device_.timers.empty());
  ASSERT_TRUE(host_events_.RunOne());
  EXPECT_TRUE(fired);
  EXPECT_EQ(host_events_.now_ps(), 1000u);
  access_.StopRing();
}

}  // namespace
}  // namespace nicsim::hw::func
