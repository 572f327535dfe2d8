// SPDX-License-Identifier: Apache-2.0
// Values parked in reusable slots while an event is pending for them: the event's closure
// carries a 32-bit slot instead of the value, so it stays small enough to need no allocation.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace nicsim::hw::func {

/** Reusable slots of T; a slot's value lives until the slot is parked again. */
template <typename T>
class SlotPool {
 public:
  /** Puts `value` in a free slot (a new one when none is free) and returns the slot. */
  uint32_t Park(T value) {
    if (free_.empty()) {
      slots_.push_back(std::move(value));
      return static_cast<uint32_t>(slots_.size() - 1);
    }
    const uint32_t slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(value);
    return slot;
  }
  /** The value in `slot`; valid until the next Park (which may grow the pool). */
  T& operator[](uint32_t slot) { return slots_[slot]; }
  /** `slot` may be reused. */
  void Release(uint32_t slot) { free_.push_back(slot); }

 private:
  std::vector<T> slots_;
  std::vector<uint32_t> free_;
};

}  // namespace nicsim::hw::func
