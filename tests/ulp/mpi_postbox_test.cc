// SPDX-License-Identifier: Apache-2.0
// MPI between ranks of one node through the postbox path (mpi.intranode=postbox): every
// protocol (eager, rendezvous, synchronous, AllocMem buffers) delivers exact bytes, local
// messages never touch the transport while remote ones still do, quota waits and block
// reclamation balance, and a run is the same every time.
#include <gtest/gtest.h>

#include <numeric>

#include "sim/cluster/mpi_job.h"
#include "tests/ulp/mpi_path_support.h"

namespace nicsim::sim {
namespace {

using testing_paths::Pattern;
using testing_paths::Settle;
using testing_paths::TransportMessages;

using mpi::Base;
using mpi::Datatype;

using mpi::kByte;

std::unique_ptr<MpiJob> Job(uint32_t ranks, uint32_t nodes,
                            ulp::postbox::Params postbox = ulp::postbox::Params{},
                            double copy_ps_per_byte = 0) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = ranks;
  c.cluster.nodes = nodes;
  c.cluster.microcode.rcxts = 2048;
  c.mpi.eager_limit = 16 * 1024;
  c.mpi.intranode = mpi::IntranodeTransport::kPostbox;
  c.postbox = postbox;
  c.copy_ps_per_byte = copy_ps_per_byte;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

ulp::postbox::SenderStats SenderTotals(const MpiJob& job) {
  ulp::postbox::SenderStats s;
  for (uint32_t r = 0; r < job.ranks(); ++r) s += job.postbox(r)->sender_stats();
  return s;
}

ulp::postbox::ReceiverStats ReceiverTotals(const MpiJob& job) {
  ulp::postbox::ReceiverStats s;
  for (uint32_t r = 0; r < job.ranks(); ++r) s += job.postbox(r)->receiver_stats();
  return s;
}

// Sizes around the inline limit (64), the piece (4096) and the eager limit (16 KiB).
const std::vector<size_t> kSizes = {0,    1,    63,    64,    65,    4095,  4096,
                                    4097, 8192, 16383, 16384, 16385, 100000};

TEST(MpiPostboxTest, TwoRanksOfOneNodeExchangeExactBytesWithoutTheTransport) {
  auto job = Job(2, 1);
  size_t checked = 0;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   for (size_t i = 0; i < kSizes.size(); ++i) {
                     const int index = static_cast<int>(i);
                     if (w.rank == 0) {
                       const std::vector<uint8_t> out = Pattern(kSizes[i], 0, index);
                       m.Send(out.data(), out.size(), kByte, 1, index, w);
                     } else {
                       std::vector<uint8_t> in(kSizes[i] + 8, 0xEE);
                       const mpi::Status s = m.Recv(in.data(), in.size(), kByte, 0, index, w);
                       EXPECT_EQ(s.bytes, kSizes[i]);
                       in.resize(kSizes[i]);
                       EXPECT_EQ(in, Pattern(kSizes[i], 0, index)) << "size " << kSizes[i];
                       ++checked;
                     }
                   }
                 })
                  .ok());
  EXPECT_EQ(checked, kSizes.size());
  Settle(*job);
  EXPECT_EQ(TransportMessages(*job), 0u);
  // 11 sizes go eager (one message each), 2 by rendezvous (request, clear to send, data).
  const uint64_t messages = 11 + 2 * 3;
  EXPECT_EQ(job->mpi(0).stats().eager_sends, 11u);
  EXPECT_EQ(job->mpi(0).stats().rendezvous_sends, 2u);
  EXPECT_EQ(job->mpi(0).stats().intranode_messages + job->mpi(1).stats().intranode_messages,
            messages);
  const ulp::postbox::SenderStats s = SenderTotals(*job);
  const ulp::postbox::ReceiverStats r = ReceiverTotals(*job);
  EXPECT_EQ(s.messages_accepted, messages);
  EXPECT_EQ(r.messages_delivered, messages);
  EXPECT_EQ(s.bytes_posted, r.bytes_copied);
  // Each rank's data segment appears on its first send; the node's ACK segment once.
  EXPECT_EQ(s.data_segments_created, 2u);
  EXPECT_EQ(s.ack_segments_created, 1u);
  EXPECT_EQ(s.blocks_returned, s.blocks_taken);
  EXPECT_EQ(job->postbox(0)->in_flight() + job->postbox(1)->in_flight(), 0u);
}

