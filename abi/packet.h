// SPDX-License-Identifier: Apache-2.0
// The wire packet header carried across the switch fabric between adapters.
// Both the sending microcode and the receiving microcode include this one layout.
#pragma once

#include <cstdint>

namespace nicsim::abi {

/** What a packet is; the receiving microcode routes on it. */
enum class PacketType : uint8_t {
  kInvalid = 0,
  /** A packet-mode (FIFO mode) message: lands in the window's receive FIFO. */
  kFifo = 1,
  /** RDMA data: lands at the PVO it names (or in the receive FIFO with kToFifo). */
  kRdmaWrite = 2,
  /** RDMA read request (also third party, with kThirdParty): the receiver sends the data. */
  kRdmaReadRequest = 3,
  /** Header-only RDMA completion for the rCxt and tid it names. */
  kRdmaCompletion = 4,
  /** First value not yet defined; anything at or above it is unknown and dropped. */
  kFirstUnknown = 5,
};

/** Fixed-size header at the start of every frame on the fabric (little endian). */
struct WireHeader {
  /** Adapter the packet is routed to (global adapter id). */
  uint16_t dest_adapter;
  /** Window on the destination adapter. */
  uint16_t dest_window;
  /** Adapter that injected the packet. */
  uint16_t src_adapter;
  /** Window on the source adapter that sent it. */
  uint16_t src_window;
  /** Payload bytes following this header. */
  uint16_t len_bytes;
  /** A PacketType value. */
  uint8_t type;
  /** RDMA flags (abi/rdma.h kNotify*, kToFifo, ...); zero for packet mode. */
  uint8_t flags;
  /** The sending window's protection key, stamped by the sending microcode. */
  uint32_t protection_key;
  /** One word of upper-layer header carried through to the receive frame. */
  uint32_t ulp_word;
  /** RDMA: the receiving side's rCxt reference (zero in packet mode). */
  uint32_t rcxt_id;
  /** RDMA: transaction id for stale packet detection (zero in packet mode). */
  uint32_t tid;
  /** RDMA: byte offset of this packet in its transfer; read request: bytes to send. */
  uint32_t msg_offset;
  /** RDMA: protocol virtual offset of the payload's target (zero in packet mode). */
  uint64_t pvo;
  /** CRC-32 over this header (with crc zeroed) and the payload. */
  uint32_t crc;
  /** RDMA: the rCxt a completion for this packet must name (the other side's). */
  uint32_t aux;
};
static_assert(sizeof(WireHeader) == 48, "wire header layout is part of the ABI");

}  // namespace nicsim::abi
