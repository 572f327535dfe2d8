// SPDX-License-Identifier: Apache-2.0
// One-sided MPI on the simulated cluster: puts and gets between windows in AllocMem memory
// move by RDMA with no CPU copy, others through messages, every byte checked after a fence;
// accumulates are applied exactly once under loss, duplication and reordering; an operation
// outside its window writes nothing and is counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

using mpi::Base;
using mpi::Datatype;
using mpi::kByte;

constexpr size_t kBlock = 3000;

std::unique_ptr<MpiJob> Job(uint32_t ranks, uint32_t nodes, double loss = 0, double dup = 0,
                            double reorder = 0) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = ranks;
  c.cluster.nodes = nodes;
  c.cluster.microcode.rcxts = 2048;
  c.cluster.fabric.loss = loss;
  c.cluster.fabric.duplicate = dup;
  c.cluster.fabric.reorder = reorder;
  c.cluster.seed = 5;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

uint8_t ByteOf(int rank, size_t i) { return static_cast<uint8_t>(rank * 37 + i * 13 + 1); }

/** Every rank puts a block into the next rank's window, fences, then gets the block the
 *  previous rank put into the rank after it; `alloc_mem` puts the buffers and windows where
 *  the adapter reaches them. */
void RingOfPutsAndGets(bool alloc_mem, uint64_t expected_in_place) {
  constexpr uint32_t kRanks = 4;
  auto job = Job(kRanks, kRanks);
  std::vector<std::vector<uint8_t>> windows(kRanks), got(kRanks);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const mpi::Comm& w = m.world();
                   const int n = w.size();
                   uint8_t* out = nullptr;
                   uint8_t* in = nullptr;
                   std::vector<uint8_t> heap_out(kBlock), heap_in(kBlock), heap_window;
                   mpi::Win win;
                   void* base = nullptr;
                   if (alloc_mem) {
                     out = static_cast<uint8_t*>(m.AllocMem(kBlock));
                     in = static_cast<uint8_t*>(m.AllocMem(kBlock));
                     win = m.WinAllocate(n * kBlock, w, &base);
                   } else {
                     out = heap_out.data();
                     in = heap_in.data();
                     heap_window.assign(n * kBlock, 0);
                     base = heap_window.data();
                     win = m.WinCreate(base, heap_window.size(), w);
                   }
                   for (size_t i = 0; i < kBlock; ++i) out[i] = ByteOf(w.rank, i);
                   m.Put(out, kBlock, kByte, (w.rank + 1) % n, w.rank * kBlock, win);
                   m.Fence(win);
                   const auto* window = static_cast<const uint8_t*>(base);
                   windows[w.rank].assign(window, window + n * kBlock);
                   // What rank - 1 put into rank + 1 is at rank - 1's block there... rank
                   // r + 1 holds rank r's block: read it back from there.
                   m.Get(in, kBlock, kByte, (w.rank + 1) % n, w.rank * kBlock, win);
                   m.Fence(win);
                   got[w.rank].assign(in, in + kBlock);
                   m.WinFree(win);
                 })
                  .ok());
  for (uint32_t r = 0; r < kRanks; ++r) {
    SCOPED_TRACE(r);
    const int from = static_cast<int>((r + kRanks - 1) % kRanks);
    std::vector<uint8_t> want(kRanks * kBlock, 0);
    for (size_t i = 0; i < kBlock; ++i) want[from * kBlock + i] = ByteOf(from, i);
    EXPECT_EQ(windows[r], want);
    std::vector<uint8_t> mine(kBlock);
    for (size_t i = 0; i < kBlock; ++i) mine[i] = ByteOf(static_cast<int>(r), i);
    EXPECT_EQ(got[r], mine);
  }
  uint64_t puts = 0, gets = 0, in_place = 0, refused = 0;
  for (uint32_t r = 0; r < kRanks; ++r) {
    puts += job->mpi(r).stats().rma_puts;
    gets += job->mpi(r).stats().rma_gets;
    in_place += job->mpi(r).stats().rma_in_place;
    refused += job->mpi(r).stats().rma_refused;
  }
  EXPECT_EQ(puts, kRanks);
  EXPECT_EQ(gets, kRanks);
  EXPECT_EQ(in_place, expected_in_place);
  EXPECT_EQ(refused, 0u);
}

