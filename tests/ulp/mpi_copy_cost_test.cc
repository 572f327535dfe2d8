// SPDX-License-Identifier: Apache-2.0
// The host copy-cost model: with a copy bandwidth set, every CPU copy of message data takes
// its bytes' time on the CPU that makes it. A 4 MiB message from plain memory (packed,
// staged, copied out of the landing area, unpacked: four copies on its way) takes the four
// copies' time longer than one between AllocMem buffers, which makes no copy and arrives when
// it would with copies free. All times are simulated, in picoseconds.
#include <gtest/gtest.h>

#include <vector>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

constexpr size_t kBytes = 4 << 20;
/** 1 GB/s: a copy of n bytes takes exactly n ns. */
constexpr double kPsPerByte = 1000.0;
constexpr uint64_t kCopyPs = static_cast<uint64_t>(kBytes * kPsPerByte);

std::unique_ptr<MpiJob> Job(double copy_ps_per_byte) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = 2;
  c.copy_ps_per_byte = copy_ps_per_byte;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

/** Simulated times of one kBytes message from rank 0 to rank 1. */
struct Times {
  /** How long rank 0's Isend took to return. */
  uint64_t isend_ps = 0;
  /** From rank 0's Isend to the end of rank 1's Recv. */
  uint64_t one_way_ps = 0;
};

Times SendOnce(double copy_ps_per_byte, bool own_buffers) {
  auto job = Job(copy_ps_per_byte);
  Times t;
  uint64_t sent_at = 0;
  std::vector<uint8_t> plain(kBytes);
  EXPECT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   uint8_t* buf =
                       own_buffers ? static_cast<uint8_t*>(m.AllocMem(kBytes)) : plain.data();
                   ASSERT_NE(buf, nullptr);
                   using mpi::kByte;
                   auto now = [&] { return job->cluster().events().now_ps(); };
                   if (w.rank == 0) {
                     sent_at = now();
                     mpi::Mpi::Request r = m.Isend(buf, kBytes, kByte, 1, 3, w);
                     t.isend_ps = now() - sent_at;
                     m.Wait(r);
                     return;
                   }
                   const mpi::Status s = m.Recv(buf, kBytes, kByte, 0, 3, w);
                   EXPECT_EQ(s.bytes, kBytes);
                   t.one_way_ps = now() - sent_at;
                 })
                  .ok());
  // The model costs time only: the copies counted are the same with or without it.
  const uint64_t copies = job->mpi(0).stats().host_copies + job->mpi(1).stats().host_copies +
                          job->transport(1).stats().host_copies;
  EXPECT_EQ(copies, own_buffers ? 0u : 3u);
  return t;
}

TEST(MpiCopyCostTest, EachCopyOnTheMessagesWayAddsItsTime) {
  // Pack into staging, copy out, unpack: one after another on the message's way. Twice the
  // cost per byte adds the three copies' bytes once more, exactly (with copies free the pull
  // starts while the sender's acknowledgement of the clear-to-send is on the link, so that
  // run is compared only through the bounds below).
  const Times once = SendOnce(kPsPerByte, false);
  const Times twice = SendOnce(2 * kPsPerByte, false);
  EXPECT_EQ(twice.one_way_ps, once.one_way_ps + 3 * kCopyPs);
}

TEST(MpiCopyCostTest, ZeroCopyMessageTakesNoCopyTime) {
  EXPECT_EQ(SendOnce(kPsPerByte, true).one_way_ps, SendOnce(0, true).one_way_ps);
}

TEST(MpiCopyCostTest, ZeroCopySavesTheThreeCopyTimes) {
  const Times plain = SendOnce(kPsPerByte, false);
  const Times zero = SendOnce(kPsPerByte, true);
  EXPECT_EQ(SendOnce(0, false).one_way_ps, zero.one_way_ps);  // with copies free: the same
  // The three copies' time, less at most one small packet's wire time (the acknowledgement
  // the zero-copy pull shares the link with; the plain one starts after it, on a quiet link).
  constexpr uint64_t kSmallPacketPs = 50'000;
  EXPECT_LE(plain.one_way_ps, zero.one_way_ps + 3 * kCopyPs);
  EXPECT_GE(plain.one_way_ps + kSmallPacketPs, zero.one_way_ps + 3 * kCopyPs);
}

TEST(MpiCopyCostTest, PackingSpendsTheSendingRanksTime) {
  // The rank's own call packs the buffer into staging memory for the transport's
  // announcement: Isend returns one copy time later.
  EXPECT_EQ(SendOnce(kPsPerByte, false).isend_ps, kCopyPs);
  EXPECT_EQ(SendOnce(kPsPerByte, true).isend_ps, 0u);
  EXPECT_EQ(SendOnce(0, false).isend_ps, 0u);
}

}  // namespace
}  // namespace nicsim::sim
