// SPDX-License-Identifier: Apache-2.0
// Ranks on OS threads (mpi.scheduler=threads): one thread per rank, one mutex for the baton and
// one condition variable per rank, so a hand-off wakes exactly the thread that takes the baton.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/cluster/rank_scheduler.h"

namespace nicsim::sim {
namespace {

class ThreadRankScheduler final : public RankScheduler {
 public:
  explicit ThreadRankScheduler(uint32_t ranks) {
    for (uint32_t r = 0; r < ranks; ++r) slots_.push_back(std::make_unique<Slot>());
  }
  ~ThreadRankScheduler() override {
    for (uint32_t r = 0; r < slots_.size(); ++r) Reap(r);
  }

  void Start(uint32_t rank, Entry entry) override {
    Reap(rank);
    slots_[rank]->thread = std::thread([this, rank, entry = std::move(entry)] {
      {
        std::unique_lock<std::mutex> lock(mu_);
        slots_[rank]->cv.wait(lock, [this, rank] { return turn_ == static_cast<int64_t>(rank); });
      }
      entry();
      std::unique_lock<std::mutex> lock(mu_);
      turn_ = kLoop;
      loop_cv_.notify_one();
    });
  }

  void Resume(uint32_t rank) override {
    std::unique_lock<std::mutex> lock(mu_);
    turn_ = rank;
    slots_[rank]->cv.notify_one();
    loop_cv_.wait(lock, [this] { return turn_ == kLoop; });
  }

  void Yield(uint32_t rank) override {
    std::unique_lock<std::mutex> lock(mu_);
    turn_ = kLoop;
    loop_cv_.notify_one();
    slots_[rank]->cv.wait(lock, [this, rank] { return turn_ == static_cast<int64_t>(rank); });
  }

  void Reap(uint32_t rank) override {
    if (slots_[rank]->thread.joinable()) slots_[rank]->thread.join();
  }

 private:
  /** turn_ when the event loop holds the baton. */
  static constexpr int64_t kLoop = -1;
  struct Slot {
    std::thread thread;
    std::condition_variable cv;
  };
  std::mutex mu_;
  std::condition_variable loop_cv_;
  /** Which rank holds the baton, or kLoop. */
  int64_t turn_ = kLoop;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace

std::unique_ptr<RankScheduler> MakeThreadRankScheduler(uint32_t ranks) {
  return std::make_unique<ThreadRankScheduler>(ranks);
}

}  // namespace nicsim::sim
