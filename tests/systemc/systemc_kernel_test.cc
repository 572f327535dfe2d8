// SPDX-License-Identifier: Apache-2.0
// Tests for the SystemC kernel as the event queue's co-simulator: its cached answer to "when is
// SystemC's next activity" follows a processor post (timed at the post's own time) and each
// step; the thread has the call run in an event of the owner that posted it.
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
  nicsim::kernel::EventQueue events;
  Processor processor("microcode0", events);  // elaboration: before Start
  kernel.Start(0);                            // lock-step: every post goes through the thread
  events.SetCoSimulator(&kernel);
  uint64_t at = 0;
  EXPECT_FALSE(kernel.NextEventPs(&at));
  EXPECT_FALSE(kernel.NextEventPs(&at));  // the cached answer, unchanged

  int ran = 0;
  nicsim::kernel::EventQueue::Owner ran_as = 0;
  {
    nicsim::kernel::EventQueue::OwnerScope as_node(events, 7);
    processor.Post([&] { ++ran, ran_as = events.owner(); }, 5'000);
  }
  // The post wakes the thread at its own time, 5 ns, not at SystemC's (still 0).
  ASSERT_TRUE(kernel.NextEventPs(&at));
  EXPECT_EQ(at, 5'000u);
  EXPECT_EQ(events.next_any_time_ps(), 5'000u);
  // SystemC's step at 5 ns: the thread hands the call to an event of its poster's, 1 ps on.
  ASSERT_TRUE(events.RunOne());
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(events.next_time_ps(), 5'001u);
  EXPECT_EQ(events.scheduled_by(7), 1u);
  ASSERT_TRUE(events.RunOne());
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(ran_as, 7u);
  // The thread resumes and syncs (lock-step); then SystemC is idle again.
  while (events.RunOne()) {
  }
  EXPECT_FALSE(kernel.NextEventPs(&at));
  EXPECT_EQ(processor.steps(), 1u);
  EXPECT_EQ(processor.syncs(), 1u);
  // Co-simulator steps are not events: only the call's.
  EXPECT_EQ(events.events_run(), 1u);
}

}  // namespace
}  // namespace nicsim::hw::systemc