TEST(MpiPostboxTest, SynchronousAndAllocMemSendsCrossTheNodeByCopy) {
  auto job = Job(2, 1);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   const size_t size = 50000;
                   auto* area = static_cast<uint8_t*>(m.AllocMem(size));
                   ASSERT_NE(area, nullptr);
                   if (w.rank == 0) {
                     const std::vector<uint8_t> sync = Pattern(100, 0, 1);
                     m.Wait(m.Issend(sync.data(), sync.size(), kByte, 1, 1, w));
                     const std::vector<uint8_t> big = Pattern(size, 0, 2);
                     std::copy(big.begin(), big.end(), area);
                     m.Send(area, size, kByte, 1, 2, w);
                   } else {
                     std::vector<uint8_t> in(100);
                     m.Recv(in.data(), in.size(), kByte, 0, 1, w);
                     EXPECT_EQ(in, Pattern(100, 0, 1));
                     const mpi::Status s = m.Recv(area, size, kByte, 0, 2, w);
                     EXPECT_EQ(s.bytes, size);
                     EXPECT_TRUE(std::equal(area, area + size, Pattern(size, 0, 2).begin()));
                   }
                 })
                  .ok());
  EXPECT_EQ(TransportMessages(*job), 0u);
  // Both go by rendezvous; nothing lands in place or is read by RDMA inside the node.
  EXPECT_EQ(job->mpi(0).stats().rendezvous_sends, 2u);
  EXPECT_EQ(job->mpi(0).stats().zero_copy_sends, 0u);
  EXPECT_EQ(job->mpi(1).stats().zero_copy_receives, 0u);
  EXPECT_EQ(SenderTotals(*job).messages_accepted, 6u);
}

TEST(MpiPostboxTest, LocalPairsUsePostboxesAndRemotePairsTheTransport) {
  // 6 ranks on 2 nodes: ranks 0, 2, 4 on node 0 and 1, 3, 5 on node 1.
  auto job = Job(6, 2);
  const size_t size = 3000;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   std::vector<uint8_t> out(size * 6), in(size * 6, 0);
                   for (int to = 0; to < 6; ++to) {
                     const std::vector<uint8_t> p = Pattern(size, w.rank, to);
                     std::copy(p.begin(), p.end(), out.begin() + static_cast<long>(size) * to);
                   }
                   m.Alltoall(out.data(), size, kByte, in.data(), w);
                   for (int from = 0; from < 6; ++from) {
                     const std::vector<uint8_t> want = Pattern(size, from, w.rank);
                     EXPECT_TRUE(std::equal(want.begin(), want.end(),
                                            in.begin() + static_cast<long>(size) * from))
                         << "rank " << w.rank << " from " << from;
                   }
                 })
                  .ok());
  // Each rank sends one eager message to every other rank (its own block it copies): 2 on its
  // node, 3 on the other.
  EXPECT_EQ(SenderTotals(*job).messages_accepted, 6u * 2);
  EXPECT_EQ(ReceiverTotals(*job).messages_delivered, 6u * 2);
  EXPECT_EQ(TransportMessages(*job), 6u * 3);
}

TEST(MpiPostboxTest, ALargeMessageWaitsForQuotaAndEveryBlockComesBack) {
  ulp::postbox::Params p;
  p.pool_blocks = 8;
  p.receiver_quota_blocks = 2;
  auto job = Job(3, 1, p, /*copy_ps_per_byte=*/0.3);
  const size_t size = 256 * 1024;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   if (w.rank == 0) {
                     const std::vector<uint8_t> a = Pattern(size, 0, 1), b = Pattern(size, 0, 2);
                     mpi::Mpi::Request r1 = m.Isend(a.data(), size, kByte, 1, 0, w);
                     mpi::Mpi::Request r2 = m.Isend(b.data(), size, kByte, 2, 0, w);
                     m.Waitall({r1, r2});
                   } else {
                     std::vector<uint8_t> in(size);
                     m.Recv(in.data(), size, kByte, 0, 0, w);
                     EXPECT_EQ(in, Pattern(size, 0, w.rank));
                   }
                 })
                  .ok());
  Settle(*job);
  const ulp::postbox::SenderStats s = SenderTotals(*job);
  // Two rendezvous data messages of 65 pieces each (the bytes and the path's 8-byte header),
  // at most two blocks out per receiver.
  EXPECT_EQ(s.pieces_posted, 2u * 65);
  EXPECT_GT(s.quota_waits, 0u);
  EXPECT_EQ(s.blocks_taken, 2u * 65);
  EXPECT_EQ(s.blocks_returned, s.blocks_taken);
  EXPECT_EQ(ReceiverTotals(*job).bytes_copied, s.bytes_posted);
}

TEST(MpiPostboxTest, TheSameJobTakesTheSameSimulatedTimeEveryRun) {
  auto run = [] {
    auto job = Job(4, 1, ulp::postbox::Params{}, 0.3);
    uint64_t end = 0;
    const Status s = job->Run([&](mpi::Mpi& m) {
      std::vector<uint8_t> in(40000 * 4), out(40000 * 4, static_cast<uint8_t>(m.world().rank));
      m.Alltoall(out.data(), 40000, kByte, in.data(), m.world());
      m.Barrier(m.world());
      end = m.world().rank == 0 ? job->cluster().events().now_ps() : end;
    });
    EXPECT_TRUE(s.ok()) << s.message();
    return std::make_pair(end, SenderTotals(*job).quota_waits);
  };
  const auto first = run();
  EXPECT_GT(first.first, 0u);
  EXPECT_EQ(run(), first);
}

}  // namespace
}  // namespace nicsim::sim
