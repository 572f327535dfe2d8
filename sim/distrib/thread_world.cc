// SPDX-License-Identifier: Apache-2.0
// The split run's collectives between threads: a spinning barrier (the partitions meet
// thousands of times a run, each time for microseconds) that yields, then sleeps, when it
// waits long, and ends the process when a thread it waits for has left.
#include "sim/distrib/thread_world.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace nicsim::sim::distrib {
namespace {
/** Polls before a waiting thread yields its core, and before it sleeps between polls. */
constexpr uint64_t kSpinPolls = 2000;
constexpr uint64_t kYieldPolls = 100000;
}  // namespace

ThreadGroup::ThreadGroup(uint32_t size)
    : size_(size),
      mail_(size, std::vector<std::vector<uint8_t>>(size)),
      values_(size, 0),
      texts_(size) {}

void ThreadGroup::Depart() { departed_.fetch_add(1); }

void ThreadGroup::Barrier(uint32_t rank, const char* what) {
  const uint64_t generation = generation_.load();
  if (arrived_.fetch_add(1) + 1 == size_) {
    arrived_.store(0);
    generation_.store(generation + 1);
    return;
  }
  for (uint64_t polls = 1; generation_.load() == generation; ++polls) {
    if (polls < kSpinPolls) continue;
    // A thread that has left never comes: it returned before this step (an error of its
    // own, which it has printed). Read before the generation, so a thread that passed this
    // barrier and then left is not taken for one that never came.
    if (departed_.load() > 0 && generation_.load() == generation) {
      std::fprintf(stderr,
                   "nicsim: partition %u: another thread's partition ended before %s; "
                   "ending the run\n",
                   rank, what);
      std::fflush(stderr);
      std::_Exit(1);
    }
    // Long waits (thread 0 writing the merged files) give the core back.
    if (polls < kYieldPolls) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
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
