// SPDX-License-Identifier: Apache-2.0
// Push-pull between nodes (mpi.internode=pushpull): every size around BTP1 and BTP1 + BTP2
// arrives byte-exact with an early and with a late receiver, pushes and pulls the exact bytes
// the protocol says, and the comparison modes push everything or nothing.
#include <gtest/gtest.h>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

using mpi::Base;
using mpi::Datatype;
using ulp::pushpull::Mode;

using mpi::kByte;
constexpr int kGoTag = 999;

std::unique_ptr<MpiJob> Job(Mode mode) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = 2;
  c.cluster.microcode.rcxts = 2048;
  c.mpi.internode = mpi::InternodeTransport::kPushPull;
  c.pushpull.mode = mode;
  c.pushpull.btp1_bytes = 64;
  c.pushpull.btp2_bytes = 960;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

std::vector<uint8_t> Pattern(size_t size, int index) {
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i) {
    v[i] = static_cast<uint8_t>(i * 131 + static_cast<size_t>(index) * 7 + 3);
  }
  return v;
}

// Around BTP1 (64) and BTP1 + BTP2 (1024), and beyond a page and the transport's RDMA size.
const std::vector<size_t> kSizes = {0, 1, 63, 64, 65, 1023, 1024, 1025, 1088, 4096, 70000, 300000};

/** What the protocol pushes and pulls for kSizes in `mode`. */
struct Expected {
  uint64_t eager = 0, rendezvous = 0, pushes = 0, second = 0, pushed = 0, pulled = 0;
};
Expected ExpectedFor(Mode mode) {
  Expected e;
  for (size_t s : kSizes) {
    const uint64_t pushed = mode == Mode::kPushAll    ? s
                            : mode == Mode::kPushZero ? 0
                                                      : std::min<uint64_t>(s, 1024);
    if (pushed == s) {
      ++e.eager;
      continue;
    }
    ++e.rendezvous;
    e.pushed += pushed;
    e.pulled += s - pushed;
    const bool second = mode == Mode::kPushPull && pushed > 64;
    e.pushes += second ? 2 : 1;
    e.second += second ? 1 : 0;
  }
  return e;
}

/** Sends kSizes from rank 0 to rank 1; `early`: rank 1 posts every receive before rank 0 sends. */
void RunSizes(MpiJob& job, bool early) {
  size_t checked = 0;
  ASSERT_TRUE(job.Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   if (w.rank == 0) {
                     std::vector<std::vector<uint8_t>> out;
                     for (size_t i = 0; i < kSizes.size(); ++i) {
                       out.push_back(Pattern(kSizes[i], static_cast<int>(i)));
                     }
                     char go = 0;
                     if (early) m.Recv(&go, 1, kByte, 1, kGoTag, w);
                     std::vector<mpi::Mpi::Request> sends;
                     for (size_t i = 0; i < kSizes.size(); ++i) {
                       sends.push_back(
                           m.Isend(out[i].data(), out[i].size(), kByte, 1, static_cast<int>(i), w));
                     }
                     // Behind every push in the transport's order: the receiver is late for all of
                     // them.
                     if (!early) m.Send(&go, 1, kByte, 1, kGoTag, w);
                     m.Waitall(sends);
                     return;
                   }
                   std::vector<std::vector<uint8_t>> in;
                   for (size_t s : kSizes) in.emplace_back(s + 16, 0xEE);
                   char go = 1;
                   if (!early) m.Recv(&go, 1, kByte, 0, kGoTag, w);
                   std::vector<mpi::Mpi::Request> recvs;
                   for (size_t i = 0; i < kSizes.size(); ++i) {
                     recvs.push_back(
                         m.Irecv(in[i].data(), in[i].size(), kByte, 0, static_cast<int>(i), w));
                   }
                   if (early) m.Send(&go, 1, kByte, 0, kGoTag, w);
                   for (size_t i = 0; i < kSizes.size(); ++i) {
                     const mpi::Status s = m.Wait(recvs[i]);
                     EXPECT_EQ(s.bytes, kSizes[i]);
                     EXPECT_FALSE(s.truncated);
                     std::vector<uint8_t> want = Pattern(kSizes[i], static_cast<int>(i));
                     want.resize(kSizes[i] + 16, 0xEE);  // nothing written past the message
                     EXPECT_EQ(in[i], want) << "size " << kSizes[i];
                     ++checked;
                   }
                 })
                  .ok());
  EXPECT_EQ(checked, kSizes.size());
}

