// SPDX-License-Identifier: Apache-2.0
// MPI semantics on the simulated cluster: matching order, wildcards, unexpected messages,
// rendezvous with a late receiver, datatypes, communicators, and every collective against a
// serial reference on 1..16 ranks.
#include <gtest/gtest.h>

#include <numeric>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

using mpi::Base;
using mpi::Datatype;

std::unique_ptr<MpiJob> Job(uint32_t ranks, uint32_t nodes = 0, uint64_t eager = 64 * 1024) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = ranks;
  c.cluster.nodes = nodes ? nodes : std::max<uint32_t>(1, std::min<uint32_t>(ranks, 8));
  c.cluster.microcode.rcxts = 2048;
  c.mpi.eager_limit = eager;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

const Datatype kInt = Datatype::Of(Base::kInt32);
const Datatype kDouble = Datatype::Of(Base::kDouble);

TEST(MpiTest, MessagesFromOneSourceMatchInSendOrder) {
  auto job = Job(2);
  std::vector<int> got;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   if (w.rank == 0) {
                     for (int i = 0; i < 20; ++i) m.Send(&i, 1, kInt, 1, 5, w);
                   } else {
                     for (int i = 0; i < 20; ++i) {
                       int v = -1;
                       m.Recv(&v, 1, kInt, 0, 5, w);
                       got.push_back(v);
                     }
                   }
                 })
                  .ok());
  std::vector<int> want(20);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(got, want);
}

TEST(MpiTest, APassedWallDeadlineFailsTheJobWhileTheSimulatorRuns) {
  auto job = Job(2);
  // Already passed: the first window's end must stop the run, whatever the ranks are doing.
  job->SetWallDeadline(std::chrono::steady_clock::now(), "the wall-clock limit passed");
  std::vector<uint8_t> buf(1 << 20);
  bool received = false;
  const Status run = job->Run([&](mpi::Mpi& m) {
    const auto& w = m.world();
    if (w.rank == 0) {
      m.Send(buf.data(), buf.size(), mpi::kByte, 1, 1, w);
    } else {
      m.Recv(buf.data(), buf.size(), mpi::kByte, 0, 1, w);
      received = true;
    }
  });
  EXPECT_FALSE(run.ok());
  EXPECT_NE(run.message().find("the wall-clock limit passed"), std::string::npos) << run.message();
  EXPECT_FALSE(received);
  // Without a deadline the same job runs to the end.
  job->SetWallDeadline(std::nullopt, "");
  auto again = Job(2);
  EXPECT_TRUE(again
                  ->Run([&](mpi::Mpi& m) {
                    const auto& w = m.world();
                    if (w.rank == 0) {
                      m.Send(buf.data(), buf.size(), mpi::kByte, 1, 1, w);
                    } else {
                      m.Recv(buf.data(), buf.size(), mpi::kByte, 0, 1, w);
                    }
                  })
                  .ok());
}

TEST(MpiTest, WildcardsMatchAnySourceAndTagAndReportThem) {
  auto job = Job(4);
  std::vector<std::pair<int, int>> seen;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   if (w.rank != 0) {
                     const int v = w.rank * 10;
                     m.Send(&v, 1, kInt, 0, 100 + w.rank, w);
                     return;
                   }
                   for (int i = 0; i < 3; ++i) {
                     int v = 0;
                     const mpi::Status s = m.Recv(&v, 1, kInt, mpi::kAnySource, mpi::kAnyTag, w);
                     EXPECT_EQ(v, s.source * 10);
                     EXPECT_EQ(s.tag, 100 + s.source);
                     seen.push_back({s.source, s.tag});
                   }
                 })
                  .ok());
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::pair<int, int>>{{1, 101}, {2, 102}, {3, 103}}));
}

TEST(MpiTest, UnexpectedMessagesWaitAndMatchByTag) {
  auto job = Job(2);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   if (w.rank == 0) {
                     for (int tag : {3, 1, 2}) m.Send(&tag, 1, kInt, 1, tag, w);
                     int go = 1;
                     m.Send(&go, 1, kInt, 1, 9, w);
                     return;
                   }
                   // Receive the go message first: the three others are unexpected by then.
                   int go = 0;
                   m.Recv(&go, 1, kInt, 0, 9, w);
                   EXPECT_EQ(m.unexpected_queued(), 3u);
                   for (int tag : {1, 2, 3}) {
                     int v = 0;
                     m.Recv(&v, 1, kInt, 0, tag, w);
                     EXPECT_EQ(v, tag);
                   }
                   EXPECT_EQ(m.unexpected_queued(), 0u);
                 })
                  .ok());
}

