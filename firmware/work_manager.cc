// SPDX-License-Identifier: Apache-2.0
// Ready vector scan and round robin. "Switch windows every k packets, even when k is 1."
#include "firmware/work_manager.h"

#include "abi/limits.h"

namespace nicsim::fw {
namespace {
abi::GlobalReg ReadyReg(uint32_t window) {
  return window < 64 ? abi::GlobalReg::kReadyLow : abi::GlobalReg::kReadyHigh;
}
}  // namespace

void WorkManager::SetReady(uint32_t window, bool on) {
  uint64_t& bits = ready_[window / 64];
  const uint64_t mask = uint64_t{1} << (window % 64);
  bits = on ? (bits | mask) : (bits & ~mask);
  platform_.WriteGlobalReg(ReadyReg(window), bits);
}

void WorkManager::Post(uint32_t window, uint32_t count) {
  posted_[window] += count;
  posted_mask_[window / 64] |= uint64_t{1} << (window % 64);
}

bool WorkManager::TakePosted(uint32_t* window, uint32_t* count) {
  for (uint32_t word = 0; word < 2; ++word) {
    if (posted_mask_[word] == 0) continue;
    *window = word * 64 + static_cast<uint32_t>(__builtin_ctzll(posted_mask_[word]));
    *count = posted_[*window];
    posted_[*window] = 0;
    posted_mask_[word] &= posted_mask_[word] - 1;
    return true;
  }
  return false;
}

void WorkManager::Reset() {
  cursor_ = taken_this_turn_ = 0;
  posted_.fill(0);
  posted_mask_[0] = posted_mask_[1] = 0;
  ready_[0] = ready_[1] = 0;
  platform_.WriteGlobalReg(abi::GlobalReg::kReadyLow, 0);
  platform_.WriteGlobalReg(abi::GlobalReg::kReadyHigh, 0);
}

bool WorkManager::NextWindow(uint32_t* window) const {
  static_assert(abi::kMaxWindows == 128, "the ready vector is two 64-bit registers");
  if (!AnyReady()) return false;  // the common case: nothing posted
  const uint64_t* bits = ready_;
  // Round robin from the cursor: the cursor's word from the cursor up, the other word,
  // then the cursor's word below the cursor.
  const uint32_t first = cursor_ / 64;
  const uint64_t at_or_above = ~uint64_t{0} << (cursor_ % 64);
  const uint64_t candidates[3] = {bits[first] & at_or_above, bits[first ^ 1],
                                  bits[first] & ~at_or_above};
  const uint32_t word_of[3] = {first, first ^ 1, first};
  for (int i = 0; i < 3; ++i) {
    if (candidates[i] != 0) {
      *window = word_of[i] * 64 + static_cast<uint32_t>(__builtin_ctzll(candidates[i]));
      return true;
    }
  }
  return false;
}

void WorkManager::Claimed(uint32_t window, uint32_t remaining) {
  if (window != cursor_) {
    cursor_ = window;
    taken_this_turn_ = 0;
  }
  // The ready bit clears when the window's last posted packet is claimed.
  if (remaining == 0) SetReady(window, false);
  if (++taken_this_turn_ >= switch_every_ || remaining == 0) {
    cursor_ = (window + 1) % abi::kMaxWindows;
    taken_this_turn_ = 0;
  }
}

}  // namespace nicsim::fw