void ExpectCounters(MpiJob& job, Mode mode, bool early) {
  const Expected e = ExpectedFor(mode);
  const mpi::Mpi::Stats& s = job.mpi(0).stats();
  const mpi::Mpi::Stats& r = job.mpi(1).stats();
  EXPECT_EQ(s.eager_sends, e.eager + (early ? 0 : 1));  // the go message
  EXPECT_EQ(s.rendezvous_sends, e.rendezvous);
  EXPECT_EQ(s.pushpull_pushes, e.pushes);
  EXPECT_EQ(s.pushpull_second_pushes, e.second);
  EXPECT_EQ(s.pushpull_pushed_bytes, e.pushed);
  EXPECT_EQ(s.pushpull_pulled_bytes, e.pulled);
  EXPECT_EQ(r.pushpull_early_receivers, early ? e.rendezvous : 0);
  EXPECT_EQ(r.pushpull_late_receivers, early ? 0 : e.rendezvous);
}

TEST(MpiPushPullTest, EarlyReceiverGetsEverySizeAndTheProtocolsByteCounts) {
  auto job = Job(Mode::kPushPull);
  RunSizes(*job, /*early=*/true);
  ExpectCounters(*job, Mode::kPushPull, true);
}

TEST(MpiPushPullTest, LateReceiverFindsThePushedBytesWaiting) {
  auto job = Job(Mode::kPushPull);
  RunSizes(*job, /*early=*/false);
  ExpectCounters(*job, Mode::kPushPull, false);
  EXPECT_EQ(job->mpi(1).unexpected_queued(), 0u);
}

TEST(MpiPushPullTest, PushAllSendsEverythingEagerly) {
  auto job = Job(Mode::kPushAll);
  RunSizes(*job, /*early=*/false);
  ExpectCounters(*job, Mode::kPushAll, false);
  EXPECT_EQ(job->mpi(0).stats().pushpull_pulled_bytes, 0u);
}

TEST(MpiPushPullTest, PushZeroPullsEveryByte) {
  auto job = Job(Mode::kPushZero);
  RunSizes(*job, /*early=*/true);
  ExpectCounters(*job, Mode::kPushZero, true);
  EXPECT_EQ(job->mpi(0).stats().pushpull_pushed_bytes, 0u);
}

TEST(MpiPushPullTest, SynchronousAndAllocMemSendsCompleteByteExact) {
  auto job = Job(Mode::kPushPull);
  const size_t size = 50000;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   auto* area = static_cast<uint8_t*>(m.AllocMem(size));
                   ASSERT_NE(area, nullptr);
                   if (w.rank == 0) {
                     const std::vector<uint8_t> small = Pattern(100, 1);
                     m.Wait(m.Issend(small.data(), small.size(), kByte, 1, 1, w));
                     const std::vector<uint8_t> big = Pattern(size, 2);
                     std::copy(big.begin(), big.end(), area);
                     m.Send(area, size, kByte, 1, 2, w);
                   } else {
                     std::vector<uint8_t> in(100);
                     m.Recv(in.data(), in.size(), kByte, 0, 1, w);
                     EXPECT_EQ(in, Pattern(100, 1));
                     const mpi::Status s = m.Recv(area, size, kByte, 0, 2, w);
                     EXPECT_EQ(s.bytes, size);
                     EXPECT_TRUE(std::equal(area, area + size, Pattern(size, 2).begin()));
                   }
                 })
                  .ok());
  const mpi::Mpi::Stats& s = job->mpi(0).stats();
  // The synchronous send pushes only a header; the AllocMem one pushes 1024 bytes and the
  // rest is read from the program's buffer by RDMA.
  EXPECT_EQ(s.rendezvous_sends, 2u);
  EXPECT_EQ(s.pushpull_pushes, 1u + 2u);
  EXPECT_EQ(s.pushpull_pushed_bytes, 1024u);
  EXPECT_EQ(s.pushpull_pulled_bytes, 100u + (size - 1024));
  EXPECT_EQ(s.zero_copy_sends, 1u);
}

}  // namespace
}  // namespace nicsim::sim
