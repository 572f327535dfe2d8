// SPDX-License-Identifier: Apache-2.0
// The push-pull protocol's knobs: which mode (push-pull, push-all, push-zero), the two push
// sizes BTP1 and BTP2, the pushed buffer and the pull rounds. Validate() names a bad field.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace nicsim::ulp::pushpull {

/** How much of a message travels eagerly before the receiver has asked for it. */
enum class Mode : uint32_t {
  /** BTP1 bytes pushed, then BTP2 more while the acknowledgement travels; the rest pulled. */
  kPushPull = 0,
  /** Every byte pushed through the pushed buffer, nothing pulled (comparison mode). */
  kPushAll = 1,
  /** Only a header is pushed; every byte is pulled after the acknowledgement (comparison). */
  kPushZero = 2,
};

/** "push-pull", "push-all", "push-zero". */
inline const char* ToString(Mode m) {
  switch (m) {
    case Mode::kPushPull:
      return "push-pull";
    case Mode::kPushAll:
      return "push-all";
    case Mode::kPushZero:
      return "push-zero";
  }
  return "unknown";
}

/** Granule of address translation: a zero buffer entry never crosses one of these. */
inline constexpr uint64_t kPageBytes = 4096;
/** Largest pull round, so one round's (address, length) list stays under IOV_MAX (1024). */
inline constexpr uint64_t kMaxPullRoundBytes = uint64_t{1000} * kPageBytes;

/** Sizes and mode of one run; every process of a run must use the same values. */
struct Params {
  /** Mode of every message. */
  Mode mode = Mode::kPushPull;
  /** BTP1: bytes of the first push (push-pull mode; may be 0: a header-only first push). */
  uint32_t btp1_bytes = 64;
  /** BTP2: bytes of the second push, sent without waiting for the first one's ack. */
  uint32_t btp2_bytes = 960;
  /** Bytes each push-all chunk carries (push-all mode only: the slot size then). */
  uint32_t push_all_chunk_bytes = 4096;
  /** Slots in each (sender, receiver) pushed buffer; a full ring makes pushes wait. */
  uint32_t pushed_slots = 2;
  /** Most bytes one pull request moves (also the fallback staging area's size). */
  uint64_t pull_round_bytes = 256 * 1024;
  /** Largest message Send accepts. */
  uint64_t max_message_bytes = uint64_t{1} << 30;

  /**
   * Data bytes of one pushed-buffer slot. In push-pull mode max(BTP1, BTP2): the two pushes
   * of a message are separate slots and the second may reuse the first's space once the
   * receiver has taken it out, so no slot ever needs BTP1 + BTP2.
   */
  uint32_t SlotBytes() const {
    switch (mode) {
      case Mode::kPushPull:
        return std::max(btp1_bytes, btp2_bytes);
      case Mode::kPushAll:
        return push_all_chunk_bytes;
      case Mode::kPushZero:
        return 0;
    }
    return 0;
  }

  /** Bytes of a `size`-byte message that are pushed (the rest is pulled). */
  uint64_t PushedBytesOf(uint64_t size) const {
    switch (mode) {
      case Mode::kPushPull:
        return std::min<uint64_t>(size, uint64_t{btp1_bytes} + btp2_bytes);
      case Mode::kPushAll:
        return size;
      case Mode::kPushZero:
        return 0;
    }
    return 0;
  }

  /** Ok if usable; else an error naming the first bad field. */
  Status Validate() const {
    auto bad = [](const std::string& field, const std::string& why) {
      return Status::Error("pushpull." + field + ": " + why);
    };
    if (mode != Mode::kPushPull && mode != Mode::kPushAll && mode != Mode::kPushZero) {
      return bad("mode", "must be push-pull, push-all or push-zero, is " +
                             std::to_string(static_cast<uint32_t>(mode)));
    }
    constexpr uint32_t kMaxPush = 1u << 20;
    if (btp1_bytes > kMaxPush) {
      return bad("btp1_bytes", "must be at most 1 MiB, is " + std::to_string(btp1_bytes));
    }
    if (btp2_bytes > kMaxPush) {
      return bad("btp2_bytes", "must be at most 1 MiB, is " + std::to_string(btp2_bytes));
    }
    if (mode == Mode::kPushPull && btp1_bytes == 0 && btp2_bytes == 0) {
      return bad("btp2_bytes",
                 "is 0 and so is pushpull.btp1_bytes: push-pull needs bytes to push "
                 "(that is push-zero mode)");
    }
    if (push_all_chunk_bytes == 0 || push_all_chunk_bytes > kMaxPush) {
      return bad("push_all_chunk_bytes",
                 "must be in [1, 1 MiB], is " + std::to_string(push_all_chunk_bytes));
    }
    if (pushed_slots == 0 || pushed_slots > 1024) {
      return bad("pushed_slots", "must be in [1, 1024], is " + std::to_string(pushed_slots));
    }
    if (pull_round_bytes < kPageBytes || pull_round_bytes > kMaxPullRoundBytes) {
      return bad("pull_round_bytes", "must be in [4096, " + std::to_string(kMaxPullRoundBytes) +
                                         "], is " + std::to_string(pull_round_bytes));
    }
    if (max_message_bytes == 0) return bad("max_message_bytes", "must be at least 1");
    return Status();
  }
};

}  // namespace nicsim::ulp::pushpull
