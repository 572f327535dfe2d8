// SPDX-License-Identifier: Apache-2.0
// What the C binding relies on in the MPI layer: reductions on packed bytes with an op that
// does not commute (rank order at any root, and in scans), synchronous sends, probes and
// Waitany.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

constexpr int64_t kPrime = 1000003;

/** x -> a*x + b: composing two of them (acc first, then in) does not commute. */
struct Affine {
  int64_t a, b;
};

Affine Then(Affine f, Affine g) { return {f.a * g.a % kPrime, (f.b * g.a + g.b) % kPrime}; }

mpi::Combiner Composition() {
  return mpi::Combiner{[](uint8_t* acc, const uint8_t* in, size_t bytes) {
                         for (size_t at = 0; at < bytes; at += sizeof(Affine)) {
                           Affine f, g;
                           std::memcpy(&f, acc + at, sizeof(f));
                           std::memcpy(&g, in + at, sizeof(g));
                           f = Then(f, g);
                           std::memcpy(acc + at, &f, sizeof(f));
                         }
                       },
                       /*commutative=*/false};
}

Affine Of(int rank) { return {rank + 2, rank + 1}; }

/** Of(from) then ... then Of(to - 1). */
Affine Fold(int from, int to) {
  Affine f{1, 0};
  for (int r = from; r < to; ++r) f = Then(f, Of(r));
  return f;
}

std::unique_ptr<MpiJob> Job(uint32_t ranks) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = ranks;
  c.cluster.nodes = ranks;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

TEST(MpiBytesTest, AnOpThatDoesNotCommuteCombinesInRankOrderAtEveryRoot) {
  const int n = 5;
  auto job = Job(n);
  std::vector<Affine> at_root(n, Affine{0, 0});
  std::vector<Affine> inclusive(n), exclusive(n, Affine{-1, -1}), all(n);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   const Affine mine = Of(w.rank);
                   const auto* in = reinterpret_cast<const uint8_t*>(&mine);
                   for (int root : {0, 1, n - 1}) {
                     Affine out{0, 0};
                     m.ReduceBytes(in, reinterpret_cast<uint8_t*>(&out), sizeof(out), Composition(),
                                   root, w);
                     if (w.rank == root) at_root[root] = out;
                   }
                   m.AllreduceBytes(in, reinterpret_cast<uint8_t*>(&all[w.rank]), sizeof(Affine),
                                    Composition(), w);
                   m.Scan(in, reinterpret_cast<uint8_t*>(&inclusive[w.rank]), sizeof(Affine),
                          Composition(), false, w);
                   m.Scan(in, reinterpret_cast<uint8_t*>(&exclusive[w.rank]), sizeof(Affine),
                          Composition(), true, w);
                 })
                  .ok());
  const Affine want = Fold(0, n);
  for (int root : {0, 1, n - 1}) {
    EXPECT_EQ(at_root[root].a, want.a) << "root " << root;
    EXPECT_EQ(at_root[root].b, want.b) << "root " << root;
  }
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(all[r].a, want.a);
    EXPECT_EQ(all[r].b, want.b);
    EXPECT_EQ(inclusive[r].a, Fold(0, r + 1).a) << "rank " << r;
    EXPECT_EQ(inclusive[r].b, Fold(0, r + 1).b) << "rank " << r;
  }
  // Rank 0's exclusive result is left as it was.
  EXPECT_EQ(exclusive[0].a, -1);
  for (int r = 1; r < n; ++r) {
    EXPECT_EQ(exclusive[r].a, Fold(0, r).a) << "rank " << r;
    EXPECT_EQ(exclusive[r].b, Fold(0, r).b) << "rank " << r;
  }
}

