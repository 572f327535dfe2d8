// SPDX-License-Identifier: Apache-2.0
// MPI between ranks of one node through the push-pull path (mpi.intranode=pushpull): in every
// mode each size around BTP1, BTP1 + BTP2 and the eager limit arrives exact, pushed and pulled
// bytes add up to the byte, local messages never touch the transport while remote ones do,
// messages reach MPI in the order sent, and a run is the same every time.
#include <gtest/gtest.h>

#include <numeric>

#include "sim/cluster/mpi_job.h"
#include "tests/ulp/mpi_path_support.h"
#include "sim/workloads/mpi_workloads.h"

namespace nicsim::sim {
namespace {

using testing_paths::Pattern;
using testing_paths::Settle;
using testing_paths::TransportMessages;

using mpi::Base;
using mpi::Datatype;
using ulp::pushpull::Mode;

using mpi::kByte;
constexpr size_t kEagerLimit = 16 * 1024;
/** The path's (wire, tag) header in front of every message. */
constexpr uint64_t kHeader = 8;
/** The MPI layer's rendezvous request (bytes, id) and clear to send (id), headers included. */
constexpr uint64_t kRts = 16 + kHeader;
constexpr uint64_t kCts = 8 + kHeader;

std::unique_ptr<MpiJob> Job(uint32_t ranks, uint32_t nodes, ulp::pushpull::Params pushpull = {},
                            double copy_ps_per_byte = 0) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = ranks;
  c.cluster.nodes = nodes;
  c.cluster.microcode.rcxts = 2048;
  c.mpi.eager_limit = kEagerLimit;
  c.mpi.intranode = mpi::IntranodeTransport::kPushPull;
  c.pushpull = pushpull;
  c.copy_ps_per_byte = copy_ps_per_byte;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

ulp::pushpull::Params InMode(Mode mode) {
  ulp::pushpull::Params p;
  p.mode = mode;
  return p;
}

ulp::pushpull::SenderStats SenderTotals(const MpiJob& job) {
  ulp::pushpull::SenderStats s;
  for (uint32_t r = 0; r < job.ranks(); ++r) s += job.pushpull(r)->sender_stats();
  return s;
}

ulp::pushpull::ReceiverStats ReceiverTotals(const MpiJob& job) {
  ulp::pushpull::ReceiverStats s;
  for (uint32_t r = 0; r < job.ranks(); ++r) s += job.pushpull(r)->receiver_stats();
  return s;
}

uint64_t Delivered(const MpiJob& job) {
  uint64_t n = 0;
  for (uint32_t r = 0; r < job.ranks(); ++r) n += job.pushpull(r)->delivered();
  return n;
}

// With the defaults (BTP1 64, BTP2 960) and the 8-byte header: sizes around BTP1, around
// BTP1 + BTP2, around the eager limit, and rendezvous data of one and of two pull rounds.
const std::vector<size_t> kSizes = {0,    1,     55,    56,    57,     1015,  1016,
                                    1017, 16383, 16384, 16385, 100000, 300000};

TEST(MpiPushPullPathTest, EverySizeArrivesExactInEveryModeWithExactPushedAndPulledBytes) {
  for (Mode mode : {Mode::kPushPull, Mode::kPushAll, Mode::kPushZero}) {
    SCOPED_TRACE(ulp::pushpull::ToString(mode));
    const ulp::pushpull::Params params = InMode(mode);
    auto job = Job(2, 1, params);
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
    // Every path message, with the bytes the engine moves for it.
    std::vector<uint64_t> messages;
    uint64_t eager = 0, rendezvous = 0;
    for (size_t size : kSizes) {
      if (size <= kEagerLimit) {
        messages.push_back(size + kHeader);
        ++eager;
      } else {
        messages.insert(messages.end(), {kRts, kCts, size + kHeader});
        ++rendezvous;
      }
    }
    uint64_t pushed = 0, pulled = 0, rounds = 0;
    for (uint64_t n : messages) {
      pushed += params.PushedBytesOf(n);
      const uint64_t rest = n - params.PushedBytesOf(n);
      pulled += rest;
      rounds += (rest + params.pull_round_bytes - 1) / params.pull_round_bytes;
    }
    EXPECT_EQ(job->mpi(0).stats().eager_sends, eager);
    EXPECT_EQ(job->mpi(0).stats().rendezvous_sends, rendezvous);
    EXPECT_EQ(job->mpi(0).stats().intranode_messages + job->mpi(1).stats().intranode_messages,
              messages.size());
    const ulp::pushpull::SenderStats s = SenderTotals(*job);
    const ulp::pushpull::ReceiverStats r = ReceiverTotals(*job);
    EXPECT_EQ(s.messages_accepted, messages.size());
    EXPECT_EQ(s.messages_completed, messages.size());
    EXPECT_EQ(s.first_pushes, messages.size());
    EXPECT_EQ(r.receives_completed, messages.size());
    EXPECT_EQ(Delivered(*job), messages.size());
    // A buffer is posted as each first push arrives: every pushed byte is copied once, straight
    // into it, and the rest moves in pull rounds, each one copy.
    EXPECT_EQ(r.arrival_posts, messages.size());
    EXPECT_EQ(r.early_matches, messages.size());
    EXPECT_EQ(r.late_matches, 0u);
    EXPECT_EQ(s.bytes_pushed, pushed);
    EXPECT_EQ(r.pushed_bytes_direct, pushed);
    EXPECT_EQ(r.pushed_bytes_buffered, 0u);
    EXPECT_EQ(s.bytes_pulled, pulled);
    EXPECT_EQ(r.bytes_pulled, pulled);
    EXPECT_EQ(s.zero_copy_rounds, rounds);
    EXPECT_EQ(s.zero_copy_fallbacks, 0u);
    EXPECT_EQ(r.bytes_delivered, pushed + pulled);
    if (mode == Mode::kPushAll) {
      EXPECT_EQ(pulled, 0u);
    }
    if (mode == Mode::kPushZero) {
      EXPECT_EQ(pushed, 0u);
    }
    EXPECT_EQ(job->pushpull(0)->in_flight() + job->pushpull(1)->in_flight(), 0u);
  }
}

TEST(MpiPushPullPathTest, AShortMessageWaitsForTheLongerOneSentBeforeIt) {
  // The short message is pushed whole and complete while the long one is still being pulled:
  // MPI must still see the long one first (both match the same receive).
  // Rounds of one page: the long messages take several, and the short one completes between.
  ulp::pushpull::Params p;
  p.pull_round_bytes = 4096;
  auto job = Job(2, 1, p, /*copy_ps_per_byte=*/0.3);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   const size_t big = 200000, small = 10;
                   if (w.rank == 0) {
                     const std::vector<uint8_t> a = Pattern(big, 0, 1), b = Pattern(small, 0, 2);
                     const std::vector<uint8_t> c = Pattern(big, 0, 3);
                     mpi::Mpi::Request r1 = m.Isend(a.data(), big, kByte, 1, 5, w);
                     mpi::Mpi::Request r2 = m.Isend(b.data(), small, kByte, 1, 5, w);
                     m.Waitall({r1, r2});
                     // Eager too: an eager message above BTP1 + BTP2 overtaken by a short one.
                     const std::vector<uint8_t> d = Pattern(9000, 0, 4);
                     mpi::Mpi::Request r3 = m.Isend(d.data(), d.size(), kByte, 1, 6, w);
                     mpi::Mpi::Request r4 = m.Isend(b.data(), small, kByte, 1, 6, w);
                     m.Waitall({r3, r4});
                   } else {
                     std::vector<uint8_t> in(big);
                     mpi::Status s = m.Recv(in.data(), big, kByte, 0, 5, w);
                     EXPECT_EQ(s.bytes, big);
                     EXPECT_EQ(in, Pattern(big, 0, 1));
                     s = m.Recv(in.data(), big, kByte, 0, 5, w);
                     EXPECT_EQ(s.bytes, small);
                     s = m.Recv(in.data(), big, kByte, 0, 6, w);
                     EXPECT_EQ(s.bytes, 9000u);
                     in.resize(9000);
                     EXPECT_EQ(in, Pattern(9000, 0, 4));
                     s = m.Recv(in.data(), 9000, kByte, 0, 6, w);
                     EXPECT_EQ(s.bytes, small);
                   }
                 })
                  .ok());
  Settle(*job);
  EXPECT_EQ(TransportMessages(*job), 0u);
  EXPECT_EQ(Delivered(*job), SenderTotals(*job).messages_accepted);
}

