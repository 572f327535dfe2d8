// SPDX-License-Identifier: Apache-2.0
// Host-memory layouts of the send FIFO slot and the receive FIFO frame headers.
// The HAL writes send slots and reads receive frames; the microcode does the reverse.
#pragma once

#include <cstdint>

#include "abi/limits.h"

namespace nicsim::abi {

/** Life of a send FIFO slot, held in its header's status byte. */
enum class SendSlotStatus : uint8_t {
  /** Never used since the window opened: free for the ULP. */
  kEmpty = 0,
  /** Filled by the ULP and counted in a StartTransmit: the adapter owns it. */
  kPosted = 1,
  /** The adapter injected the packet and rewrote the header: free for the ULP. */
  kComplete = 2,
  /** The adapter refused the slot (bad length, type); free for the ULP. */
  kRejected = 3,
};

/** The 16-byte header at the start of a send FIFO slot's first cache line. */
struct SendSlotHeader {
  /** Global id of the destination adapter. */
  uint16_t dest_adapter;
  /** Window on the destination adapter. */
  uint16_t dest_window;
  /** Payload bytes that follow this header in the slot. */
  uint16_t len_bytes;
  /** A PacketType value. */
  uint8_t type;
  /** A SendSlotStatus value; the adapter rewrites it on completion. */
  uint8_t status;
  /** One word of upper-layer header delivered with the packet. */
  uint32_t ulp_word;
  /** Reserved; zero. */
  uint32_t reserved;
};
static_assert(sizeof(SendSlotHeader) == kSendHeaderBytes, "send slot header is 16 bytes");

/** Nonzero marker in RecvFrameHeader::valid: the frame holds a packet not yet consumed. */
inline constexpr uint8_t kRecvFrameValid = 0xA5;

/**
 * The 16-byte header at the start of a receive FIFO frame. It sits in the frame's first
 * cache line, which the microcode writes last: a nonzero `valid` is the arrival signal.
 */
struct RecvFrameHeader {
  /** kRecvFrameValid when a packet has arrived; the ULP zeroes it on consumption. */
  uint8_t valid;
  /** A PacketType value. */
  uint8_t type;
  /** Payload bytes following this header in the frame. */
  uint16_t len_bytes;
  /** Global id of the sending adapter. */
  uint16_t src_adapter;
  /** Window on the sending adapter. */
  uint16_t src_window;
  /** The sender's upper-layer header word. */
  uint32_t ulp_word;
  /** Reserved; zero. */
  uint32_t reserved;
};
static_assert(sizeof(RecvFrameHeader) == kRecvHeaderBytes, "receive frame header is 16 bytes");

}  // namespace nicsim::abi
