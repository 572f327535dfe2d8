// SPDX-License-Identifier: Apache-2.0
// A split run's partitions as threads of one process (nicsim run --threads K): the same
// collectives as the processes of mpirun -n K, over shared memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/distrib/collectives.h"

namespace nicsim::sim::distrib {

/**
 * Where K threads of one process meet: each collective deposits every thread's part here,
 * waits at a barrier for the others, takes what is addressed to it, and waits again so no
 * thread overwrites a part another has still to read. There is no timeout: the threads live
 * as long as the process (a crash ends them all), and one that stops early says so
 * (Depart): a thread waiting for it prints the step it waited in and ends the process
 * with exit 1. A thread that is slow, however slow (thread 0 writing a large merged
 * timeline, a sanitizer build), is waited for.
 */
class ThreadGroup {
 public:
  explicit ThreadGroup(uint32_t size);
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;

  uint32_t size() const { return size_; }
  /** A thread returned: it joins no collective any more. */
  void Depart();

 private:
  friend class ThreadWorld;

  /** Returns once every thread has called it as often as `rank` has (a counting barrier). */
  void Barrier(uint32_t rank, const char* what);

  const uint32_t size_;
  std::atomic<uint32_t> arrived_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint32_t> departed_{0};
  /** Exchange: mail_[from][to], written only by `from`, read (taken) only by `to`. */
  std::vector<std::vector<std::vector<uint8_t>>> mail_;
  /** Min, Sum and GatherToRoot: each thread's value or text, by rank. */
  std::vector<uint64_t> values_;
  std::vector<std::string> texts_;
};

/** One thread's view of its ThreadGroup: partition `rank` of the run. */
class ThreadWorld final : public Collectives {
 public:
  ThreadWorld(ThreadGroup& group, uint32_t rank) : group_(group), rank_(rank) {}

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return group_.size(); }
  const char* members() const override { return "threads"; }
  std::vector<std::vector<uint8_t>> Exchange(const std::vector<std::vector<uint8_t>>& out) override;
  uint64_t Min(uint64_t v) override;
  uint64_t Sum(uint64_t v) override;
  std::vector<std::string> GatherToRoot(const std::string& text) override;

 private:
  ThreadGroup& group_;
  uint32_t rank_;
};

}  // namespace nicsim::sim::distrib
