// SPDX-License-Identifier: Apache-2.0
// The ranks of an MPI job whose readiness may have changed since the event loop last checked
// them, taken sweep by sweep in ascending rank order (the order a full sweep would take them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

namespace nicsim::sim {

/**
 * A set of marked ranks drained in sweeps. A sweep takes the ranks marked before it began in
 * ascending order; a rank marked during the sweep is taken by this sweep if the sweep has not
 * passed it yet, else by the next one. That is exactly which ranks, and in which order, a full
 * ascending sweep would find ready, provided every rank whose state changed was marked.
 * Cost: O(log k) per mark and per rank taken (k: ranks marked), nothing per unmarked rank.
 */
class DirtyRanks {
 public:
  explicit DirtyRanks(uint32_t ranks) : marked_(ranks, false) {}

  /** Notes that `rank`'s state may have changed. */
  void Mark(uint32_t rank) {
    if (marked_[rank]) return;
    marked_[rank] = true;
    if (sweeping_ && static_cast<int64_t>(rank) > cursor_) {
      current_.push(rank);
    } else {
      next_.push_back(rank);
    }
  }
  /** Marks every rank (the first sweep, and the fallback sweeps). */
  void MarkAll() {
    for (uint32_t r = 0; r < marked_.size(); ++r) Mark(r);
  }
  /** Starts a sweep over the ranks marked so far. */
  void BeginSweep() {
    for (uint32_t r : next_) current_.push(r);
    next_.clear();
    sweeping_ = true;
    cursor_ = -1;
  }
  /** The sweep's next rank (unmarking it), or nothing when the sweep is over. */
  std::optional<uint32_t> Next() {
    if (current_.empty()) {
      sweeping_ = false;
      return std::nullopt;
    }
    const uint32_t rank = current_.top();
    current_.pop();
    cursor_ = rank;
    marked_[rank] = false;
    return rank;
  }

 private:
  std::vector<bool> marked_;
  /** This sweep's ranks not yet taken, smallest first. */
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> current_;
  /** Ranks for the next sweep. */
  std::vector<uint32_t> next_;
  bool sweeping_ = false;
  /** The last rank this sweep took (-1: none yet). */
  int64_t cursor_ = -1;
};

}  // namespace nicsim::sim