TEST(MpiBytesTest, VariableBlocksGatherScatterAndExchangeInRankOrder) {
  const int n = 4;
  auto job = Job(n);
  std::vector<std::vector<uint8_t>> gathered(n), scattered(n), exchanged(n);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   const int r = w.rank;
                   // Rank i contributes i+1 bytes of value 10*i.
                   std::vector<size_t> counts = {1, 2, 3, 4};
                   std::vector<uint8_t> mine(counts[r], static_cast<uint8_t>(10 * r));
                   gathered[r].resize(10);
                   m.Gatherv(mine.data(), mine.size(), gathered[r].data(), counts, 2, w);
                   scattered[r].resize(counts[r]);
                   const std::vector<uint8_t> all = {0, 1, 1, 2, 2, 2, 3, 3, 3, 3};
                   m.Scatterv(all.data(), counts, scattered[r].data(), counts[r], 1, w);
                   // Alltoallv: rank r sends j+1 bytes of value 16*r+j to rank j.
                   std::vector<size_t> send(n), recv(n);
                   std::vector<uint8_t> out;
                   for (int j = 0; j < n; ++j) {
                     send[j] = static_cast<size_t>(j + 1);
                     recv[j] = static_cast<size_t>(r + 1);
                     out.insert(out.end(), send[j], static_cast<uint8_t>(16 * r + j));
                   }
                   exchanged[r].resize(static_cast<size_t>(n * (r + 1)));
                   m.Alltoallv(out.data(), send, exchanged[r].data(), recv, w);
                 })
                  .ok());
  EXPECT_EQ(gathered[2], (std::vector<uint8_t>{0, 10, 10, 20, 20, 20, 30, 30, 30, 30}));
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(scattered[r],
              std::vector<uint8_t>(static_cast<size_t>(r + 1), static_cast<uint8_t>(r)));
    std::vector<uint8_t> want;
    for (int i = 0; i < n; ++i) want.insert(want.end(), r + 1, static_cast<uint8_t>(16 * i + r));
    EXPECT_EQ(exchanged[r], want) << "rank " << r;
  }
}

TEST(MpiBytesTest, ASynchronousSendCompletesOnlyOnceTheReceiveIsPosted) {
  auto job = Job(2);
  double eager_done_at = -1, sync_done_at = -1, posted_at = -1;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   int v = 7;
                   if (w.rank == 0) {
                     mpi::Mpi::Request eager =
                         m.Isend(&v, 1, mpi::Datatype::Of(mpi::Base::kInt32), 1, 1, w);
                     EXPECT_TRUE(m.Test(eager));  // eager: copied out, complete at once
                     eager_done_at = m.Wtime();
                     m.Wait(m.Issend(&v, 1, mpi::Datatype::Of(mpi::Base::kInt32), 1, 2, w));
                     sync_done_at = m.Wtime();
                     return;
                   }
                   job->Sleep(1, 50'000'000);  // 50 us before the receives are posted
                   posted_at = m.Wtime();
                   int got = 0;
                   m.Recv(&got, 1, mpi::Datatype::Of(mpi::Base::kInt32), 0, 2, w);
                   m.Recv(&got, 1, mpi::Datatype::Of(mpi::Base::kInt32), 0, 1, w);
                   EXPECT_EQ(got, 7);
                 })
                  .ok());
  EXPECT_LT(eager_done_at, 1e-6);
  EXPECT_NEAR(posted_at, 50e-6, 1e-12);
  EXPECT_GT(sync_done_at, posted_at);
}

TEST(MpiBytesTest, ProbesSeeArrivedMessagesWithoutTakingThem) {
  auto job = Job(3);
  std::optional<mpi::Status> early, wrong_tag;
  mpi::Status probed;
  size_t first = 99;
  std::vector<int> got;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   const mpi::Datatype kInt = mpi::Datatype::Of(mpi::Base::kInt32);
                   int v[3] = {w.rank, w.rank, w.rank};
                   if (w.rank == 1) job->Sleep(1, 40'000'000);  // rank 2's message arrives first
                   if (w.rank != 0) {
                     m.Send(v, 3, kInt, 0, 7, w);
                     return;
                   }
                   early = m.Iprobe(mpi::kAnySource, 7, w);
                   probed = m.Probe(mpi::kAnySource, mpi::kAnyTag, w);
                   wrong_tag = m.Iprobe(mpi::kAnySource, 8, w);
                   int a[3], b[3];
                   std::vector<mpi::Mpi::Request> rs = {m.Irecv(a, 3, kInt, 1, 7, w),
                                                        m.Irecv(b, 3, kInt, 2, 7, w)};
                   first = m.Waitany(rs);
                   m.Waitall(rs);
                   got = {a[0], b[0]};
                 })
                  .ok());
  EXPECT_FALSE(early.has_value());
  EXPECT_EQ(probed.source, 2);
  EXPECT_EQ(probed.tag, 7);
  EXPECT_EQ(probed.bytes, 12u);
  EXPECT_FALSE(wrong_tag.has_value());
  EXPECT_EQ(first, 1u);  // the receive from rank 2, which had arrived
  EXPECT_EQ(got, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace nicsim::sim
