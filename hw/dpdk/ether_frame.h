// SPDX-License-Identifier: Apache-2.0
// How a nicsim frame travels in an Ethernet frame on a DPDK port (EtherType 0x88B5), and the
// receive-side checks of the Ethernet layer; no DPDK here, so tests and fuzzers need no EAL.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "abi/limits.h"
#include "abi/packet.h"
#include "base/counter_table.h"
#include "hw/common/link.h"

namespace nicsim::hw::dpdk {

/**
 * EtherType of a nicsim frame: 0x88B5, IEEE Std 802 "Local Experimental EtherType 1",
 * reserved for private and experimental protocols, so it never collides with a registered
 * protocol on a shared link and needs no registration.
 */
inline constexpr uint16_t kNicsimEtherType = 0x88B5;
/** Destination MAC, source MAC and EtherType; no VLAN tag, no FCS (the NIC adds it). */
inline constexpr uint32_t kEthernetHeaderBytes = 14;
/**
 * Default MTU of a nicsim port: the largest nicsim frame, a WireHeader and the largest
 * single-packet payload (128-byte lines). The Ethernet header is not part of the MTU.
 */
inline constexpr uint32_t kDefaultMtuBytes = sizeof(abi::WireHeader) + abi::MaxPacketPayload(128);

/**
 * The MAC address of adapter `adapter`: 02:6e:73:00:hi:lo, a locally administered unicast
 * address ("ns" for nicsim) ending in the adapter id, big endian; for abi::kBroadcastAdapter the
 * Ethernet broadcast address (whose last two bytes read back as that id).
 */
std::array<uint8_t, 6> AdapterMac(uint16_t adapter);

/** The adapter id in the last two bytes of a MAC made by AdapterMac (6 bytes at `mac`). */
uint16_t AdapterOfMac(const uint8_t* mac);

/** Why a port dropped a frame (kPortDrops says each). */
enum class PortDrop : uint8_t {
  kRunt,
  kOverMtu,
  kWrongEtherType,
  kMultiSegment,
  kTxOverMtu,
  kTxNoMbuf,
  kTxRingFull,
  kTxPortStopped,
  kCount,
};

/** Each PortDrop, in enum order: its stats key and its meaning. */
inline constexpr std::array<CounterDoc, static_cast<size_t>(PortDrop::kCount)> kPortDrops = {{
    {"runt", "received: shorter than an Ethernet header"},
    {"over_mtu", "received: more than MTU bytes after the Ethernet header"},
    {"wrong_ethertype", "received: not EtherType 0x88B5 (VLAN-tagged frames included)"},
    // The port never enables scatter and its MTU fits one mbuf, so a chain is something it
    // did not ask for: dropped rather than linearised.
    {"multi_segment",
     "received: a chained mbuf, or one whose packet length disagrees with its data length"},
    {"tx_over_mtu",
     "sent: the frame is larger than the MTU (a model bug; the wire would refuse "
     "it)"},
    {"tx_no_mbuf", "sent: no free mbuf in the port's pool"},
    {"tx_ring_full",
     "sent: the transmit queue stayed full while the port held its whole backlog, or at stop"},
    {"tx_port_stopped", "sent: the port was stopped"},
}};

inline constexpr auto kPortDropNames = NamesOf(kPortDrops);

/** The stats name of a port drop reason. */
constexpr std::string_view ToString(PortDrop reason) {
  return kPortDropNames[static_cast<size_t>(reason)];
}

/**
 * Checks the Ethernet layer of one received frame of `len` bytes at `data` (one contiguous
 * buffer): runt, then size against `mtu_bytes`, then EtherType. A frame that passes fills
 * `frame` with the nicsim bytes after the Ethernet header (even fewer than a WireHeader: the
 * microcode counts that as truncated_header), the adapters named by the MACs, and
 * crc_deferred false, and returns true. Otherwise sets `*drop` and returns false.
 */
bool DecodeEthernetFrame(const uint8_t* data, uint32_t len, uint32_t mtu_bytes, Frame* frame,
                         PortDrop* drop);

}  // namespace nicsim::hw::dpdk
