// SPDX-License-Identifier: Apache-2.0
// The seam under MpiJob that runs each rank's program in its own execution context and hands
// control between the event loop and one rank at a time: on OS threads or on user-level contexts.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace nicsim::sim {

/** How an MPI job runs its ranks (parameter mpi.scheduler). */
enum class RankSchedulerKind {
  /** One OS thread per rank; a hand-off wakes the next thread through a condition variable. */
  kThreads,
  /** One ucontext per rank on an mmap'd stack of kRankStackBytes; a hand-off is a swapcontext. */
  kContexts,
};

/**
 * Runs rank programs one at a time, strictly alternating with the event loop: the loop calls
 * Resume(r), rank r runs until it calls Yield(r) or its entry returns, then Resume returns. Only
 * one context runs at any moment, so no state needs locking and a run is deterministic.
 */
class RankScheduler {
 public:
  /** A rank's program. It must not throw: a rank unwinds itself and returns. */
  using Entry = std::function<void()>;

  virtual ~RankScheduler() = default;
  /** Prepares rank `rank` to run `entry` at its first Resume (reaping a previous run's). */
  virtual void Start(uint32_t rank, Entry entry) = 0;
  /** From the event loop: runs `rank` until it yields or its entry returns. */
  virtual void Resume(uint32_t rank) = 0;
  /** From rank `rank`'s program: hands control back to the event loop until resumed. */
  virtual void Yield(uint32_t rank) = 0;
  /** From the event loop, once rank `rank`'s entry has returned: frees its thread or stack. */
  virtual void Reap(uint32_t rank) = 0;
};

/**
 * Bytes of stack each rank gets in contexts mode (plus one guard page below it). Reserved with
 * MAP_NORESERVE, so a rank costs only the pages its program touches: a few KiB for the MPI
 * workloads, whose buffers are on the heap. A program that overflows hits the guard page, and
 * the run ends with a message naming the rank (stack_guard.h), exit 1.
 */
inline constexpr uint64_t kRankStackBytes = 256 * 1024;

/** The two implementations (rank_threads.cc, rank_contexts.cc), for `ranks` ranks. */
std::unique_ptr<RankScheduler> MakeThreadRankScheduler(uint32_t ranks);
std::unique_ptr<RankScheduler> MakeContextRankScheduler(uint32_t ranks);

/** A scheduler of `kind` for `ranks` ranks. */
inline std::unique_ptr<RankScheduler> MakeRankScheduler(RankSchedulerKind kind, uint32_t ranks) {
  return kind == RankSchedulerKind::kThreads ? MakeThreadRankScheduler(ranks)
                                             : MakeContextRankScheduler(ranks);
}

}  // namespace nicsim::sim