TEST(MpiOneSidedTest, PutsAndGetsBetweenAllocMemBuffersAndWindowsMoveByRdmaInPlace) {
  // Every put lands in its window, and every get in its buffer, with no copy.
  RingOfPutsAndGets(/*alloc_mem=*/true, /*expected_in_place=*/8);
}

TEST(MpiOneSidedTest, PutsAndGetsOfOrdinaryMemoryTravelAsMessagesAndArriveExact) {
  RingOfPutsAndGets(/*alloc_mem=*/false, /*expected_in_place=*/0);
}

TEST(MpiOneSidedTest, AccumulatesAreAppliedExactlyOnceUnderLossDuplicationAndReordering) {
  constexpr uint32_t kRanks = 6;
  constexpr int kRounds = 5;
  constexpr size_t kCount = 40;
  auto job = Job(kRanks, 3, /*loss=*/0.3, /*dup=*/0.5, /*reorder=*/0.5);
  std::vector<int64_t> result(kCount);
  const Status run = job->Run([&](mpi::Mpi& m) {
    const mpi::Comm& w = m.world();
    void* base = nullptr;
    mpi::Win win = m.WinAllocate(kCount * sizeof(int64_t), w, &base);
    std::vector<int64_t> mine(kCount);
    for (size_t i = 0; i < kCount; ++i) mine[i] = (w.rank + 1) * static_cast<int64_t>(i + 1);
    for (int round = 0; round < kRounds; ++round) {
      m.Accumulate(mine.data(), kCount, Datatype::Of(Base::kInt64), mpi::Op::kSum, 0, 0, win);
    }
    m.Fence(win);
    if (w.rank == 0) std::memcpy(result.data(), base, kCount * sizeof(int64_t));
    m.WinFree(win);
  });
  ASSERT_TRUE(run.ok()) << run.message();
  const int64_t ranks_sum = kRanks * (kRanks + 1) / 2;
  for (size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(result[i], kRounds * ranks_sum * static_cast<int64_t>(i + 1)) << "element " << i;
  }
  uint64_t accumulates = 0;
  for (uint32_t r = 0; r < kRanks; ++r) accumulates += job->mpi(r).stats().rma_accumulates;
  EXPECT_EQ(accumulates, uint64_t{kRanks} * kRounds);
  // The faults did happen: copies and reorderings reached the receivers' adapters.
  const FabricCounters& fabric = job->cluster().fabric().counters();
  EXPECT_GT(fabric.frames_duplicated, 0u);
  EXPECT_GT(fabric.frames_reordered, 0u);
}

TEST(MpiOneSidedTest, FetchAndOpHandsOutEveryCountOnceUnderLossDuplicationAndReordering) {
  constexpr uint32_t kRanks = 6;
  constexpr int kRounds = 10;
  auto job = Job(kRanks, 3, /*loss=*/0.3, /*dup=*/0.5, /*reorder=*/0.5);
  std::vector<int64_t> fetched;
  int64_t counter = -1;
  const Datatype kInt64 = Datatype::Of(Base::kInt64);
  const Status run = job->Run([&](mpi::Mpi& m) {
    const mpi::Comm& w = m.world();
    void* base = nullptr;
    mpi::Win win = m.WinAllocate(sizeof(int64_t), w, &base);
    const int64_t one = 1;
    std::vector<int64_t> mine(kRounds, -1);
    for (int round = 0; round < kRounds; ++round) {
      m.FetchAndOp(&one, &mine[round], kInt64, mpi::Op::kSum, 0, 0, win);
      m.Fence(win);
    }
    fetched.insert(fetched.end(), mine.begin(), mine.end());
    if (w.rank == 0) std::memcpy(&counter, base, sizeof(counter));
    m.WinFree(win);
  });
  ASSERT_TRUE(run.ok()) << run.message();
  // Every increment applied once: the counts handed out are 0 .. 59, each exactly once.
  std::sort(fetched.begin(), fetched.end());
  std::vector<int64_t> want(kRanks * kRounds);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(fetched, want);
  EXPECT_EQ(counter, int64_t{kRanks} * kRounds);
  EXPECT_GT(job->cluster().fabric().counters().frames_duplicated, 0u);
}

