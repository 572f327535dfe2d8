// SPDX-License-Identifier: Apache-2.0
// The adapter's MMIO window as the host sees it: SRAM served directly, global registers
// readable, and every other write (a doorbell or global command) posted, delivered in order
// after the MMIO latency or as soon as a read must pass it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>

#include "hw/func/adapter_sram.h"
#include "kernel/event_queue.h"

namespace nicsim::hw::func {

/** Host-to-device MMIO of one adapter: the register window and posted commands. */
class AdapterMmio {
 public:
  /** Takes one posted command (offset, value) as it reaches the adapter. */
  using DeliverFn = std::function<void(uint64_t offset, uint64_t value)>;

  AdapterMmio(kernel::EventQueue& events, uint64_t latency_ps, AdapterSram& sram, DeliverFn deliver)
      : events_(events), latency_ps_(latency_ps), sram_(sram), deliver_(std::move(deliver)) {}

  /** An SRAM word is written at once; anything else is posted and delivered later. */
  void Write(uint64_t offset, uint64_t value);
  /** Delivers every posted command now (a read does not pass posted writes). */
  void DeliverPosted() { DeliverThrough(posted_); }
  /** The SRAM word or global register at `offset`; all ones elsewhere. */
  uint64_t Read(uint64_t offset) const;

 private:
  struct PendingMmio {
    uint64_t seq;
    uint64_t offset;
    uint64_t value;
  };

  /** True if the 8 bytes at `offset` lie in the SRAM part of the window. */
  bool InSram(uint64_t offset) const;
  /** Delivers posted commands up to and including sequence number `seq`, in order. */
  void DeliverThrough(uint64_t seq);

  kernel::EventQueue& events_;
  uint64_t latency_ps_;
  AdapterSram& sram_;
  DeliverFn deliver_;
  /** Posted window and global commands still on their way to the adapter. */
  std::deque<PendingMmio> pending_;
  uint64_t posted_ = 0;
};

}  // namespace nicsim::hw::func