TEST(MpiTest, RendezvousWaitsForALateReceiverAndMovesEveryByte) {
  auto job = Job(2, 2, 4096);
  const size_t n = 3 << 20;  // 3 MiB of doubles: rendezvous, moved by RDMA
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   std::vector<double> buf(n / 8);
                   if (w.rank == 0) {
                     for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<double>(i) * 0.5;
                     const double t0 = m.Wtime();
                     m.Send(buf.data(), buf.size(), kDouble, 1, 7, w);
                     // The receiver posts late: the send cannot finish before it does.
                     EXPECT_GT(m.Wtime() - t0, 0.0005);
                   } else {
                     int dummy = 0;
                     // Wait half a millisecond of simulated time by exchanging with ourselves... a
                     // late post.
                     mpi::Mpi::Request late = m.Irecv(&dummy, 1, kInt, 1, 99, w);
                     const double t0 = m.Wtime();
                     while (m.Wtime() - t0 < 0.0005)
                       m.Sendrecv(&dummy, 1, kInt, 1, 98, &dummy, 1, kInt, 1, 98, w);
                     m.Send(&dummy, 1, kInt, 1, 99, w);
                     m.Wait(late);
                     const mpi::Status s = m.Recv(buf.data(), buf.size(), kDouble, 0, 7, w);
                     EXPECT_EQ(s.bytes, n);
                     for (size_t i = 0; i < buf.size(); ++i)
                       ASSERT_EQ(buf[i], static_cast<double>(i) * 0.5) << i;
                   }
                 })
                  .ok());
  EXPECT_EQ(job->mpi(0).stats().rendezvous_sends, 1u);
  EXPECT_GT(job->transport(0).stats().rdma_messages, 0u);
}

TEST(MpiTest, ALargeMessageTakesOneHandshakeTheAnnouncementAndTheDoneNotice) {
  auto job = Job(2);
  constexpr size_t kBytes = 1 << 20;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   std::vector<uint8_t> buf(kBytes);
                   if (w.rank == 0) {
                     for (size_t i = 0; i < kBytes; ++i) buf[i] = static_cast<uint8_t>(i * 7);
                     m.Send(buf.data(), kBytes, mpi::kByte, 1, 7, w);
                   } else {
                     EXPECT_EQ(m.Recv(buf.data(), kBytes, mpi::kByte, 0, 7, w).bytes, kBytes);
                     for (size_t i = 0; i < kBytes; ++i)
                       ASSERT_EQ(buf[i], static_cast<uint8_t>(i * 7)) << i;
                   }
                 })
                  .ok());
  EXPECT_EQ(job->mpi(0).stats().rendezvous_sends, 1u);
  EXPECT_EQ(job->mpi(0).stats().rendezvous_by_request, 0u);
  // One transport message, pulled by RDMA once matched: the sender's one packet is the
  // announcement (its RTS), the receiver's the done notice; the rest are RDMA and acks.
  const ulp::TransportStats& tx = job->transport(0).stats();
  const ulp::TransportStats& rx = job->transport(1).stats();
  EXPECT_EQ(tx.messages_sent + rx.messages_sent, 1u);
  EXPECT_EQ(tx.rdma_messages, 1u);
  EXPECT_EQ(tx.packets_sent, 1u);
  EXPECT_EQ(rx.packets_sent, 1u);
  EXPECT_EQ(tx.retransmits + rx.retransmits + tx.fallbacks + rx.fallbacks, 0u);
}

TEST(MpiTest, VectorDatatypePacksStridedBlocks) {
  auto job = Job(2);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   // A column of a 4x5 row-major matrix: 4 blocks of 1, stride 5.
                   const Datatype column = Datatype::Vector(4, 1, 5, Base::kInt32);
                   std::vector<int> matrix(20);
                   if (w.rank == 0) {
                     std::iota(matrix.begin(), matrix.end(), 0);
                     m.Send(matrix.data() + 2, 1, column, 1, 0, w);
                   } else {
                     std::vector<int> col(4, -1);
                     const mpi::Status s = m.Recv(col.data(), 4, kInt, 0, 0, w);
                     EXPECT_EQ(s.Count(kInt), 4u);
                     EXPECT_EQ(col, (std::vector<int>{2, 7, 12, 17}));
                   }
                 })
                  .ok());
}