TEST(MpiOneSidedTest, CompareAndSwapLetsExactlyOneRankWin) {
  constexpr uint32_t kRanks = 5;
  auto job = Job(kRanks, kRanks, /*loss=*/0.2);
  std::vector<int32_t> before(kRanks, 0);
  int32_t slot = 0;
  const Datatype kInt = Datatype::Of(Base::kInt32);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const mpi::Comm& w = m.world();
                   void* base = nullptr;
                   mpi::Win win = m.WinAllocate(sizeof(int32_t), w, &base);
                   if (w.rank == 0) *static_cast<int32_t*>(base) = -1;
                   m.Fence(win);
                   const int32_t mine = w.rank, empty = -1;
                   m.CompareAndSwap(&mine, &empty, &before[w.rank], kInt, 0, 0, win);
                   m.Fence(win);
                   if (w.rank == 0) slot = *static_cast<int32_t*>(base);
                   m.WinFree(win);
                 })
                  .ok());
  // One rank found the slot empty and took it; every other found that rank there.
  ASSERT_GE(slot, 0);
  for (uint32_t r = 0; r < kRanks; ++r) {
    EXPECT_EQ(before[r], static_cast<int>(r) == slot ? -1 : slot) << "rank " << r;
  }
}

TEST(MpiOneSidedTest, AnExclusiveLockMakesReadModifyWriteAtomicUnderFaults) {
  constexpr uint32_t kRanks = 5;
  constexpr int kRounds = 4;
  auto job = Job(kRanks, kRanks, /*loss=*/0.2, /*dup=*/0.3, /*reorder=*/0.3);
  int64_t counter = -1;
  const Datatype kInt64 = Datatype::Of(Base::kInt64);
  const Status run = job->Run([&](mpi::Mpi& m) {
    const mpi::Comm& w = m.world();
    void* base = nullptr;
    mpi::Win win = m.WinAllocate(sizeof(int64_t), w, &base);
    for (int round = 0; round < kRounds; ++round) {
      // Read, add one, write back: only a lock keeps two ranks from writing the same value.
      m.WinLock(mpi::Mpi::LockType::kExclusive, 0, win);
      int64_t v = -1;
      m.Get(&v, 1, kInt64, 0, 0, win);
      m.WinFlush(0, win);
      ++v;
      m.Put(&v, 1, kInt64, 0, 0, win);
      m.WinUnlock(0, win);
    }
    m.Barrier(w);
    if (w.rank == 0) std::memcpy(&counter, base, sizeof(counter));
    m.WinFree(win);
  });
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(counter, int64_t{kRanks} * kRounds);
}

TEST(MpiOneSidedTest, SharedLocksAreHeldTogetherAndUnlockCompletesAtTheTarget) {
  constexpr uint32_t kRanks = 4;
  auto job = Job(kRanks, 2);
  int64_t counter = -1;
  const Datatype kInt64 = Datatype::Of(Base::kInt64);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const mpi::Comm& w = m.world();
                   void* base = nullptr;
                   mpi::Win win = m.WinAllocate(sizeof(int64_t), w, &base);
                   m.WinLock(mpi::Mpi::LockType::kShared, 0, win);
                   // Every rank holds the shared lock at once before any gives it back.
                   m.Barrier(w);
                   const int64_t one = 1;
                   m.Accumulate(&one, 1, kInt64, mpi::Op::kSum, 0, 0, win);
                   m.WinUnlock(0, win);
                   m.Barrier(w);
                   if (w.rank == 0) std::memcpy(&counter, base, sizeof(counter));
                   m.WinFree(win);
                 })
                  .ok());
  EXPECT_EQ(counter, int64_t{kRanks});
}

