// SPDX-License-Identifier: Apache-2.0
// Tests for the SystemC kernel as the event queue's co-simulator: its cached answer to "when is
// SystemC's next activity" follows a processor post (ActivityAdded) and each AdvanceTo.
#include "hw/systemc/kernel.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "hw/systemc/processor.h"

namespace nicsim::hw::systemc {
namespace {

TEST(SystemcKernelTest, NextEventFollowsPostsAndAdvances) {
  Result<Kernel*> claimed = Kernel::Claim();
  if (!claimed.ok()) GTEST_SKIP() << "SystemC elaborates once per process; run this test alone";
  Kernel& kernel = **claimed;
  Processor processor("microcode0");  // elaboration: before Start
  kernel.Start(0);                     // lock-step: every post goes through the thread
  uint64_t at = 0;
  EXPECT_FALSE(kernel.NextEventPs(&at));
  EXPECT_FALSE(kernel.NextEventPs(&at));  // the cached answer, unchanged

  int ran = 0;
  processor.Post([&ran] { ++ran; }, 5'000);
  ASSERT_TRUE(kernel.NextEventPs(&at));  // the post woke the thread: activity now
  EXPECT_EQ(at, 0u);
  kernel.AdvanceTo(0);
  // The thread took the call; it starts at 5 ns, its posted time, in decoupled time, and
  // syncs: SystemC's next activity is the end of that wait.
  EXPECT_EQ(ran, 1);
  ASSERT_TRUE(kernel.NextEventPs(&at));
  EXPECT_EQ(at, 5'000u);
  kernel.AdvanceTo(at);
  EXPECT_FALSE(kernel.NextEventPs(&at));  // idle again
  EXPECT_EQ(processor.steps(), 1u);
  EXPECT_EQ(processor.syncs(), 1u);
}

}  // namespace
}  // namespace nicsim::hw::systemc
