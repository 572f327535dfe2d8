// SPDX-License-Identifier: Apache-2.0
// RttEstimator on its own: the exact retransmit timeouts that given samples and back-offs
// leave, and the clamp to [rto_min_ps, rto_max_ps].
#include "ulp/transport/rtt_estimator.h"

#include <gtest/gtest.h>

namespace nicsim::ulp {
namespace {

TransportConfig Rto() {
  TransportConfig c;
  c.rto_ps = 200'000'000;
  c.rto_min_ps = 20'000'000;
  c.rto_max_ps = 2'000'000'000;
  return c;
}

TEST(SmoothedTest, FirstSampleSetsMeanAndHalfOfItAsDeviation) {
  Smoothed s;
  EXPECT_FALSE(s.valid);
  s.Add(100);
  EXPECT_TRUE(s.valid);
  EXPECT_DOUBLE_EQ(s.mean, 100);
  EXPECT_DOUBLE_EQ(s.dev, 50);
  EXPECT_DOUBLE_EQ(s.Bound(), 300);
  s.Add(200);  // dev = 0.75 * 50 + 0.25 * 100, mean = 0.875 * 100 + 0.125 * 200
  EXPECT_DOUBLE_EQ(s.dev, 62.5);
  EXPECT_DOUBLE_EQ(s.mean, 112.5);
}

TEST(RttEstimatorTest, UsesTheConfiguredTimeoutForAnUnknownDestination) {
  RttEstimator rtt(Rto());
  EXPECT_EQ(rtt.RtoFor(3), 200'000'000u);
}

TEST(RttEstimatorTest, AnAskingTimeoutToAnUnknownDestinationFollowsEveryDestinationsSamples) {
  RttEstimator rtt(Rto());
  EXPECT_EQ(rtt.AskingRtoFor(3), 200'000'000u);  // nothing measured anywhere yet
  rtt.Sample(1, 10'000'000);
  rtt.Sample(2, 20'000'000);
  // Over both: mean 11.25 us, deviation 6.25 us.
  EXPECT_EQ(rtt.AskingRtoFor(3), 36'250'000u);
  EXPECT_EQ(rtt.RtoFor(3), 200'000'000u);       // a resending timeout waits as configured
  EXPECT_EQ(rtt.AskingRtoFor(1), 30'000'000u);  // a known destination keeps its own
  rtt.Sample(2, 1'000'000);
  EXPECT_EQ(rtt.AskingRtoFor(4), 38'968'750u);  // mean 9.96875 us, deviation 7.25 us
}

TEST(RttEstimatorTest, TimeoutIsMeanPlusFourDeviationsAfterSamples) {
  RttEstimator rtt(Rto());
  rtt.Sample(1, 10'000'000);
  EXPECT_EQ(rtt.RtoFor(1), 30'000'000u);  // 10 us + 4 * 5 us
  rtt.Sample(1, 20'000'000);
  EXPECT_EQ(rtt.RtoFor(1), 36'250'000u);   // 11.25 us + 4 * 6.25 us
  EXPECT_EQ(rtt.RtoFor(2), 200'000'000u);  // other destinations keep their own
}

TEST(RttEstimatorTest, TimeoutIsClampedToTheMinimumAndMaximum) {
  RttEstimator rtt(Rto());
  rtt.Sample(1, 1'000'000);
  EXPECT_EQ(rtt.RtoFor(1), 20'000'000u);
  rtt.BackOff(2, 5'000'000'000);
  EXPECT_EQ(rtt.RtoFor(2), 2'000'000'000u);
}

TEST(RttEstimatorTest, BackOffHoldsUntilTheNextSample) {
  RttEstimator rtt(Rto());
  rtt.Sample(1, 10'000'000);
  rtt.BackOff(1, 400'000'000);
  EXPECT_EQ(rtt.RtoFor(1), 400'000'000u);
  rtt.BackOff(1, 100'000'000);  // a smaller back-off does not lower it
  EXPECT_EQ(rtt.RtoFor(1), 400'000'000u);
  rtt.Sample(1, 10'000'000);  // dev 3.75 us, mean 10 us
  EXPECT_EQ(rtt.RtoFor(1), 25'000'000u);
}

TEST(RttEstimatorTest, BackOffBeforeAnySampleStartsFromTheConfiguredTimeout) {
  RttEstimator rtt(Rto());
  rtt.BackOff(4, 100'000'000);
  EXPECT_EQ(rtt.RtoFor(4), 200'000'000u);
  rtt.BackOff(4, 800'000'000);
  EXPECT_EQ(rtt.RtoFor(4), 800'000'000u);
}

}  // namespace
}  // namespace nicsim::ulp