TEST(MpiOneSidedTest, LockAllLetsEveryRankAccumulateIntoEveryOtherAndUnlockAllCompletesThem) {
  constexpr uint32_t kRanks = 4;
  auto job = Job(kRanks, 2, /*loss=*/0.2, /*dup=*/0.3);
  std::vector<int64_t> totals(kRanks, -1);
  const Datatype kInt64 = Datatype::Of(Base::kInt64);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const mpi::Comm& w = m.world();
                   void* base = nullptr;
                   mpi::Win win = m.WinAllocate(sizeof(int64_t), w, &base);
                   m.WinLockAll(win);
                   const int64_t mine = w.rank + 1;
                   for (int t = 0; t < w.size(); ++t) {
                     m.Accumulate(&mine, 1, kInt64, mpi::Op::kSum, t, 0, win);
                   }
                   m.WinFlushAll(win);
                   m.WinUnlockAll(win);
                   m.Barrier(w);
                   std::memcpy(&totals[w.rank], base, sizeof(int64_t));
                   m.WinFree(win);
                 })
                  .ok());
  EXPECT_EQ(totals, std::vector<int64_t>(kRanks, 1 + 2 + 3 + 4));
}

TEST(MpiOneSidedTest, PostStartCompleteWaitMovesEachRingNeighboursBlockUnderFaults) {
  constexpr uint32_t kRanks = 4;
  constexpr int kRounds = 3;
  auto job = Job(kRanks, kRanks, /*loss=*/0.2, /*dup=*/0.3, /*reorder=*/0.3);
  std::vector<std::vector<int32_t>> seen(kRanks);
  const Datatype kInt = Datatype::Of(Base::kInt32);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const mpi::Comm& w = m.world();
                   const int n = w.size();
                   const int left = (w.rank + n - 1) % n, right = (w.rank + 1) % n;
                   std::vector<int32_t> window(64, 0);
                   mpi::Win win = m.WinCreate(window.data(), window.size() * 4, w);
                   for (int round = 0; round < kRounds; ++round) {
                     // Exposed to the left neighbour, writing to the right one.
                     m.WinPost({left}, win);
                     m.WinStart({right}, win);
                     std::vector<int32_t> block(64);
                     for (size_t i = 0; i < block.size(); ++i) {
                       block[i] = w.rank * 1000 + round * 100 + static_cast<int32_t>(i);
                     }
                     m.Put(block.data(), block.size(), kInt, right, 0, win);
                     m.WinComplete(win);
                     m.WinWait(win);
                     // The left neighbour's block of this round is here once the wait returns.
                     seen[w.rank].push_back(window[63]);
                   }
                   m.Barrier(w);
                   m.WinFree(win);
                 })
                  .ok());
  for (uint32_t r = 0; r < kRanks; ++r) {
    const int left = static_cast<int>((r + kRanks - 1) % kRanks);
    std::vector<int32_t> want;
    for (int round = 0; round < kRounds; ++round) want.push_back(left * 1000 + round * 100 + 63);
    EXPECT_EQ(seen[r], want) << "rank " << r;
  }
}

