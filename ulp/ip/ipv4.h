// SPDX-License-Identifier: Apache-2.0
// IPv4 as the adapter's IP interface uses it: the 20-byte header (no options), its checksum,
// and the ARP-free mapping between a window on the fabric and its address.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "hal/peer.h"

namespace nicsim::ulp::ip {

/** Header bytes; the interface sends no options (and drops packets that carry some). */
constexpr uint32_t kHeaderBytes = 20;
/** Largest IPv4 datagram (header and payload), the total-length field's limit. */
constexpr uint32_t kMaxDatagramBytes = 65535;
/** Largest payload of one datagram. */
constexpr uint32_t kMaxPayloadBytes = kMaxDatagramBytes - kHeaderBytes;
/** Flags field bits (in the 16-bit flags/offset word). */
constexpr uint16_t kFlagDontFragment = 0x4000;
constexpr uint16_t kFlagMoreFragments = 0x2000;
constexpr uint16_t kOffsetMask = 0x1FFF;

/** The subnet every window's address is in: 10.0.0.0/8. */
constexpr uint32_t kSubnet = 0x0A000000;
constexpr uint32_t kSubnetMask = 0xFF000000;
constexpr uint32_t kSubnetBroadcast = kSubnet | ~kSubnetMask;
constexpr uint32_t kLimitedBroadcast = 0xFFFFFFFF;

/** The fields of a header, host byte order. */
struct Header {
  uint8_t tos = 0;
  uint16_t total_length = 0;
  uint16_t id = 0;
  bool dont_fragment = false;
  bool more_fragments = false;
  /** Offset of this fragment's payload in the datagram's, in bytes (a multiple of 8). */
  uint32_t offset_bytes = 0;
  uint8_t ttl = 64;
  uint8_t protocol = 0;
  uint32_t src = 0;
  uint32_t dst = 0;
};

/** The Internet checksum (RFC 1071) of `len` bytes. */
uint16_t InternetChecksum(const uint8_t* data, size_t len);
/** Writes `h` as 20 bytes at `out`, with its checksum. */
void WriteHeader(const Header& h, uint8_t* out);

/** Why a packet's header was refused. */
enum class HeaderError { kNone, kMalformed, kBadChecksum };
/**
 * Reads the header of the `len`-byte packet at `data`: version 4, no options, a total length
 * equal to `len`, a fragment offset that fits; then the checksum.
 */
HeaderError ReadHeader(const uint8_t* data, size_t len, Header* out);

/** The address of window `p`: 10.(adapter >> 8).(adapter & 255).(window + 1). */
std::optional<uint32_t> AddressOf(hal::Peer p);
/** The window an address names, if it is a unicast address of the subnet. */
std::optional<hal::Peer> PeerOf(uint32_t address);
/** True for 255.255.255.255 and the subnet's broadcast (10.255.255.255). */
inline bool IsBroadcast(uint32_t address) {
  return address == kLimitedBroadcast || address == kSubnetBroadcast;
}
/** "a.b.c.d". */
std::string FormatAddress(uint32_t address);

}  // namespace nicsim::ulp::ip