TEST(MpiTest, AnEagerSendTakesItsBytesWhenItReturns) {
  auto job = Job(2);
  std::vector<int> got;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   if (w.rank == 0) {
                     std::vector<mpi::Mpi::Request> sends;
                     std::vector<int> v(256);
                     for (int i = 0; i < 4; ++i) {
                       std::iota(v.begin(), v.end(), i * 1000);
                       sends.push_back(m.Isend(v.data(), v.size(), kInt, 1, 3, w));
                       std::fill(v.begin(), v.end(),
                                 -1);  // the caller may reuse its buffer at once
                     }
                     m.Waitall(sends);
                   } else {
                     std::vector<int> in(256);
                     for (int i = 0; i < 4; ++i) {
                       m.Recv(in.data(), in.size(), kInt, 0, 3, w);
                       got.insert(got.end(), in.begin(), in.end());
                     }
                   }
                 })
                  .ok());
  std::vector<int> want;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 256; ++j) want.push_back(i * 1000 + j);
  }
  EXPECT_EQ(got, want);
  // One counted CPU copy per eager send: out of the buffer into staging memory.
  EXPECT_EQ(job->mpi(0).stats().eager_sends, 4u);
  EXPECT_EQ(job->mpi(0).stats().host_copies, 4u);
}

TEST(MpiTest, ReduceTakesAStridedInputAndAResultBufferThatIsTheInput) {
  auto job = Job(5);
  std::vector<int> column_sums, in_place;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   // Column 1 of a 3x4 row-major matrix: 3 blocks of 1, stride 4.
                   const Datatype column = Datatype::Vector(3, 1, 4, Base::kInt32);
                   std::vector<int> matrix(12);
                   std::iota(matrix.begin(), matrix.end(), 100 * w.rank);
                   // The result lands in the same column of the root's matrix; the rest stays as it
                   // was.
                   std::vector<int> sums(12, -1);
                   m.Reduce(matrix.data() + 1, sums.data() + 1, 1, column, mpi::Op::kSum, 2, w);
                   std::vector<int> both = {w.rank, 10 * w.rank};
                   m.Reduce(both.data(), both.data(), 2, kInt, mpi::Op::kSum, 2, w);
                   if (w.rank == 2) {
                     column_sums = sums;
                     in_place = both;
                   }
                 })
                  .ok());
  // Element j of rank r's column is 100 r + 4 j + 1; ranks 0..4 sum to 1000 + 5 (4 j + 1).
  EXPECT_EQ(column_sums, (std::vector<int>{-1, 1005, -1, -1, -1, 1025, -1, -1, -1, 1045, -1, -1}));
  EXPECT_EQ(in_place, (std::vector<int>{10, 100}));
}

TEST(MpiTest, SplitAndDupMakeIndependentCommunicators) {
  auto job = Job(6);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   const mpi::Comm half =
                       m.Split(w, w.rank % 2, -w.rank);  // key reverses the order
                   EXPECT_EQ(half.size(), 3);
                   EXPECT_EQ(half.group->World(0), w.rank % 2 == 0 ? 4 : 5);
                   EXPECT_EQ(half.group->RankOf(w.rank % 2 == 0 ? 0 : 1), 2);
                   EXPECT_EQ(half.group->RankOf(w.rank % 2 == 0 ? 1 : 0), -1);
                   const mpi::Comm dup = m.Dup(half);
                   int v = w.rank, sum = 0;
                   m.Allreduce(&v, &sum, 1, kInt, mpi::Op::kSum, dup);
                   EXPECT_EQ(sum, w.rank % 2 == 0 ? 0 + 2 + 4 : 1 + 3 + 5);
                 })
                  .ok());
}

