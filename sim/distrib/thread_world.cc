// SPDX-License-Identifier: Apache-2.0
// The split run's collectives between threads: a spinning barrier (the partitions meet
// thousands of times a run, each time for microseconds), yielding when it waits long.
#include "sim/distrib/thread_world.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace nicsim::sim::distrib {

ThreadGroup::ThreadGroup(uint32_t size, double timeout_s)
    : size_(size),
      timeout_s_(timeout_s),
      mail_(size, std::vector<std::vector<uint8_t>>(size)),
      values_(size, 0),
      texts_(size) {}

void ThreadGroup::Barrier(uint32_t rank, const char* what) {
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == size_) {
    arrived_.store(0, std::memory_order_relaxed);
    generation_.store(generation + 1, std::memory_order_release);
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(timeout_s_);
  for (uint64_t polls = 1; generation_.load(std::memory_order_acquire) == generation; ++polls) {
    // Spin briefly, then yield: on a machine with fewer free cores than threads, the thread
    // waited for needs this one's core.
    if (polls < 2000) continue;
    std::this_thread::yield();
    if ((polls & 1023) == 0 && std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr,
                   "nicsim: partition %u: no answer from the other threads within %.0f s in %s "
                   "(a thread failed or hangs); ending the run\n",
                   rank, timeout_s_, what);
      std::fflush(stderr);
      std::_Exit(1);
    }
  }
}

std::vector<std::vector<uint8_t>> ThreadWorld::Exchange(
    const std::vector<std::vector<uint8_t>>& out) {
  const uint32_t n = group_.size();
  for (uint32_t p = 0; p < n; ++p) group_.mail_[rank_][p] = out[p];
  group_.Barrier(rank_, "the exchange of frames");
  std::vector<std::vector<uint8_t>> in(n);
  for (uint32_t p = 0; p < n; ++p) in[p] = std::move(group_.mail_[p][rank_]);
  group_.Barrier(rank_, "the exchange of frames");
  return in;
}

uint64_t ThreadWorld::Min(uint64_t v) {
  group_.values_[rank_] = v;
  group_.Barrier(rank_, "the agreement on the next window");
  const uint64_t least = *std::min_element(group_.values_.begin(), group_.values_.end());
  group_.Barrier(rank_, "the agreement on the next window");
  return least;
}

uint64_t ThreadWorld::Sum(uint64_t v) {
  group_.values_[rank_] = v;
  group_.Barrier(rank_, "a sum over the partitions");
  uint64_t sum = 0;
  for (uint64_t x : group_.values_) sum += x;
  group_.Barrier(rank_, "a sum over the partitions");
  return sum;
}

std::vector<std::string> ThreadWorld::GatherToRoot(const std::string& text) {
  group_.texts_[rank_] = text;
  group_.Barrier(rank_, "the gathering of results");
  std::vector<std::string> texts;
  if (rank_ == 0) texts = group_.texts_;
  group_.Barrier(rank_, "the gathering of results");
  return texts;
}

}  // namespace nicsim::sim::distrib
