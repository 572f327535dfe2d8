// SPDX-License-Identifier: Apache-2.0
// Everything one (sender, receiver) channel keeps in shared memory: header, control words,
// the pull request with its zero buffer, the fallback staging area and the pushed buffer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ulp/pushpull/config.h"
#include "ulp/pushpull/platform.h"

namespace nicsim::ulp::pushpull {

static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared words need lock-free atomics");
static_assert(sizeof(std::atomic<uint64_t>) == 8, "a shared word is 64 bits");

/** Marks a channel whose header is complete ("PPCH"). */
inline constexpr uint32_t kChannelMagic = 0x50504348;
/** Layout version; a sender refuses a channel of another version. */
inline constexpr uint32_t kChannelVersion = 1;
/** Alignment of every area and slot: one cache line. */
inline constexpr size_t kLineBytes = 64;

/** Rounds `n` up to a multiple of kLineBytes. */
constexpr size_t LineUp(size_t n) { return (n + kLineBytes - 1) / kLineBytes * kLineBytes; }

/**
 * Start of a channel. The receiver makes the channel, fills the header and publishes `magic`
 * last (release); a sender reads nothing else before it sees the magic (acquire).
 */
struct ChannelHeader {
  /** kChannelMagic once the header is complete. */
  std::atomic<uint32_t> magic;
  /** kChannelVersion of the maker. */
  uint32_t version;
  /** Rank of the process that sends through the channel. */
  uint32_t sender;
  /** Rank of the process that receives (and made the channel). */
  uint32_t receiver;
  /** Params::mode, as a number. */
  uint32_t mode;
  /** Data bytes per pushed-buffer slot (Params::SlotBytes()). */
  uint32_t slot_bytes;
  /** Slots in the pushed buffer. */
  uint32_t slots;
  /** Capacity of the pull request's extent list. */
  uint32_t max_extents;
  /** The receiver's Platform::ProcessToken(): where the sender's cross copies go. */
  uint64_t receiver_token;
  /** Params::pull_round_bytes (and the staging area's length). */
  uint64_t pull_round_bytes;
  /** Offset of the PullRequest. */
  uint64_t request_offset;
  /** Offset of the staging area. */
  uint64_t staging_offset;
  /** Offset of pushed-buffer slot 0. */
  uint64_t slot_offset;
  /** Bytes from one slot to the next. */
  uint64_t slot_stride;
  /** Length of the channel. */
  uint64_t total_bytes;
};
static_assert(sizeof(ChannelHeader) == 88, "channel header layout changed");
static_assert(std::is_standard_layout_v<ChannelHeader>, "shared structs are plain");

/**
 * The words that move the protocol, each on its own line and with one writer. The receiver
 * writes `consumed` (pushed slots emptied) and `request_gen` (a new PullRequest is ready); the
 * sender writes `reply_gen` (that request is served) with `reply_staged` before it.
 */
struct ChannelControl {
  /** Receiver: pushed slots taken out so far (slot i is free again once consumed > i). */
  alignas(kLineBytes) std::atomic<uint64_t> consumed;
  /** Receiver: generation of the latest PullRequest (0: none yet). */
  alignas(kLineBytes) std::atomic<uint64_t> request_gen;
  /** Sender: generation of the latest request served. */
  alignas(kLineBytes) std::atomic<uint64_t> reply_gen;
  /** Sender: 1 if that round's bytes are in the staging area (no cross copy), else 0. */
  uint64_t reply_staged;
};
static_assert(sizeof(ChannelControl) == 3 * kLineBytes, "channel control layout changed");

/**
 * A pull request: the acknowledgement of a push (its first one for a message) and every
 * later round. Names a byte range of message `message_seq` and the receiver's destination
 * zero buffer for it; `max_extents` Extents follow the struct.
 */
struct PullRequest {
  /** The sender's sequence number of the message (per channel, from 1). */
  uint64_t message_seq;
  /** First byte of the message to move. */
  uint64_t offset;
  /** Bytes to move (0 only in a last request of a message the receive truncated). */
  uint64_t bytes;
  /** Extents that follow. */
  uint32_t extent_count;
  /** 1 if the receiver wants nothing more of this message after this round. */
  uint32_t last;
};
static_assert(sizeof(PullRequest) == 32, "pull request layout changed");
static_assert(sizeof(Extent) == 16, "zero buffer entry layout changed");

/**
 * One pushed-buffer slot; `slot_bytes` of data follow it. The sender writes every field and
 * the data, then `posted` = index + 1 (release); the receiver takes it when `posted` is the
 * index it expects and frees it by advancing ChannelControl::consumed.
 */
struct PushSlot {
  /** 1 + the slot's index in the channel's push sequence (0: never written). */
  std::atomic<uint64_t> posted;
  /** The message's sequence number on this channel (from 1). */
  uint64_t message_seq;
  /** Length of the whole message. */
  uint64_t message_bytes;
  /** Bytes of the message that are pushed in all (the rest is pulled). */
  uint64_t push_bytes;
  /** Where in the message this slot's bytes start. */
  uint64_t offset;
  /** Bytes in this slot. */
  uint32_t bytes;
  /** The message's tag. */
  uint32_t tag;
};
static_assert(sizeof(PushSlot) == 48, "push slot layout changed");
static_assert(std::is_standard_layout_v<PushSlot>, "shared structs are plain");

/** Where things are in a channel, computed the same way by both ends. */
struct ChannelLayout {
  size_t control_offset = 0;
  size_t request_offset = 0;
  uint32_t max_extents = 0;
  size_t staging_offset = 0;
  size_t slot_offset = 0;
  size_t slot_stride = 0;
  size_t total_bytes = 0;
};

/** The layout of a channel under `p`. */
inline ChannelLayout ComputeChannelLayout(const Params& p) {
  ChannelLayout l;
  l.control_offset = LineUp(sizeof(ChannelHeader));
  l.request_offset = l.control_offset + sizeof(ChannelControl);
  // A range of R bytes touches at most R / page + 2 pages.
  l.max_extents = static_cast<uint32_t>(p.pull_round_bytes / kPageBytes + 2);
  l.staging_offset =
      LineUp(l.request_offset + sizeof(PullRequest) + size_t{l.max_extents} * sizeof(Extent));
  l.slot_offset = LineUp(l.staging_offset + p.pull_round_bytes);
  l.slot_stride = LineUp(sizeof(PushSlot) + p.SlotBytes());
  l.total_bytes = l.slot_offset + size_t{p.pushed_slots} * l.slot_stride;
  return l;
}

/** Name of the channel from `sender` to `receiver`. */
inline std::string ChannelName(uint32_t sender, uint32_t receiver) {
  return "pp-ch-" + std::to_string(sender) + "-to-" + std::to_string(receiver);
}

/** Typed views of a mapped channel. */
struct ChannelView {
  uint8_t* base = nullptr;
  ChannelLayout layout;

  ChannelHeader* header() const { return reinterpret_cast<ChannelHeader*>(base); }
  ChannelControl* control() const {
    return reinterpret_cast<ChannelControl*>(base + layout.control_offset);
  }
  PullRequest* request() const {
    return reinterpret_cast<PullRequest*>(base + layout.request_offset);
  }
  Extent* request_extents() const {
    return reinterpret_cast<Extent*>(base + layout.request_offset + sizeof(PullRequest));
  }
  uint8_t* staging() const { return base + layout.staging_offset; }
  /** Slot for push index `index` (the ring wraps). */
  PushSlot* slot(uint64_t index, uint32_t slots) const {
    return reinterpret_cast<PushSlot*>(base + layout.slot_offset +
                                       (index % slots) * layout.slot_stride);
  }
  static uint8_t* SlotData(PushSlot* s) { return reinterpret_cast<uint8_t*>(s) + sizeof(PushSlot); }
};

}  // namespace nicsim::ulp::pushpull