TEST(MpiTest, IdupNeedsNoOtherMemberAndItsCommunicatorsAreIndependent) {
  auto job = Job(4);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   // Rank 0 duplicates only after every other rank's message, which each
                   // sends after its own duplicate: a duplicate that waited for the members
                   // would deadlock here.
                   mpi::Comm first;
                   if (w.rank == 0) {
                     for (int r = 1; r < w.size(); ++r) {
                       int v = 0;
                       m.Recv(&v, 1, kInt, r, 0, w);
                       EXPECT_EQ(v, r);
                     }
                     first = m.Idup(w);
                   } else {
                     first = m.Idup(w);
                     m.Send(&w.rank, 1, kInt, 0, 0, w);
                   }
                   // Ten more: the eight set aside for the world's context, then collective
                   // ones, and one of a duplicate (collective too). Every context differs.
                   std::vector<mpi::Comm> comms = {w, first};
                   for (int i = 0; i < 10; ++i) comms.push_back(m.Idup(w));
                   comms.push_back(m.Idup(first));
                   for (size_t a = 0; a < comms.size(); ++a) {
                     for (size_t b = a + 1; b < comms.size(); ++b) {
                       EXPECT_NE(comms[a].context, comms[b].context) << a << " " << b;
                     }
                   }
                   // Each carries its own traffic: the sums differ by communicator.
                   for (size_t i = 0; i < comms.size(); ++i) {
                     int v = w.rank + static_cast<int>(i), sum = 0;
                     m.Allreduce(&v, &sum, 1, kInt, mpi::Op::kSum, comms[i]);
                     EXPECT_EQ(sum, 6 + 4 * static_cast<int>(i));
                   }
                 })
                  .ok());
}

TEST(MpiTest, DeadlockIsReportedWithTheBlockedRanks) {
  auto job = Job(2);
  const Status s = job->Run([&](mpi::Mpi& m) {
    int v = 0;
    m.Recv(&v, 1, kInt, 1 - m.world().rank, 0, m.world());  // both receive first
  });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ranks 0, 1"), std::string::npos) << s.message();
}

class CollectiveTest : public ::testing::TestWithParam<int> {};

TEST_P(CollectiveTest, EveryCollectiveMatchesASerialReference) {
  const int n = GetParam();
  auto job = Job(static_cast<uint32_t>(n));
  ASSERT_TRUE(
      job->Run([&](mpi::Mpi& m) {
           const auto& w = m.world();
           const int r = w.rank;
           m.Barrier(w);
           // Bcast from the last rank.
           std::vector<int> b(5, r == n - 1 ? 42 : 0);
           m.Bcast(b.data(), 5, kInt, n - 1, w);
           EXPECT_EQ(b, std::vector<int>(5, 42));
           // Reduce and allreduce: sum, max, min, prod.
           const int count = 3;
           std::vector<int> mine = {r + 1, 2 * r, (r % 3) + 1};
           for (mpi::Op op : {mpi::Op::kSum, mpi::Op::kMax, mpi::Op::kMin, mpi::Op::kProd}) {
             std::vector<int> want(count);
             for (int i = 0; i < count; ++i) {
               int acc = op == mpi::Op::kSum    ? 0
                         : op == mpi::Op::kProd ? 1
                                                : (op == mpi::Op::kMax ? INT32_MIN : INT32_MAX);
               for (int k = 0; k < n; ++k) {
                 const int v = i == 0 ? k + 1 : i == 1 ? 2 * k : (k % 3) + 1;
                 // Sums and products wrap on overflow (16! does not fit an int).
                 const auto u = static_cast<uint32_t>(acc), uv = static_cast<uint32_t>(v);
                 acc = op == mpi::Op::kSum    ? static_cast<int>(u + uv)
                       : op == mpi::Op::kProd ? static_cast<int>(u * uv)
                       : op == mpi::Op::kMax  ? std::max(acc, v)
                                              : std::min(acc, v);
               }
               want[i] = acc;
             }
             std::vector<int> got(count, -7);
             m.Reduce(mine.data(), got.data(), count, kInt, op, 0, w);
             if (r == 0) {
               EXPECT_EQ(got, want);
             }
             std::vector<int> all(count, -7);
             m.Allreduce(mine.data(), all.data(), count, kInt, op, w);
             EXPECT_EQ(all, want);
           }
           // Doubles that add exactly.
           double d = 0.25 * r, dsum = 0;
           m.Allreduce(&d, &dsum, 1, kDouble, mpi::Op::kSum, w);
           EXPECT_EQ(dsum, 0.25 * n * (n - 1) / 2);
           // Gather / scatter / allgather / alltoall.
           std::vector<int> pair = {r, -r};
           std::vector<int> gathered(2 * n, 0);
           m.Gather(pair.data(), 2, kInt, gathered.data(), 0, w);
           std::vector<int> want_g;
           for (int k = 0; k < n; ++k) want_g.insert(want_g.end(), {k, -k});
           if (r == 0) {
             EXPECT_EQ(gathered, want_g);
           }
           std::vector<int> all_g(2 * n, 0);
           m.Allgather(pair.data(), 2, kInt, all_g.data(), w);
           EXPECT_EQ(all_g, want_g);
           std::vector<int> to_scatter(2 * n);
           for (int k = 0; k < 2 * n; ++k) to_scatter[k] = 100 + k;
           std::vector<int> piece(2, 0);
           m.Scatter(to_scatter.data(), 2, kInt, piece.data(), 0, w);
           EXPECT_EQ(piece, (std::vector<int>{100 + 2 * r, 101 + 2 * r}));
           std::vector<int> send(n), recv(n, -1);
           for (int k = 0; k < n; ++k) send[k] = r * 1000 + k;
           m.Alltoall(send.data(), 1, kInt, recv.data(), w);
           for (int k = 0; k < n; ++k) EXPECT_EQ(recv[k], k * 1000 + r);
         })
          .ok());
}

