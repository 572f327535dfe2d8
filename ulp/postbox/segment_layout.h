// SPDX-License-Identifier: Apache-2.0
// Everything that lives in shared memory: the data segment (header, postbox slots, buffer
// blocks) and the ACK segment (one flag word per slot). Plain structs, offsets, no pointers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ulp/postbox/config.h"

namespace nicsim::ulp::postbox {

// A flag shared between processes must be a plain lock-free word: no hidden lock that would
// live in one process only, and the same four bytes in every mapping.
static_assert(std::atomic<uint32_t>::is_always_lock_free, "shared flags need lock-free atomics");
static_assert(sizeof(std::atomic<uint32_t>) == 4, "a shared flag is one 32-bit word");
static_assert(std::is_standard_layout_v<std::atomic<uint32_t>>, "flags sit in plain structs");

/** Marks a data segment whose header is complete ("PBXD"). */
inline constexpr uint32_t kDataMagic = 0x50425844;
/** Layout version; a receiver refuses a segment of another version. */
inline constexpr uint32_t kLayoutVersion = 1;
/** Alignment of every area and slot: one cache line, so slots do not share lines. */
inline constexpr size_t kAlign = 64;

/** The sequence number after `seq` (sender's posting and receiver's expectation alike); 0 is
 *  skipped because a fresh slot and a fresh ACK flag hold 0. */
constexpr uint32_t NextSeq(uint32_t seq) { return seq + 1 == 0 ? 1 : seq + 1; }

/** Rounds `n` up to a multiple of kAlign. */
constexpr size_t AlignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

/**
 * Start of a data segment G(sender, node): one per sending process and receiving node. The
 * sender fills it, then publishes `magic` with release order; a receiver that finds the
 * segment reads nothing else until it sees the magic with acquire order.
 */
struct DataSegmentHeader {
  /** kDataMagic once the header and slot area are initialised; 0 before. */
  std::atomic<uint32_t> magic;
  /** kLayoutVersion of the writer. */
  uint32_t version;
  /** Node of the sending process (the segment's owner). */
  uint32_t sender_node;
  /** Rank of the sending process on its node. */
  uint32_t sender_rank;
  /** Node whose processes receive through this segment. */
  uint32_t receiver_node;
  /** Receivers on that node: one postbox (of slots_per_receiver slots) each. */
  uint32_t receiver_count;
  /** Slots in each receiver's postbox. */
  uint32_t slots_per_receiver;
  /** Message bytes a slot carries inline. */
  uint32_t inline_bytes;
  /** Cyclic transaction size = length of a buffer block. */
  uint32_t piece_bytes;
  /** Buffer blocks in the pool. */
  uint32_t block_count;
  /** Bytes from one slot to the next (header plus inline bytes, aligned). */
  uint32_t slot_stride;
  /** Unused; zero. */
  uint32_t reserved;
  /** Offset of the first postbox slot from the segment's base. */
  uint64_t slot_area_offset;
  /** Offset of the first buffer block from the segment's base. */
  uint64_t block_area_offset;
  /** Length of the whole segment. */
  uint64_t total_bytes;
};
static_assert(sizeof(DataSegmentHeader) == 72, "data segment header layout changed");
static_assert(std::is_standard_layout_v<DataSegmentHeader>, "shared structs are plain");

/** What a postbox slot holds. */
enum class SlotKind : uint32_t {
  /** A whole small message in the slot's inline bytes. */
  kInline = 1,
  /** One piece of a large message, in the buffer block the slot names. */
  kPiece = 2,
};

/**
 * One postbox slot; `inline_bytes` of message data follow it. The sender writes every field
 * and then `posted_seq` (release); the receiver owns the slot from when it sees the sequence
 * number it expects (acquire) until it writes that number to the slot's ACK flag.
 */
struct PostboxSlot {
  /** Sequence number (per sender and receiver, from 1) of what the slot holds; 0 = never. */
  std::atomic<uint32_t> posted_seq;
  /** SlotKind of the contents. */
  uint32_t kind;
  /** For kPiece: index of the buffer block holding the piece. */
  uint32_t block_index;
  /** Bytes in this slot's piece (or the whole inline message). */
  uint32_t piece_bytes;
  /** Length of the whole message the piece belongs to. */
  uint64_t message_bytes;
  /** Where in the message this piece starts. */
  uint64_t piece_offset;
  /** The sender's number for the message (its send handle), to check reassembly. */
  uint64_t message_id;
};
static_assert(sizeof(PostboxSlot) == 40, "postbox slot layout changed");
static_assert(std::is_standard_layout_v<PostboxSlot>, "shared structs are plain");

/**
 * One ACK flag of the ACK segment. The receiver writes the sequence number of the slot it has
 * finished with (release); the sender reclaims the slot and its block when the flag equals
 * what it posted (acquire). One writer per word, so no locks.
 */
struct AckSlot {
  /** Sequence number of the latest slot contents this receiver has consumed. */
  std::atomic<uint32_t> acked_seq;
};
static_assert(sizeof(AckSlot) == 4, "ACK slot layout changed");

/** Where things are inside a data segment, computed the same way by everyone. */
struct DataLayout {
  /** Bytes from one postbox slot to the next. */
  size_t slot_stride = 0;
  /** Offset of slot 0 of receiver 0. */
  size_t slot_area_offset = 0;
  /** Offset of block 0. */
  size_t block_area_offset = 0;
  /** Length of the segment. */
  size_t total_bytes = 0;
};

/** The layout of a data segment for `receivers` receivers under `params`. */
inline DataLayout ComputeDataLayout(uint32_t receivers, const Params& params) {
  DataLayout l;
  l.slot_stride = AlignUp(sizeof(PostboxSlot) + params.inline_bytes);
  l.slot_area_offset = AlignUp(sizeof(DataSegmentHeader));
  l.block_area_offset =
      AlignUp(l.slot_area_offset + size_t{receivers} * params.slots_per_receiver * l.slot_stride);
  l.total_bytes = l.block_area_offset + size_t{params.pool_blocks} * params.piece_bytes;
  return l;
}

/**
 * Length of the ACK segment of a node pair: one section per process of the sending node,
 * within it one ACK block per process of the receiving node, within that one flag per slot.
 */
inline size_t AckSegmentBytes(uint32_t senders, uint32_t receivers, const Params& params) {
  return AlignUp(size_t{senders} * receivers * params.slots_per_receiver * sizeof(AckSlot));
}

/** Offset of the ACK flag for (sender rank, receiver rank, slot) in an ACK segment. */
inline size_t AckOffset(uint32_t sender_rank, uint32_t receiver_rank, uint32_t slot,
                        uint32_t receivers, const Params& params) {
  return ((size_t{sender_rank} * receivers + receiver_rank) * params.slots_per_receiver + slot) *
         sizeof(AckSlot);
}

/** Name of the data segment G(sender, node). */
inline std::string DataSegmentName(ProcessId sender, uint32_t receiver_node) {
  return "pbx-data-" + sender.ToString() + "-to-n" + std::to_string(receiver_node);
}

/** Name of the ACK segment on `sender_node` that `receiver_node`'s processes write to. */
inline std::string AckSegmentName(uint32_t sender_node, uint32_t receiver_node) {
  return "pbx-ack-n" + std::to_string(sender_node) + "-from-n" + std::to_string(receiver_node);
}

/** The slot for (receiver, slot index) in a mapped data segment. */
inline PostboxSlot* SlotAt(void* base, const DataLayout& l, uint32_t receiver, uint32_t slot,
                           uint32_t slots_per_receiver) {
  return reinterpret_cast<PostboxSlot*>(static_cast<uint8_t*>(base) + l.slot_area_offset +
                                        (size_t{receiver} * slots_per_receiver + slot) *
                                            l.slot_stride);
}

/** The inline bytes that follow a slot. */
inline uint8_t* InlineData(PostboxSlot* slot) {
  return reinterpret_cast<uint8_t*>(slot) + sizeof(PostboxSlot);
}

/** Buffer block `index` in a mapped data segment. */
inline uint8_t* BlockAt(void* base, const DataLayout& l, uint32_t index, uint32_t piece_bytes) {
  return static_cast<uint8_t*>(base) + l.block_area_offset + size_t{index} * piece_bytes;
}

}  // namespace nicsim::ulp::postbox