TEST(MpiOneSidedTest, ADerivedOriginTypeIsPackedIntoTheWindowContiguously) {
  auto job = Job(2, 2);
  std::vector<int32_t> window_after(6, -1);
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const mpi::Comm& w = m.world();
                   std::vector<int32_t> window(6, 0);
                   mpi::Win win = m.WinCreate(window.data(), window.size() * 4, w);
                   if (w.rank == 0) {
                     // Two blocks of three ints, every other one: 0 2 4 6 8 10 of 0..11.
                     std::vector<int32_t> src(12);
                     std::iota(src.begin(), src.end(), 0);
                     const Datatype every_other = Datatype::Vector(6, 1, 2, Base::kInt32);
                     m.Put(src.data(), 1, every_other, 1, 0, win);
                   }
                   m.Fence(win);
                   if (w.rank == 1) window_after = window;
                   m.WinFree(win);
                 })
                  .ok());
  EXPECT_EQ(window_after, (std::vector<int32_t>{0, 2, 4, 6, 8, 10}));
}

TEST(MpiOneSidedTest, AnOperationOutsideItsWindowWritesNothingAndIsCounted) {
  auto job = Job(2, 2);
  std::vector<uint8_t> window_after;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const mpi::Comm& w = m.world();
                   std::vector<uint8_t> window(64, 0x5a);
                   mpi::Win win = m.WinCreate(window.data(), window.size(), w);
                   if (w.rank == 0) {
                     std::vector<uint8_t> src(32, 0x11);
                     m.Put(src.data(), src.size(), kByte, 1, 40, win);  // 8 bytes past the end
                   }
                   m.Fence(win);
                   if (w.rank == 1) window_after = window;
                   m.WinFree(win);
                 })
                  .ok());
  EXPECT_EQ(window_after, std::vector<uint8_t>(64, 0x5a));
  EXPECT_EQ(job->mpi(1).stats().rma_refused, 1u);
}

TEST(MpiOneSidedTest, BlockOperationsPlaceGatherAndCombineEachBlockInOneMessage) {
  auto job = Job(2, 2, 0.2, 0.2, 0.3);
  std::vector<int32_t> window_after, got, fetched;
  ASSERT_TRUE(job->Run([&](mpi::Mpi& m) {
                   const mpi::Comm& w = m.world();
                   std::vector<int32_t> window(8, -1);
                   mpi::Win win = m.WinCreate(window.data(), window.size() * 4, w);
                   // Elements 1, 3 and 6 of rank 1's window: three blocks.
                   const mpi::OneSided::Blocks blocks = {{4, 4}, {12, 4}, {24, 4}};
                   const std::vector<int32_t> three = {10, 30, 60};
                   std::vector<int32_t> back(3, 0), before(3, 0);
                   if (w.rank == 0) {
                     m.PutBlocks(reinterpret_cast<const uint8_t*>(three.data()), blocks, 1, win);
                   }
                   m.Fence(win);
                   if (w.rank == 0) {
                     m.GetBlocks(reinterpret_cast<uint8_t*>(back.data()), blocks, 1, win);
                     m.AccumulateBlocks(reinterpret_cast<const uint8_t*>(three.data()),
                                        reinterpret_cast<uint8_t*>(before.data()), blocks,
                                        Base::kInt32, mpi::OneSided::Update::kCombine,
                                        mpi::Op::kSum, 1, win);
                   }
                   m.Fence(win);
                   if (w.rank == 0) {
                     got = back;
                     fetched = before;
                   }
                   if (w.rank == 1) window_after = window;
                   m.WinFree(win);
                 })
                  .ok());
  EXPECT_EQ(got, (std::vector<int32_t>{10, 30, 60}));
  EXPECT_EQ(fetched, (std::vector<int32_t>{10, 30, 60}));
  EXPECT_EQ(window_after, (std::vector<int32_t>{-1, 20, -1, 60, -1, -1, 120, -1}));
  // One message each: a put, a get and an accumulate, each applied once.
  EXPECT_EQ(job->mpi(0).stats().rma_puts, 1u);
  EXPECT_EQ(job->mpi(0).stats().rma_gets, 1u);
  EXPECT_EQ(job->mpi(0).stats().rma_accumulates, 1u);
}