INSTANTIATE_TEST_SUITE_P(Ranks, CollectiveTest, ::testing::Values(1, 2, 3, 5, 8, 16));

TEST(MpiTest, ALongBroadcastIsScatteredThenPassedAroundTheRing) {
  // 5 ranks, root 3, a strided buffer of 150,001 ints (600,004 bytes packed): the root sends
  // each rank its piece, then the pieces go around the ring.
  constexpr int kRanks = 5;
  constexpr size_t kCount = 150001;
  auto job = Job(kRanks);
  const Datatype every_other = Datatype::Vector(kCount, 1, 2, Base::kInt32);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   std::vector<int> buf(2 * kCount - 1, -1);
                   if (w.rank == 3) {
                     for (size_t i = 0; i < kCount; ++i) buf[2 * i] = static_cast<int>(i * 7 + 1);
                   }
                   m.Bcast(buf.data(), 1, every_other, 3, w);
                   for (size_t i = 0; i < buf.size(); ++i) {
                     ASSERT_EQ(buf[i], i % 2 == 0 ? static_cast<int>(i / 2 * 7 + 1) : -1)
                         << w.rank << " " << i;
                   }
                 })
                  .ok());
  // The scatter's 4 messages, then 4 ring steps of 5 ranks: a binomial tree sends 4.
  uint64_t sent = 0;
  for (uint32_t r = 0; r < kRanks; ++r) sent += job->transport(r).stats().messages_sent;
  EXPECT_EQ(sent, 4u + 4u * kRanks);
}

