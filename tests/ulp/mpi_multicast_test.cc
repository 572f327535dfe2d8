// SPDX-License-Identifier: Apache-2.0
// Bcast and Barrier over a multicast group (mpi.bcast=multicast): one broadcast RDMA write per
// group message reaches every other node, each member acknowledges by one unicast packet, a
// member that missed it (loss on its link) gets unicast retries and no one else does, members
// the broadcast cannot reach get unicast writes from the start, and the barrier lets no rank
// leave before the last has entered.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/cluster/mpi_job.h"
#include "tests/support/link_faults.h"
#include "tests/ulp/mpi_group_rounds.h"

namespace nicsim::sim {
namespace {

constexpr uint64_t kSlot = 16 * 1024;

std::unique_ptr<MpiJob> Job(uint32_t ranks, uint32_t nodes, double lossy_link = 0,
                            uint32_t lossy_adapter = 0, uint64_t slot = kSlot) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = ranks;
  c.cluster.nodes = nodes;
  c.mpi.bcast = mpi::CollectiveTransport::kMulticast;
  c.mpi.mcast_slot_bytes = slot;
  if (lossy_link > 0) {
    FaultRates loss;
    loss.loss = lossy_link;
    AddLinkFaults(c.cluster, lossy_adapter, loss);
  }
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

TEST(MpiMulticastTest, OneBroadcastWritePerGroupMessageReachesEveryRankExactly) {
  auto job = Job(8, 8);
  // 40,000 bytes: three group messages (16 KiB slots) of 8, 8 and 4 packets.
  ASSERT_EQ(BcastRounds(*job, 40'000, {0, 3, 5}), 0);
  const ulp::TransportStats s = Totals(*job);
  EXPECT_EQ(s.mcast_sends, 9u);
  EXPECT_EQ(s.mcast_unicasts, 0u);
  EXPECT_EQ(s.mcast_retries, 0u);
  EXPECT_EQ(s.mcast_received, 9u * 7);
  EXPECT_EQ(s.mcast_acks, 9u * 7);
  EXPECT_EQ(job->mpi(0).stats().multicast_groups, 1u);
  EXPECT_EQ(job->mpi(3).stats().multicast_bcasts, 3u);
  // Each group message's packets left their root once: the switch made the copies.
  EXPECT_EQ(job->cluster().fabric().counters().frames_broadcast, 3u * 20);
  for (uint32_t a = 0; a < 8; ++a) {
    // Every node landed each message sent by another root exactly once.
    const uint64_t own = a == 0 || a == 3 || a == 5 ? 3 : 0;
    EXPECT_EQ(job->cluster().adapter(a).firmware_counters().rdma_transfers_landed, 9 - own)
        << "adapter " << a;
  }
}

TEST(MpiMulticastTest, LossOnOneLinkIsRepairedByRetriesToThatNodeOnly) {
  const uint32_t lossy = 6;
  auto job = Job(8, 8, 0.1, lossy);
  ASSERT_EQ(BcastRounds(*job, 100'000, {0, 0, 0, 0}), 0);
  const ulp::TransportStats s = Totals(*job);
  const uint64_t messages = 4 * 7;  // 100,000 bytes: seven 16 KiB group messages
  EXPECT_EQ(s.mcast_sends, messages);
  EXPECT_GT(s.mcast_retries, 0u);
  EXPECT_EQ(s.mcast_failed, 0u);
  // The retries went to the node on the lossy link: every other node landed each message once.
  for (uint32_t a = 1; a < 8; ++a) {
    const uint64_t landed = job->cluster().adapter(a).firmware_counters().rdma_transfers_landed;
    if (a == lossy) {
      EXPECT_GE(landed, messages);
    } else {
      EXPECT_EQ(landed, messages) << "adapter " << a;
    }
  }
  EXPECT_EQ(job->transport(lossy).stats().mcast_received, messages);
}

TEST(MpiMulticastTest, MembersTheBroadcastCannotReachGetUnicastWrites) {
  // Two ranks per node: ranks 4..7 sit on window 1, which rank 0's broadcast (window 0) does
  // not address, and rank 4 shares rank 0's node.
  auto job = Job(8, 4);
  ASSERT_EQ(BcastRounds(*job, 20'000, {0}), 0);
  const ulp::TransportStats s = Totals(*job);
  EXPECT_EQ(s.mcast_sends, 2u);
  EXPECT_EQ(s.mcast_unicasts, 2u * 4);
  EXPECT_EQ(s.mcast_received, 2u * 7);
  // The root's timer allows for every write leaving through its link: none is re-sent.
  EXPECT_EQ(s.mcast_retries, 0u);
}

TEST(MpiMulticastTest, ARootWithManyUnicastMembersWaitsForItsQueuedWrites) {
  // 32 ranks on 16 nodes: each 64 KiB group message is one broadcast and 16 unicast writes,
  // and four messages in flight queue 4.4 MB on the root's link. The root's timer counted
  // only this group's messages ahead and was capped at rto_max (2 ms): it re-sent to every
  // member while the first writes were still queued, the re-sends queued ahead of the next
  // messages, and a 1 MiB Bcast never ended.
  auto job = Job(32, 16, 0, 0, 64 * 1024);
  ASSERT_EQ(BcastRounds(*job, 1 << 20, {0}), 0);
  const ulp::TransportStats s = Totals(*job);
  EXPECT_EQ(s.mcast_sends, 16u);
  EXPECT_EQ(s.mcast_unicasts, 16u * 16);
  EXPECT_EQ(s.mcast_received, 16u * 31);
  EXPECT_EQ(s.mcast_retries, 0u);
}

TEST(MpiMulticastTest, NoRankLeavesTheBarrierBeforeTheLastHasEntered) {
  auto job = Job(8, 8);
  std::vector<std::vector<double>> entered(3, std::vector<double>(8)), left = entered;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const int r = m.world().rank;
                   for (int round = 0; round < 3; ++round) {
                     // Rank (round + 2) is late by 50 us.
                     if (r == round + 2) job->Sleep(static_cast<uint32_t>(r), 50'000'000);
                     entered[round][r] = m.Wtime();
                     m.Barrier(m.world());
                     left[round][r] = m.Wtime();
                   }
                 })
                  .ok());
  for (int round = 0; round < 3; ++round) {
    const double last_in = *std::max_element(entered[round].begin(), entered[round].end());
    EXPECT_GE(last_in, 50e-6 * (round + 1) - 1e-12);
    for (int r = 0; r < 8; ++r)
      EXPECT_GE(left[round][r], last_in) << "rank " << r << " round " << round;
  }
  EXPECT_EQ(job->mpi(0).stats().multicast_barriers, 3u);
  EXPECT_EQ(Totals(*job).mcast_sends, 3u);
}

TEST(MpiMulticastTest, AMemberThatMissesABarrierReleaseAsksTheRootForIt) {
  const uint32_t lossy = 4;
  auto job = Job(8, 8, 0.3, lossy);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   for (int round = 0; round < 20; ++round) m.Barrier(m.world());
                 })
                  .ok());
  EXPECT_EQ(job->mpi(0).stats().multicast_barriers, 20u);
  // Releases are signals: never acknowledged, asked for again by the member that missed one.
  const ulp::TransportStats s = Totals(*job);
  EXPECT_EQ(s.mcast_acks, 0u);
  EXPECT_GT(job->transport(lossy).stats().mcast_nacks, 0u);
  EXPECT_GT(s.mcast_retries, 0u);
  // Members kept waiting by the lossy one ask too; the root answers only for a release it has
  // sent (a request that crossed the release on the way gets a second copy, which lands
  // harmlessly: the member has the signal already).
  const uint64_t nacks_elsewhere = s.mcast_nacks - job->transport(lossy).stats().mcast_nacks;
  for (uint32_t a = 1; a < 8; ++a) {
    const uint64_t landed = job->cluster().adapter(a).firmware_counters().rdma_transfers_landed;
    EXPECT_GE(landed, 20u) << "adapter " << a;
    if (a != lossy) {
      EXPECT_LE(landed, 20u + nacks_elsewhere) << "adapter " << a;
    }
  }
}

TEST(MpiMulticastTest, HalfTheFramesOfAMembersLinkLostStillLandsEveryMessage) {
  // 16 KiB group messages of 8 packets, half of each packet's copies to node 6 lost: a retry
  // that started the write over (a newer tid) landed whole about once in 500 tries, and the
  // root gave up. Retries keep the broadcast's tid, so each fills in what is missing, and the
  // root's question with each retry finds the messages whose acknowledgement was lost.
  const uint32_t lossy = 6;
  auto job = Job(8, 8, 0.5, lossy);
  ASSERT_EQ(BcastRounds(*job, 100'000, {0, 0, 0}), 0);
  const ulp::TransportStats s = Totals(*job);
  EXPECT_EQ(s.mcast_failed, 0u);
  EXPECT_GT(s.mcast_queries, 0u);
  EXPECT_EQ(job->transport(lossy).stats().mcast_received, 3u * 7);
}

TEST(MpiMulticastTest, AMemberWaitsOutARootThatIsSlowToRelease) {
  // Rank 0 comes to each barrier 2 s after the others, who ask it for the release all the
  // while (a root that has not sent a signal yet says so); a member that stopped asking after
  // kMcastAttempts questions missed the release on its lossy link and the job stalled.
  const uint32_t lossy = 4;
  auto job = Job(8, 8, 0.3, lossy);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   for (int round = 0; round < 3; ++round) {
                     if (m.world().rank == 0) job->Sleep(0, 2'000'000'000'000);
                     m.Barrier(m.world());
                   }
                 })
                  .ok());
  const ulp::TransportStats s = Totals(*job);
  EXPECT_EQ(s.mcast_failed, 0u);
  EXPECT_GT(s.mcast_not_yet, 0u);
  EXPECT_EQ(job->mpi(0).stats().multicast_barriers, 3u);
}

TEST(MpiMulticastTest, ARootThatGivesUpNamesTheMessageAndTheMembersInTheJobsError) {
  // The only plane goes down after the group is made: the root sends its next message the
  // most times it may and gives up; the job's error says so, not just that it stalled.
  auto job = Job(4, 4);
  const Status run = job->Run([&](mpi::Mpi& m) {
    std::vector<uint8_t> buf(40'000, 7);
    m.Bcast(buf.data(), buf.size(), mpi::kByte, 0, m.world());
    if (m.world().rank == 0) job->cluster().fabric().SetPathDown(0, true);
    m.Bcast(buf.data(), buf.size(), mpi::kByte, 0, m.world());
  });
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.message().find("rank 0 gave up on a group broadcast: group "), std::string::npos)
      << run.message();
  EXPECT_NE(run.message().find(" (16384 B) sent 256 times, never acknowledged by tasks 1, 2, 3"),
            std::string::npos)
      << run.message();
  EXPECT_EQ(job->transport(0).stats().mcast_failed, 1u);
}

TEST(MpiMulticastTest, AMemberThatGivesUpOnASignalNamesItInTheJobsError) {
  // Rank 0 comes to the second barrier a minute late: the members ask it for the release
  // the most times they may (it answers that it has not sent it yet) and give up.
  auto job = Job(4, 4);
  const Status run = job->Run([&](mpi::Mpi& m) {
    m.Barrier(m.world());
    if (m.world().rank == 0) job->Sleep(0, 60'000'000'000'000);
    m.Barrier(m.world());
  });
  ASSERT_FALSE(run.ok());
  for (int member = 1; member < 4; ++member) {
    EXPECT_NE(run.message().find("rank " + std::to_string(member) +
                                 " gave up on a group broadcast: group "),
              std::string::npos)
        << run.message();
  }
  EXPECT_NE(run.message().find(" from task 0 asked for 16384 times ("), std::string::npos)
      << run.message();
  EXPECT_EQ(job->transport(1).stats().mcast_failed, 1u);
}

TEST(MpiMulticastTest, ARootReusesASlotOnlyOnceItsLastMessageIsAcknowledged) {
  // A member on a lossy link lags: the root must not write a fifth message into the slot of
  // one that member has not acknowledged, and a release the member missed is overtaken by
  // later messages rather than lost. Seeds 1..4 of fabric draws, every byte checked.
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    MpiJobConfig c;
    c.cluster.backend = BackendKind::kFunc;
    c.ranks = 8;
    c.cluster.nodes = 8;
    c.cluster.seed = seed;
    c.mpi.bcast = mpi::CollectiveTransport::kMulticast;
    c.mpi.mcast_slot_bytes = kSlot;
    FaultRates loss;
    loss.loss = 0.15;
    AddLinkFaults(c.cluster, 3, loss);
    Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
    ASSERT_TRUE(job.ok()) << job.status().message();
    int wrong = 0;
    ASSERT_TRUE((*job)
                    ->Run([&](mpi::Mpi& m) {
                      using mpi::kByte;
                      for (int round = 0; round < 5; ++round) {
                        m.Barrier(m.world());
                        std::vector<uint8_t> buf(100'000);
                        if (m.world().rank == 0) {
                          for (size_t i = 0; i < buf.size(); ++i) buf[i] = RoundByte(i, round);
                        }
                        m.Bcast(buf.data(), buf.size(), kByte, 0, m.world());
                        for (size_t i = 0; i < buf.size(); ++i) {
                          if (buf[i] != RoundByte(i, round)) {
                            ++wrong;
                            break;
                          }
                        }
                      }
                    })
                    .ok())
        << "seed " << seed;
    EXPECT_EQ(wrong, 0) << "seed " << seed;
    EXPECT_EQ(Totals(**job).mcast_failed, 0u) << "seed " << seed;
  }
}

TEST(MpiMulticastTest, SmallBroadcastsGoOverTheTree) {
  auto job = Job(8, 8);
  ASSERT_EQ(BcastRounds(*job, 100, {0, 1}), 0);
  EXPECT_EQ(Totals(*job).mcast_sends, 0u);
  EXPECT_EQ(job->mpi(0).stats().multicast_bcasts, 0u);
}

}  // namespace
}  // namespace nicsim::sim
