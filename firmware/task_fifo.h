// SPDX-License-Identifier: Apache-2.0
// A first-in first-out queue of task ids on a ring that doubles when full: the scheduler's
// dispatch queue and resource waits, pushed and popped a few times per packet.
#pragma once

#include <cstddef>
#include <vector>

#include "firmware/platform.h"

namespace nicsim::fw {

class TaskFifo {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  TaskId front() const { return ring_[head_]; }
  void push_back(TaskId id) {
    if (size_ == ring_.size()) Grow();
    ring_[(head_ + size_) & (ring_.size() - 1)] = id;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (ring_.size() - 1);
    --size_;
  }
  void clear() { head_ = size_ = 0; }

 private:
  /** Twice the room (at least 16), the queue's order kept from the front. */
  void Grow() {
    std::vector<TaskId> bigger(ring_.empty() ? 16 : 2 * ring_.size());
    for (size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_.swap(bigger);
    head_ = 0;
  }

  /** A power of two long (or empty). */
  std::vector<TaskId> ring_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace nicsim::fw
