// SPDX-License-Identifier: Apache-2.0
// MPI under host memory pressure: buffer pools keep the areas they mapped for reuse, and what
// they keep goes back to the node when a map would otherwise fail, so a growing series of
// large messages never waits for memory that nothing will give back; a job that does wait for
// memory with no event left says which staging area it waits for.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

using mpi::kByte;

/** Two ranks on two nodes, each node with `task_bytes` of task memory. */
std::unique_ptr<MpiJob> TwoRankJob(uint64_t task_bytes) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = 2;
  c.cluster.rdma_host_bytes = task_bytes;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  EXPECT_TRUE(job.ok()) << job.status().message();
  return job.ok() ? std::move(*job) : nullptr;
}

TEST(MpiMemoryTest, GrowingMessagesReuseWhatThePoolsKeep) {
  // 12 MiB of task memory per node. Messages of 1, 2 and 4 MiB leave areas of those sizes in
  // the sender's staging pool and in the receiver's landing pool (7 MiB each), so the 8 MiB
  // message that follows fits only once the pools give theirs back.
  const std::unique_ptr<MpiJob> job = TwoRankJob(uint64_t{12} << 20);
  ASSERT_NE(job, nullptr);
  const std::vector<size_t> sizes = {1u << 20, 2u << 20, 4u << 20, 8u << 20};
  std::vector<bool> intact;
  const Status run = job->Run([&](mpi::Mpi& m) {
    const auto& w = m.world();
    for (size_t i = 0; i < sizes.size(); ++i) {
      std::vector<uint8_t> buf(sizes[i]);
      if (w.rank == 0) {
        std::iota(buf.begin(), buf.end(), static_cast<uint8_t>(i));
        m.Send(buf.data(), buf.size(), kByte, 1, 7, w);
      } else {
        m.Recv(buf.data(), buf.size(), kByte, 0, 7, w);
        std::vector<uint8_t> want(sizes[i]);
        std::iota(want.begin(), want.end(), static_cast<uint8_t>(i));
        intact.push_back(buf == want);
      }
    }
  });
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(intact, std::vector<bool>(sizes.size(), true));
  // The three smaller areas were registered for the pulls; they were deregistered before
  // being unmapped, on both sides.
  EXPECT_GT(job->transport(0).registrations().stats().forgotten, 0u);
  EXPECT_GT(job->transport(1).registrations().stats().forgotten, 0u);
}

TEST(MpiMemoryTest, RendezvousMessagesWaitingForTheirReceivesLeaveStagingForTheRest) {
  // 12 MiB of task memory per node. Three 4 MiB sends and a small one; the receiver takes the
  // small one first. Announced, the three would hold all the sender's staging memory until
  // matched, and the small one could never be staged: past half the rank's memory they are
  // asked for by request to send instead, and hold nothing while they wait.
  const std::unique_ptr<MpiJob> job = TwoRankJob(uint64_t{12} << 20);
  ASSERT_NE(job, nullptr);
  constexpr size_t kLarge = 4u << 20;
  std::vector<bool> intact;
  const Status run = job->Run([&](mpi::Mpi& m) {
    const auto& w = m.world();
    std::vector<std::vector<uint8_t>> bufs(3, std::vector<uint8_t>(kLarge));
    std::vector<uint8_t> small(100);
    if (w.rank == 0) {
      std::vector<mpi::Mpi::Request> rs;
      for (int i = 0; i < 3; ++i) {
        std::iota(bufs[i].begin(), bufs[i].end(), static_cast<uint8_t>(i));
        rs.push_back(m.Isend(bufs[i].data(), kLarge, kByte, 1, i + 1, w));
      }
      std::iota(small.begin(), small.end(), static_cast<uint8_t>(9));
      rs.push_back(m.Isend(small.data(), small.size(), kByte, 1, 9, w));
      m.Waitall(rs);
    } else {
      m.Recv(small.data(), small.size(), kByte, 0, 9, w);
      std::vector<uint8_t> want(small.size());
      std::iota(want.begin(), want.end(), static_cast<uint8_t>(9));
      intact.push_back(small == want);
      for (int i = 2; i >= 0; --i) {
        m.Recv(bufs[i].data(), kLarge, kByte, 0, i + 1, w);
        want.assign(kLarge, 0);
        std::iota(want.begin(), want.end(), static_cast<uint8_t>(i));
        intact.push_back(bufs[i] == want);
      }
    }
  });
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(intact, std::vector<bool>(4, true));
  EXPECT_EQ(job->mpi(0).stats().rendezvous_sends, 3u);
  EXPECT_EQ(job->mpi(0).stats().rendezvous_by_request, 2u);
}

TEST(MpiMemoryTest, ADeadlockOnMemoryNamesTheStagingAreaARankWaitsFor) {
  // 12 MiB of task memory per node: a 9 MiB message needs a 16 MiB staging area, which the
  // node cannot give, and nothing will give memory back. The deadlock says so.
  const std::unique_ptr<MpiJob> job = TwoRankJob(uint64_t{12} << 20);
  ASSERT_NE(job, nullptr);
  const Status run = job->Run([&](mpi::Mpi& m) {
    const auto& w = m.world();
    std::vector<uint8_t> buf(9u << 20, 1);
    if (w.rank == 0) {
      m.Send(buf.data(), buf.size(), kByte, 1, 7, w);
    } else {
      m.Recv(buf.data(), buf.size(), kByte, 0, 7, w);
    }
  });
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.message().find("ranks 0, 1 wait with no event left; rank 0 waits for a staging "
                               "area of 16777216 bytes (its node has 12582912 bytes of host "
                               "memory for every area of its ranks)"),
            std::string::npos)
      << run.message();
}

}  // namespace
}  // namespace nicsim::sim
