// SPDX-License-Identifier: Apache-2.0
// Interrupt generation with several handlers: each handler is ready or not; presenting an
// interrupt makes it not ready and an MMIO makes it ready again. Events raised while no
// handler is ready stay pending and go to the next handler that becomes ready.
#pragma once

#include <cstdint>
#include <vector>

#include "abi/mmio.h"
#include "firmware/counters.h"
#include "firmware/platform.h"

namespace nicsim::fw {

/** Pending interrupt events and handler readiness. */
class InterruptController {
 public:
  InterruptController(Platform& platform, Counters& counters, uint32_t handlers);

  /** A window's interrupt condition occurred. */
  void Raise(uint32_t window, abi::InterruptCause cause);
  /** The host says `handler` is ready again; pending events are presented at once. */
  void HandlerReady(uint32_t handler);
  uint32_t handlers() const { return static_cast<uint32_t>(ready_.size()); }
  /** All handlers ready, nothing pending (adapter reset). */
  void Reset();

 private:
  void Present();

  Platform& platform_;
  Counters& counters_;
  std::vector<bool> ready_;
  uint32_t next_handler_ = 0;
  /** Per window: cause bits pending. */
  std::vector<uint32_t> pending_;
  /** Windows with pending causes, in the order they became pending. */
  std::vector<uint32_t> pending_order_;
};

}  // namespace nicsim::fw
