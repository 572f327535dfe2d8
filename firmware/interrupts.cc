// SPDX-License-Identifier: Apache-2.0
// Interrupt presentation: round robin over ready handlers, carrying every event pending at
// that moment, so no event is lost while all handlers are busy.
#include "firmware/interrupts.h"

#include "abi/limits.h"

namespace nicsim::fw {

InterruptController::InterruptController(Platform& platform, Counters& counters, uint32_t handlers)
    : platform_(platform),
      counters_(counters),
      ready_(handlers, true),
      pending_(abi::kMaxWindows, 0) {}

void InterruptController::Raise(uint32_t window, abi::InterruptCause cause) {
  ++counters_.interrupt_events;
  if (pending_[window] == 0) pending_order_.push_back(window);
  pending_[window] |= static_cast<uint32_t>(cause);
  Present();
  if (!pending_order_.empty()) ++counters_.interrupts_deferred;
}

void InterruptController::HandlerReady(uint32_t handler) {
  if (handler >= ready_.size()) {
    ++counters_.bad_mmio;
    return;
  }
  ready_[handler] = true;
  Present();
}

void InterruptController::Present() {
  if (pending_order_.empty()) return;
  const uint32_t n = handlers();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t h = (next_handler_ + i) % n;
    if (!ready_[h]) continue;
    std::vector<abi::InterruptEvent> events;
    events.reserve(pending_order_.size());
    for (uint32_t w : pending_order_) {
      events.push_back({w, pending_[w]});
      pending_[w] = 0;
    }
    pending_order_.clear();
    ready_[h] = false;
    next_handler_ = (h + 1) % n;
    ++counters_.interrupts_presented;
    TraceEvent ev;
    ev.kind = TraceKind::kInterrupt;
    ev.window = events.front().window;
    ev.value = h;
    platform_.Trace(ev);
    platform_.RaiseInterrupt(h, events);
    return;
  }
}

void InterruptController::Reset() {
  for (size_t i = 0; i < ready_.size(); ++i) ready_[i] = true;
  for (uint32_t& p : pending_) p = 0;
  pending_order_.clear();
  next_handler_ = 0;
}

}  // namespace nicsim::fw