/** What LockedGets saw: the bytes got and the messages the target's transport delivered
 *  while the gets ran. */
struct LockedGetsRun {
  std::unique_ptr<MpiJob> job;
  std::vector<uint8_t> got;
  uint64_t target_messages = 0;
};

/** Rank 0 gets `gets` 8-byte elements of rank 1's allocated window one by one, each
 *  completed by a flush, under a shared lock. */
LockedGetsRun LockedGets(int gets, double loss, double dup, double reorder) {
  LockedGetsRun run{Job(2, 2, loss, dup, reorder), std::vector<uint8_t>(gets * 8, 0), 0};
  MpiJob& job = *run.job;
  NICSIM_CHECK(job.Run([&](mpi::Mpi& m) {
                    const mpi::Comm& w = m.world();
                    void* base = nullptr;
                    mpi::Win win = m.WinAllocate(gets * 8, w, &base);
                    auto* window = static_cast<uint8_t*>(base);
                    for (size_t i = 0; i < static_cast<size_t>(gets) * 8; ++i) {
                      window[i] = ByteOf(w.rank, i);
                    }
                    m.Barrier(w);
                    if (w.rank == 0) {
                      m.WinLock(mpi::Mpi::LockType::kShared, 1, win);
                      const uint64_t before = job.transport(1).stats().messages_delivered;
                      for (int i = 0; i < gets; ++i) {
                        m.Get(run.got.data() + i * 8, 8, kByte, 1, i * 8, win);
                        m.WinFlush(1, win);
                      }
                      run.target_messages = job.transport(1).stats().messages_delivered - before;
                      m.WinUnlock(1, win);
                    }
                    m.WinFree(win);
                  })
                   .ok(),
               "locked gets");
  std::vector<uint8_t> want(static_cast<size_t>(gets) * 8);
  for (size_t i = 0; i < want.size(); ++i) want[i] = ByteOf(1, i);
  EXPECT_EQ(run.got, want);
  EXPECT_EQ(job.mpi(0).stats().rma_gets, static_cast<uint64_t>(gets));
  return run;
}

TEST(MpiOneSidedTest, GetsOfAnAllocatedWindowAreRdmaReadsThatAskNothingOfTheTarget) {
  constexpr int kGets = 40;
  LockedGetsRun run = LockedGets(kGets, 0, 0, 0);
  // The first get asks by message while the read channel opens; the others are RDMA reads.
  EXPECT_EQ(run.target_messages, 1u);
  EXPECT_EQ(run.job->transport(0).stats().rdma_reads, static_cast<uint64_t>(kGets - 1));
  EXPECT_EQ(run.job->transport(0).stats().rdma_reads_given_up, 0u);
  EXPECT_EQ(run.job->transport(1).stats().read_channels_opened, 1u);
}

TEST(MpiOneSidedTest, GetsReadByRdmaUnderFaultsAskByMessageWhenAReadIsGivenUp) {
  // Under loss, duplication and reordering every get's bytes are exact (LockedGets checks):
  // a read given up asks by message, and the channel opens again (gets ask by message while
  // it does).
  constexpr int kGets = 40;
  LockedGetsRun run = LockedGets(kGets, 0.2, 0.2, 0.3);
  const ulp::TransportStats& reader = run.job->transport(0).stats();
  EXPECT_GT(reader.rdma_reads, kGets / 2u);
  EXPECT_GT(reader.rdma_redrives, 0u);
  EXPECT_EQ(reader.rdma_reads_given_up, 1u);  // seed 5: one read met loss too long
  EXPECT_EQ(run.job->transport(1).stats().read_channels_opened, 1 + reader.rdma_reads_given_up);
  // Each get is one read that landed or one message to the target.
  EXPECT_EQ(run.target_messages + reader.rdma_reads - reader.rdma_reads_given_up,
            static_cast<uint64_t>(kGets));
}

}  // namespace
}  // namespace nicsim::sim