TEST(MpiPushPullPathTest, LocalPairsUsePushPullAndRemotePairsTheTransport) {
  // 6 ranks on 2 nodes: ranks 0, 2, 4 on node 0 and 1, 3, 5 on node 1.
  auto job = Job(6, 2);
  const size_t size = 3000;  // past BTP1 + BTP2: pushed and pulled
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
  Settle(*job);
  // Each rank sends one eager message to every other rank: 2 on its node, 3 on the other.
  const ulp::pushpull::SenderStats s = SenderTotals(*job);
  EXPECT_EQ(s.messages_accepted, 6u * 2);
  EXPECT_EQ(Delivered(*job), 6u * 2);
  EXPECT_EQ(s.bytes_pushed, 6u * 2 * 1024);
  EXPECT_EQ(s.bytes_pulled, 6u * 2 * (size + kHeader - 1024));
  EXPECT_EQ(TransportMessages(*job), 6u * 3);
}

TEST(MpiPushPullPathTest, TheSameJobTakesTheSameSimulatedTimeEveryRun) {
  for (Mode mode : {Mode::kPushPull, Mode::kPushAll, Mode::kPushZero}) {
    SCOPED_TRACE(ulp::pushpull::ToString(mode));
    auto run = [mode] {
      ulp::pushpull::Params p = InMode(mode);
      p.pushed_slots = 1;  // pushes wait for slots too
      auto job = Job(4, 1, p, 0.3);
      uint64_t end = 0;
      const Status s = job->Run([&](mpi::Mpi& m) {
        std::vector<uint8_t> in(40000 * 4), out(40000 * 4, static_cast<uint8_t>(m.world().rank));
        m.Alltoall(out.data(), 40000, kByte, in.data(), m.world());
        m.Barrier(m.world());
        end = m.world().rank == 0 ? job->cluster().events().now_ps() : end;
      });
      EXPECT_TRUE(s.ok()) << s.message();
      const ulp::pushpull::SenderStats st = SenderTotals(*job);
      return std::make_tuple(end, st.push_waits, st.bytes_pushed, st.bytes_pulled);
    };
    const auto first = run();
    EXPECT_GT(std::get<0>(first), 0u);
    EXPECT_EQ(run(), first);
  }
}

