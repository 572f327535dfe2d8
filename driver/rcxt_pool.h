// SPDX-License-Identifier: Apache-2.0
// The rCxt pool of one adapter: RDMA contexts handed to windows from the head of a free
// list and returned to its tail, keyed with the adapter's recovery count; and the adapter's
// conditional queues, which its windows share.
#pragma once

#include <bitset>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "abi/rdma.h"
#include "base/status.h"
#include "driver/adapter_driver.h"
#include "driver/device_access.h"

namespace nicsim::driver {

/**
 * The driver's rCxts for one adapter. Allocation takes the head of the free list and
 * release appends to the tail (round robin), so with a pool much larger than what is ever
 * outstanding, a context freed now is not handed out again soon and stale packets naming
 * it find it reassigned with another key or still free.
 *
 * The pool costs what was handed out, not its size (100,000 by default, on every adapter of
 * a cluster of thousands): the indices never handed out are a counter, not list entries.
 */
class RcxtPool {
 public:
  /**
   * `count` contexts (abi::RcxtAddr(i) in SRAM; count < 2^20 so no reference equals
   * abi::kNoRcxt); recovery_count() gives the adapter's current recovery count (the key).
   */
  RcxtPool(DeviceAccess& adapter, uint32_t count, std::function<uint64_t()> recovery_count);
  /** `count` contexts of the adapter `driver` runs, keyed by its recovery count. */
  static std::unique_ptr<RcxtPool> ForDriver(DeviceAccess& adapter, uint32_t count,
                                             const AdapterDriver& driver);

  /**
   * Takes the rCxt at the head of the free list for `window`: writes RcxtRecord{kIdle,
   * window, key = recovery count (below abi::kRcxtGroupKey), tid 0, next kNoRcxt} to SRAM
   * and returns abi::MakeRcxtRef(index, key). Error when the pool is empty or the window is
   * not below abi::kMaxWindows. `group`: a multicast group's rCxt, its key marked with
   * abi::kRcxtGroupKey.
   */
  Result<uint32_t> Acquire(uint32_t window, bool group = false);
  /** Takes a specific index (multicast: one rCxt id on several adapters). Error if not free. */
  Result<uint32_t> AcquireIndex(uint32_t index, uint32_t window, bool group = false);
  /**
   * Returns the rCxt to the tail of the free list and writes state kFree to SRAM. Error if
   * the reference's index is not held or its key is stale.
   */
  Status Release(uint32_t ref);
  /**
   * After an adapter recovery (SRAM was zeroed): every rCxt is free again. The free list
   * keeps its order; the contexts that were held join its tail in index order.
   */
  void OnRecovery();

  /**
   * Takes one of the adapter's abi::kConditionalQueues conditional queues for a window (the
   * lowest free). Error when every queue is taken: the caller does without.
   */
  Result<uint32_t> AcquireQueue();
  /** Gives a queue back (ignored if it is not taken). */
  void ReleaseQueue(uint32_t queue);

  /** Reads the record of `index` from SRAM (zeroes for an index outside the pool). */
  abi::RcxtRecord Read(uint32_t index);
  uint32_t free_count() const {
    return count_ - fresh_ - static_cast<uint32_t>(taken_ahead_.size()) +
           static_cast<uint32_t>(returned_.size());
  }
  uint32_t size() const { return count_; }

 private:
  struct Held {
    bool held = false;
    uint16_t window = 0;
    uint16_t key = 0;
  };
  /** Hands out `index` (already off the free list). */
  uint32_t Assign(uint32_t index, uint32_t window, bool group);
  bool IsHeld(uint32_t index) const { return index < held_.size() && held_[index].held; }
  void Write(uint32_t index, const abi::RcxtRecord& record);

  DeviceAccess& adapter_;
  std::function<uint64_t()> recovery_count_;
  uint32_t count_;
  /**
   * The free list is [fresh_, count_) in order (less taken_ahead_), then returned_: indices
   * are taken at its front and returned at its back.
   */
  uint32_t fresh_ = 0;
  /** Indices at or above fresh_ that AcquireIndex took out of turn. */
  std::set<uint32_t> taken_ahead_;
  std::deque<uint32_t> returned_;
  /** Books of every index handed out so far (grown on demand). */
  std::vector<Held> held_;
  /** Conditional queues taken. */
  std::bitset<abi::kConditionalQueues> queues_;
};

}  // namespace nicsim::driver
