// SPDX-License-Identifier: Apache-2.0
// ChunkSizer: whole chunks while nothing is lost; under loss, chunks of the packets that one
// loss in ten chunks allows; old outcomes fade; and a failure streak is put down to the loss
// only while it is likely enough under it.
#include "ulp/transport/chunk_sizer.h"

#include <gtest/gtest.h>

namespace nicsim::ulp {
namespace {

constexpr uint32_t kPacket = 2048;
constexpr uint64_t kMax = 256 * 1024;

TEST(ChunkSizerTest, WithoutLossChunksAreTheLargest) {
  ChunkSizer s(kMax, kPacket);
  EXPECT_EQ(s.size(), kMax);
  for (int i = 0; i < 100; ++i) s.Landed(kMax);
  EXPECT_EQ(s.size(), kMax);
  EXPECT_EQ(s.loss(), 0.0);
}

TEST(ChunkSizerTest, ChunksShrinkToOneLossInTenChunks) {
  ChunkSizer s(kMax, kPacket);
  // Chunks of 8 data packets count 10 (their request and completion too): one failed in 10
  // is 1% loss, and chunks of 10 packets.
  for (int i = 0; i < 9; ++i) s.Landed(8 * kPacket);
  s.Lost(8 * kPacket);
  EXPECT_DOUBLE_EQ(s.loss(), 0.01);
  EXPECT_EQ(s.size(), 10u * kPacket);
  // The first loss, in a whole chunk: 130 packets, chunks of 13.
  ChunkSizer first(kMax, kPacket);
  first.Lost(kMax);
  EXPECT_EQ(first.size(), 13u * kPacket);
  // Heavy loss: one packet, never less.
  ChunkSizer heavy(kMax, kPacket);
  for (int i = 0; i < 5; ++i) heavy.Lost(kPacket);
  EXPECT_EQ(heavy.size(), uint64_t{kPacket});
}

TEST(ChunkSizerTest, OldOutcomesFade) {
  ChunkSizer s(kMax, kPacket);
  s.Lost(kPacket);  // 100% loss so far
  EXPECT_EQ(s.size(), uint64_t{kPacket});
  // Whole chunks afterwards: the estimate halves as it passes 4,096 packets, and the
  // chunks grow back towards the largest.
  for (int i = 0; i < 64; ++i) s.Landed(kMax);
  EXPECT_LT(s.loss(), 1.0 / 4096);
  EXPECT_EQ(s.size(), kMax);
}

TEST(ChunkSizerTest, AStreakIsTheLossOnlyWhileLikelyUnderIt) {
  ChunkSizer clean(kMax, kPacket);
  // Nothing lost: any failure is more than the loss.
  EXPECT_FALSE(clean.LossExplains(1));
  // One-packet chunks count three packets: 30 failed in 100 is 10% loss.
  ChunkSizer lossy(kMax, kPacket);
  for (int i = 0; i < 30; ++i) lossy.Lost(kPacket);
  for (int i = 0; i < 70; ++i) lossy.Landed(kPacket);
  EXPECT_DOUBLE_EQ(lossy.loss(), 0.1);
  // A try fails with 1 - 0.9^3 = 0.271; 0.271^10 = 2.1e-6 > 1e-6, and 0.271^11 = 5.8e-7.
  EXPECT_TRUE(lossy.LossExplains(6));
  EXPECT_TRUE(lossy.LossExplains(10));
  EXPECT_FALSE(lossy.LossExplains(11));
  // 25% lost: a try fails with 1 - 0.75^3 = 0.58, more often than not: RDMA is not worth
  // more tries.
  ChunkSizer heavy(kMax, kPacket);
  for (int i = 0; i < 3; ++i) heavy.Lost(kPacket);
  heavy.Landed(kPacket);
  EXPECT_DOUBLE_EQ(heavy.loss(), 0.25);
  EXPECT_FALSE(heavy.LossExplains(6));
}

}  // namespace
}  // namespace nicsim::ulp