TEST(MpiPushPullPathTest, CopiesTakeTheCpuThatMakesThem) {
  // One 1 MiB rendezvous message at 1 ps/B: the pull (the sender's copy) alone takes about
  // 1 us per MiB; a run with free copies is faster by at least that.
  auto elapsed = [](double ps_per_byte) {
    auto job = Job(2, 1, ulp::pushpull::Params{}, ps_per_byte);
    uint64_t end = 0;
    const size_t size = 1 << 20;
    EXPECT_TRUE(job->Run([&](mpi::Mpi& m) {
                     std::vector<uint8_t> buf(size, 1);
                     if (m.world().rank == 0) {
                       m.Send(buf.data(), size, kByte, 1, 0, m.world());
                     } else {
                       m.Recv(buf.data(), size, kByte, 0, 0, m.world());
                       end = job->cluster().events().now_ps();
                     }
                   })
                    .ok());
    return end;
  };
  const uint64_t free_ps = elapsed(0), paid_ps = elapsed(1.0);
  EXPECT_GE(paid_ps - free_ps, uint64_t{1} << 20);
}

TEST(MpiPushPullPathTest, PingPongWorkloadReportsThePathsCountersAndPassesTheExactlyOnceCheck) {
  auto job = Job(2, 1, ulp::pushpull::Params{}, 0.3);
  MpiPingPongConfig c;
  c.sizes = {0, 1024, 1 << 20};
  c.iterations = 5;
  c.bandwidth_messages = 8;
  c.window = 4;
  Result<WorkloadResult> r = RunMpiPingPong(*job, c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->passed());
  EXPECT_EQ(r->messages_lost, 0u);
  const nlohmann::json& pp = r->results["mpi"]["pushpull"];
  ASSERT_TRUE(pp.is_object());
  EXPECT_TRUE(r->results["mpi"]["postbox"].is_null());
  EXPECT_EQ(pp["in_flight"].get<uint64_t>(), 0u);
  EXPECT_GT(pp["polls"].get<uint64_t>(), 0u);
  EXPECT_EQ(pp["messages_accepted"].get<uint64_t>(), Delivered(*job));
  EXPECT_EQ(pp["receives_completed"].get<uint64_t>(), Delivered(*job));
  EXPECT_EQ(pp["bytes_pulled_served"].get<uint64_t>(), pp["bytes_pulled"].get<uint64_t>());
  EXPECT_EQ(pp["bytes_pushed"].get<uint64_t>(), pp["pushed_bytes_direct"].get<uint64_t>());
  // Every counter of both tables, under its own name.
  EXPECT_EQ(pp.size(), 2 + ulp::pushpull::SenderStats::Fields().size() +
                           ulp::pushpull::ReceiverStats::Fields().size());
  EXPECT_EQ(TransportMessages(*job), 0u);
}

}  // namespace
}  // namespace nicsim::sim
