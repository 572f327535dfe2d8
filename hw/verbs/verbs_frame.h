// SPDX-License-Identifier: Apache-2.0
// How a nicsim frame travels in an unreliable-datagram message: an 8-byte link header (the
// role Ethernet plays on the DPDK port) before the WireHeader and payload; drops by reason.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "abi/limits.h"
#include "abi/packet.h"
#include "hw/common/link.h"

namespace nicsim::hw::verbs {

/**
 * Protocol tag of a nicsim frame in a UD message: 0x88B5, the EtherType the DPDK port uses
 * (IEEE 802 Local Experimental EtherType 1), so a capture shows the same value on both links.
 */
inline constexpr uint16_t kNicsimProtocol = 0x88B5;

/**
 * Bytes a UD receive buffer reserves in front of every message for the Global Routing Header.
 * The HCA writes the GRH there when the packet carries one (RoCE always, IB across subnets);
 * otherwise the 40 bytes are undefined. Either way the message starts 40 bytes in.
 */
inline constexpr uint32_t kGrhBytes = 40;

/**
 * The link header at the start of every UD message, in front of the nicsim frame. UD delivers
 * the source QP and LID, not an adapter id, so the header names both adapters, as the MAC
 * addresses do on the DPDK port.
 */
struct VerbsLinkHeader {
  /** kNicsimProtocol, big endian (as an EtherType on the wire). */
  uint8_t protocol[2];
  /** Adapter the frame is for, little endian like abi/. */
  uint16_t dest_adapter;
  /** Adapter that sent it, little endian. */
  uint16_t src_adapter;
  /** Zero when sent; ignored when received. */
  uint16_t reserved;
};
static_assert(sizeof(VerbsLinkHeader) == 8, "the verbs link header is part of the wire format");
inline constexpr uint32_t kLinkHeaderBytes = sizeof(VerbsLinkHeader);

/**
 * Default MTU of a verbs port: the largest nicsim frame (a WireHeader and the largest
 * single-packet payload with 128-byte lines), as on the DPDK port. The link header is not
 * part of it; the port's path MTU must hold both (a 4,096-byte IB MTU does, 2,048 does not).
 */
inline constexpr uint32_t kDefaultMtuBytes = sizeof(abi::WireHeader) + abi::MaxPacketPayload(128);

/** Why a verbs port dropped a frame; the names are stats keys. */
enum class VerbsPortDrop : uint8_t {
  /** Received: shorter than the GRH space and a link header. */
  kRunt,
  /**
   * Received: more than MTU nicsim bytes, or too long for the receive buffer (the HCA reports
   * a local length error and the message is lost).
   */
  kOverMtu,
  /** Received: the link header's protocol is not 0x88B5. */
  kWrongProtocol,
  /** Received: a receive completed with an error status other than a length error. */
  kRxCompletionError,
  /** Sent: the frame is larger than the MTU (a model bug; the HCA would refuse it). */
  kTxOverMtu,
  /** Sent: no address handle for the destination adapter (not a configured peer). */
  kTxUnknownPeer,
  /** Sent: every send buffer stayed in flight through every retry. */
  kTxQueueFull,
  /** Sent: ibv_post_send refused the work request. */
  kTxPostFailed,
  /** Sent: the send completed with an error status. */
  kTxCompletionError,
  /** Sent: the port was stopped. */
  kTxPortStopped,
  kCount,
};

/** Stats names of VerbsPortDrop, in enum order. */
inline constexpr std::array<std::string_view, static_cast<size_t>(VerbsPortDrop::kCount)>
    kVerbsPortDropNames = {"runt",
                           "over_mtu",
                           "wrong_protocol",
                           "rx_completion_error",
                           "tx_over_mtu",
                           "tx_unknown_peer",
                           "tx_queue_full",
                           "tx_post_failed",
                           "tx_completion_error",
                           "tx_port_stopped"};

/** The stats name of a verbs port drop reason. */
constexpr std::string_view ToString(VerbsPortDrop reason) {
  return kVerbsPortDropNames[static_cast<size_t>(reason)];
}

/** What a verbs port counts; frames that reach the adapter are checked further by the microcode. */
struct VerbsPortCounters {
  /** Frames handed to the adapter, and their nicsim bytes (header and payload). */
  uint64_t rx_frames = 0;
  uint64_t rx_bytes = 0;
  /** Frames posted for sending, and their nicsim bytes. */
  uint64_t tx_frames = 0;
  uint64_t tx_bytes = 0;
  /** Extra send-completion polls because every send buffer was in flight. */
  uint64_t tx_retries = 0;
  std::array<uint64_t, static_cast<size_t>(VerbsPortDrop::kCount)> drops{};

  uint64_t drop(VerbsPortDrop reason) const { return drops[static_cast<size_t>(reason)]; }
  void CountDrop(VerbsPortDrop reason) { ++drops[static_cast<size_t>(reason)]; }
  /** Every drop, received and sent. */
  uint64_t total_drops() const;
};

/** Bytes of a UD message carrying a nicsim frame of `frame_bytes`: link header and frame. */
constexpr uint32_t MessageBytes(uint32_t frame_bytes) { return kLinkHeaderBytes + frame_bytes; }

/**
 * Device-to-wire: writes the link header and `frame`'s bytes (CRC already stamped) to `out`,
 * which holds at least MessageBytes(frame.bytes.size()). Returns the message length.
 */
uint32_t EncodeMessage(const Frame& frame, uint8_t* out);

/**
 * Wire-to-device: checks one received buffer of `byte_len` bytes as the HCA reports them
 * (GRH space included). Fills `frame` and returns true when it goes to the adapter; otherwise
 * counts the drop in `counters` and returns false. Only the link layer is checked (runt, MTU,
 * protocol): a frame that passes goes to the microcode as it is, with crc_deferred false, so
 * the microcode counts truncated headers, bad CRCs, unknown types and length mismatches.
 */
bool DecodeMessage(const uint8_t* buffer, uint32_t byte_len, uint32_t mtu_bytes, Frame* frame,
                   VerbsPortCounters* counters);

}  // namespace nicsim::hw::verbs