TEST(MpiTest, ALongAllreduceReducesAroundTheRingInPlaceAndStrided) {
  // 6 ranks: a dense sum in place (the result buffer is the input), a strided max, and the
  // byte-level form with an op that does not commute, which keeps the rank-order tree.
  constexpr int kRanks = 6;
  constexpr size_t kCount = 200003;  // 800,012 bytes: pieces of whole ints, the last longer
  auto job = Job(kRanks);
  const Datatype every_other = Datatype::Vector(kCount, 1, 2, Base::kInt32);
  ASSERT_TRUE(
      job->Run([&](mpi::Mpi& m) {
           const auto& w = m.world();
           std::vector<int> v(kCount);
           for (size_t i = 0; i < kCount; ++i) v[i] = static_cast<int>(i) * (w.rank + 1);
           m.Allreduce(v.data(), v.data(), kCount, kInt, mpi::Op::kSum, w);
           for (size_t i = 0; i < kCount; ++i) {
             ASSERT_EQ(v[i], static_cast<int>(i) * kRanks * (kRanks + 1) / 2) << w.rank << " " << i;
           }
           std::vector<int> in(2 * kCount - 1, -5), out(2 * kCount - 1, -9);
           for (size_t i = 0; i < kCount; ++i) in[2 * i] = static_cast<int>((i + w.rank) % 11);
           m.Allreduce(in.data(), out.data(), 1, every_other, mpi::Op::kMax, w);
           // The largest of (i + r) % 11 over r = 0..5: i % 11 + 5, or 10 once that wraps past it.
           for (size_t i = 0; i < out.size(); ++i) {
             const int want =
                 i % 2 != 0 ? -9 : static_cast<int>(std::min<size_t>(i / 2 % 11 + 5, 10));
             ASSERT_EQ(out[i], want) << w.rank << " " << i;
           }
           // Affine maps x -> a x + b (mod 256) as byte pairs (a, b), composed: associative, and
           // the result says in which order the ranks' maps were composed.
           auto compose = [](uint8_t* acc, const uint8_t* map) {
             const uint8_t a = acc[0], b = acc[1];
             acc[0] = static_cast<uint8_t>(a * map[0]);
             acc[1] = static_cast<uint8_t>(a * map[1] + b);
           };
           mpi::Combiner in_rank_order{[compose](uint8_t* acc, const uint8_t* maps, size_t n) {
                                         for (size_t i = 0; i + 1 < n; i += 2)
                                           compose(acc + i, maps + i);
                                       },
                                       false, 2};
           std::vector<uint8_t> bytes(600000), result(600000);
           for (size_t i = 0; i < bytes.size(); i += 2) {
             bytes[i] = static_cast<uint8_t>(w.rank + 2);
             bytes[i + 1] = static_cast<uint8_t>(w.rank + 1);
           }
           m.AllreduceBytes(bytes.data(), result.data(), bytes.size(), in_rank_order, w);
           uint8_t want[2] = {2, 1};
           for (int r = 1; r < kRanks; ++r) {
             const uint8_t f[2] = {static_cast<uint8_t>(r + 2), static_cast<uint8_t>(r + 1)};
             compose(want, f);
           }
           for (size_t i = 0; i < result.size(); i += 2) {
             ASSERT_EQ(result[i], want[0]) << w.rank << " " << i;
             ASSERT_EQ(result[i + 1], want[1]) << w.rank << " " << i;
           }
         })
          .ok());
  // Each ring allreduce: 2 (n - 1) steps of n messages. The last one: a binomial reduce
  // (n - 1) and a long broadcast (a scatter of n - 1, then n - 1 ring steps of n).
  uint64_t sent = 0;
  for (uint32_t r = 0; r < kRanks; ++r) sent += job->transport(r).stats().messages_sent;
  EXPECT_EQ(sent, 2u * (2 * (kRanks - 1) * kRanks) + (kRanks - 1) + (kRanks - 1) * (1 + kRanks));
}

TEST(MpiTest, ALargeAllgatherGoesAroundTheRingWithStridedBlocksAndUnevenBytes) {
  // 5 ranks, a block of 40,000 ints on every other int of the buffers: 800,000 bytes in all,
  // past kRingAllgatherMinBytes. Then the byte-level Allgatherv with uneven
  // blocks (one empty) totalling over 512 KiB too.
  constexpr int kRanks = 5;
  constexpr size_t kCount = 40000;
  auto job = Job(kRanks);
  const Datatype every_other = Datatype::Vector(kCount, 1, 2, Base::kInt32);
  const std::vector<size_t> counts = {300000, 0, 7, 250001, 123};
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   std::vector<int> send(2 * kCount);
                   for (size_t i = 0; i < send.size(); ++i)
                     send[i] = w.rank * 1000003 + static_cast<int>(i);
                   // Received with the same strided type: rank r's ints land on every other int of
                   // block r (blocks one extent apart, 2 * kCount - 1 ints); the ints between stay
                   // as they were.
                   const size_t extent = 2 * kCount - 1;
                   std::vector<int> all(extent * kRanks, -1);
                   m.Allgather(send.data(), 1, every_other, all.data(), w);
                   for (int r = 0; r < kRanks; ++r) {
                     for (size_t i = 0; i < extent; ++i) {
                       const int want = i % 2 == 0 ? r * 1000003 + static_cast<int>(i) : -1;
                       ASSERT_EQ(all[r * extent + i], want) << r << " " << i;
                     }
                   }
                   std::vector<uint8_t> mine(counts[w.rank]);
                   for (size_t i = 0; i < mine.size(); ++i)
                     mine[i] = static_cast<uint8_t>(w.rank * 31 + i);
                   std::vector<uint8_t> out(
                       std::accumulate(counts.begin(), counts.end(), size_t{0}), 0xee);
                   m.Allgatherv(mine.data(), mine.size(), out.data(), counts, w);
                   size_t at = 0;
                   for (int r = 0; r < kRanks; ++r) {
                     for (size_t i = 0; i < counts[r]; ++i, ++at) {
                       ASSERT_EQ(out[at], static_cast<uint8_t>(r * 31 + i)) << r << " " << i;
                     }
                   }
                 })
                  .ok());
  // Around the ring: every rank sent its right neighbour n - 1 messages per call (a gather
  // and a broadcast would have sent 2 (n - 1) in all).
  uint64_t sent = 0;
  for (uint32_t r = 0; r < kRanks; ++r) sent += job->transport(r).stats().messages_sent;
  EXPECT_EQ(sent, 2u * kRanks * (kRanks - 1));
}

}  // namespace
}  // namespace nicsim::sim

