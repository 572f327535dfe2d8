// SPDX-License-Identifier: Apache-2.0
// Materialising pages a CPU is about to poll, so that its first read does not map the
// kernel's shared zero page only for the first write to replace it (two faults per page).
#pragma once

#include <cstdint>

namespace nicsim::host {

/**
 * Materialises the whole system pages that [p, p + len) touches as if they were written,
 * without changing a byte (madvise MADV_POPULATE_WRITE), so safe while a device on another
 * thread writes there. Purely a cost: the memory reads the same with or without it. False
 * if the pages were left as they were (a kernel without it, memory that cannot be written);
 * they then fault on use as before.
 */
bool PrefaultForWrite(const uint8_t* p, uint64_t len);

/**
 * A ring walked from its start, polled before it is written (a FIFO): on its first pass,
 * each group of kGroupBytes is materialised once as the walk reaches it, so the ring costs
 * only what the walk has reached (plus one group), one system call per group.
 */
class RingPrefault {
 public:
  static constexpr uint64_t kGroupBytes = 16384;

  RingPrefault(const uint8_t* base, uint64_t bytes) : base_(base), bytes_(bytes) { Reach(0); }
  /** The walk is at byte `offset` (below the ring's size) of the ring, on any pass. */
  void Reach(uint64_t offset) {
    if (offset < done_) return;  // always, once the first pass has materialised the ring
    const uint64_t end = offset / kGroupBytes * kGroupBytes + kGroupBytes;
    const uint64_t upto = end < bytes_ ? end : bytes_;
    // Where it fails, the pages fault on use as they would have: not tried again.
    PrefaultForWrite(base_ + done_, upto - done_);
    done_ = upto;
  }

 private:
  const uint8_t* base_;
  uint64_t bytes_;
  /** Bytes from the start already materialised. */
  uint64_t done_ = 0;
};

}  // namespace nicsim::host
