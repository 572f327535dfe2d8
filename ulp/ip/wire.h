// SPDX-License-Identifier: Apache-2.0
// What the IP interface puts on the wire besides IPv4 packets: the ULP words that tell its
// frames apart, and the offer and answer of the RDMA path for large unicast datagrams.
#pragma once

#include <cstdint>

namespace nicsim::ulp::ip {

/** The ULP word of every frame holding an IPv4 packet ("IP4"). */
constexpr uint32_t kIpUlpWord = 0x49503400;
/** An offer of a datagram to read by RDMA (payload: RdmaOffer). */
constexpr uint32_t kIpOfferWord = 0x49503401;
/** The receiver's answer to an offer (payload: RdmaAnswer). */
constexpr uint32_t kIpAnswerWord = 0x49503402;
/** Bytes of one RDMA source or landing slot: room for the largest datagram. */
constexpr uint32_t kRdmaSlotBytes = 65536;

/** Sender to receiver: read the datagram in my source slot. */
struct RdmaOffer {
  /** The sender's source slot. */
  uint32_t slot;
  /** Bumped each time the slot is used: tells a copy or an older offer from the current. */
  uint32_t generation;
  /** The slot's rCxt at the sender (the read's remote rCxt). */
  uint32_t rcxt;
  /** Bytes of the whole IPv4 packet in the slot. */
  uint32_t length;
  /** PVO of the slot's first byte. */
  uint64_t pvo;
  /** CRC-32 of the packet: what lands is checked against it before it goes up. */
  uint32_t crc;
  /** Zero. */
  uint32_t reserved;
};
static_assert(sizeof(RdmaOffer) == 32, "IP RDMA offer layout");

/** Receiver to sender: the offer is done with (read), or send the datagram in fragments. */
struct RdmaAnswer {
  uint32_t slot;
  uint32_t generation;
  /** 1: the receiver did not get the bytes by RDMA; send them through the FIFOs. */
  uint32_t fallback;
};
static_assert(sizeof(RdmaAnswer) == 12, "IP RDMA answer layout");

}  // namespace nicsim::ulp::ip
