// SPDX-License-Identifier: Apache-2.0
// Zero copy: a large contiguous message from an AllocMem buffer to an AllocMem buffer is read
// by RDMA from the sender's buffer and lands in the receiver's, with no CPU copy on either
// side; from plain memory the same message is copied four times (pack, stage, copy out of the
// landing area, unpack). Under loss the bytes still arrive exactly.
#include <gtest/gtest.h>

#include <vector>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

constexpr size_t kBytes = 4 << 20;

uint8_t Byte(size_t i) { return static_cast<uint8_t>(i * 167 + 13); }

std::unique_ptr<MpiJob> Job(double loss = 0) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = 2;
  c.cluster.fabric.loss = loss;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

/** Rank 0 sends kBytes to rank 1; returns whether every byte arrived right. */
bool SendOnce(MpiJob& job, bool own_buffers) {
  bool right = false;
  std::vector<uint8_t> plain(kBytes);
  EXPECT_TRUE(job.Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   uint8_t* buf =
                       own_buffers ? static_cast<uint8_t*>(m.AllocMem(kBytes)) : plain.data();
                   ASSERT_NE(buf, nullptr);
                   using mpi::kByte;
                   if (w.rank == 0) {
                     for (size_t i = 0; i < kBytes; ++i) buf[i] = Byte(i);
                     m.Send(buf, kBytes, kByte, 1, 3, w);
                     return;
                   }
                   const mpi::Status s = m.Recv(buf, kBytes, kByte, 0, 3, w);
                   right = s.bytes == kBytes && !s.truncated;
                   for (size_t i = 0; i < kBytes && right; ++i) right = buf[i] == Byte(i);
                 })
                  .ok());
  return right;
}

TEST(MpiZeroCopyTest, AllocMemBuffersMoveALargeMessageWithNoHostCopy) {
  auto job = Job();
  ASSERT_TRUE(SendOnce(*job, true));
  EXPECT_EQ(job->mpi(0).stats().host_copies, 0u);
  EXPECT_EQ(job->mpi(1).stats().host_copies, 0u);
  EXPECT_EQ(job->transport(1).stats().host_copies, 0u);
  EXPECT_EQ(job->mpi(0).stats().zero_copy_sends, 1u);
  EXPECT_EQ(job->mpi(1).stats().zero_copy_receives, 1u);
  EXPECT_EQ(job->transport(0).stats().rdma_messages, 1u);
}

TEST(MpiZeroCopyTest, PlainBuffersCopyTheMessageThreeTimes) {
  auto job = Job();
  ASSERT_TRUE(SendOnce(*job, false));
  // Packed into staging memory at the sender; copied out of the landing area and unpacked at
  // the receiver.
  EXPECT_EQ(job->mpi(0).stats().host_copies, 1u);
  EXPECT_EQ(job->mpi(0).stats().host_copy_bytes, kBytes);
  EXPECT_EQ(job->transport(1).stats().host_copies, 1u);
  EXPECT_EQ(job->transport(1).stats().host_copy_bytes, kBytes);
  EXPECT_EQ(job->mpi(1).stats().host_copies, 1u);
  EXPECT_EQ(job->mpi(0).stats().zero_copy_sends, 0u);
}

TEST(MpiZeroCopyTest, UnderLossTheBytesStillLandExactlyInTheReceiversBuffer) {
  auto job = Job(0.05);
  ASSERT_TRUE(SendOnce(*job, true));
  EXPECT_GT(job->transport(1).stats().rdma_redrives, 0u);
  EXPECT_EQ(job->mpi(0).stats().zero_copy_sends, 1u);
}

}  // namespace
}  // namespace nicsim::sim
