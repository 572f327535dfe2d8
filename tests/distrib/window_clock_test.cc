// SPDX-License-Identifier: Apache-2.0
// Synchronisation windows: where each ends, when the run ends, and the lookahead check.
#include "sim/distrib/window_clock.h"

#include <gtest/gtest.h>

namespace nicsim::sim::distrib {
namespace {

TEST(WindowClockTest, WindowEndsOneLookaheadAfterTheLeastNextEvent) {
  WindowClock clock(350'000);
  ASSERT_TRUE(clock.Advance(1'000'000));
  EXPECT_EQ(clock.window_end_ps(), 1'350'000u);
  // An idle stretch is skipped: the next window starts at the next event anywhere.
  ASSERT_TRUE(clock.Advance(9'000'000));
  EXPECT_EQ(clock.window_end_ps(), 9'350'000u);
  EXPECT_EQ(clock.windows(), 2u);
}

TEST(WindowClockTest, NoEventAnywhereEndsTheRun) {
  WindowClock clock(1);
  EXPECT_FALSE(clock.Advance(UINT64_MAX));
  EXPECT_EQ(clock.windows(), 0u);
}

TEST(WindowClockTest, FrameDueInsideItsWindowIsALookaheadViolation) {
  WindowClock clock(350'000);
  ASSERT_TRUE(clock.Advance(1'000'000));
  EXPECT_TRUE(clock.CheckArrival(1'350'000, 1).ok());
  const Status late = clock.CheckArrival(1'349'999, 1);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.message().find("lookahead violation"), std::string::npos);
  EXPECT_NE(late.message().find("partition 1"), std::string::npos);
}

TEST(WindowClockTest, WindowEndSaturatesNearTheEndOfTime) {
  WindowClock clock(1000);
  ASSERT_TRUE(clock.Advance(UINT64_MAX - 10));
  EXPECT_EQ(clock.window_end_ps(), UINT64_MAX);
}

}  // namespace
}  // namespace nicsim::sim::distrib