namespace nicsim::sim {
namespace {

TEST(MpiStripingTest, LargeMessagesStripeOverEveryAdapterOfTheNode) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = 2;
  c.cluster.adapters_per_node = 2;
  c.cluster.microcode.rcxts = 2048;
  // As on hps: four paths, taken in turn, so chunks complete out of order.
  c.cluster.fabric.paths = 4;
  c.cluster.fabric.routing = RoutingPolicy::kRoundRobin;
  c.mpi.eager_limit = 4096;
  auto job = std::move(*MpiJob::Create(c));
  const size_t n = 4 << 20;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   std::vector<uint8_t> buf(n);
                   if (m.world().rank == 0) {
                     for (size_t i = 0; i < n; ++i) buf[i] = static_cast<uint8_t>(i * 7);
                     m.Send(buf.data(), n, mpi::kByte, 1, 0, m.world());
                   } else {
                     m.Recv(buf.data(), n, mpi::kByte, 0, 0, m.world());
                     for (size_t i = 0; i < n; ++i)
                       ASSERT_EQ(buf[i], static_cast<uint8_t>(i * 7)) << i;
                   }
                 })
                  .ok());
  // Both adapters of the sending node carried a large share of the RDMA data.
  for (uint32_t a : {0u, 1u}) {
    EXPECT_GT(job->cluster().adapter(a).firmware_counters().rdma_bytes_out, n / 4) << a;
  }
  // Nothing is lost, so no chunk was redriven: chunks on different adapters complete out of
  // order, and that alone must not look like a loss.
  EXPECT_EQ(job->transport(1).stats().rdma_redrives, 0u);
  EXPECT_EQ(job->transport(1).stats().fallbacks, 0u);
}

TEST(MpiStripingTest, AnAdapterRecoveryMidTransferFailsOverToTheOtherAdapter) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = 2;
  c.cluster.adapters_per_node = 2;
  c.cluster.microcode.rcxts = 2048;
  c.mpi.eager_limit = 4096;
  auto job = std::move(*MpiJob::Create(c));
  const size_t n = 8 << 20;
  bool recovered = false;
  // Recover adapter 1 (node 0's second adapter) once a quarter of the data has gone out.
  Cluster& cluster = job->cluster();
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   std::vector<uint8_t> buf(n);
                   if (m.world().rank == 0) {
                     for (size_t i = 0; i < n; ++i) buf[i] = static_cast<uint8_t>(i * 13);
                     mpi::Mpi::Request r = m.Isend(buf.data(), n, mpi::kByte, 1, 0, m.world());
                     // Wait until traffic is flowing, then reset one adapter under it.
                     int dummy = 0;
                     while (cluster.adapter(1).firmware_counters().rdma_bytes_out < n / 8) {
                       m.Sendrecv(&dummy, 0, mpi::kByte, 0, 5, &dummy, 0, mpi::kByte, 0, 5,
                                  m.world());
                     }
                     ASSERT_TRUE(cluster.RecoverAdapter(1).ok());
                     job->transport(0).Reattach();
                     recovered = true;
                     m.Wait(r);
                   } else {
                     m.Recv(buf.data(), n, mpi::kByte, 0, 0, m.world());
                     for (size_t i = 0; i < n; ++i)
                       ASSERT_EQ(buf[i], static_cast<uint8_t>(i * 13)) << i;
                   }
                 })
                  .ok());
  EXPECT_TRUE(recovered);
  EXPECT_GT(job->transport(1).stats().rdma_redrives, 0u);
}

}  // namespace
}  // namespace nicsim::sim
