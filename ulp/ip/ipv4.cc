// SPDX-License-Identifier: Apache-2.0
#include "ulp/ip/ipv4.h"

#include <fmt/format.h>

namespace nicsim::ulp::ip {
namespace {

void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void Put32(uint8_t* p, uint32_t v) {
  Put16(p, static_cast<uint16_t>(v >> 16));
  Put16(p + 2, static_cast<uint16_t>(v));
}
uint16_t Get16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t Get32(const uint8_t* p) { return (uint32_t{Get16(p)} << 16) | Get16(p + 2); }

/** Window numbers that have an address: host octets 1..254 (0 and 255 are reserved). */
constexpr uint16_t kMaxAddressedWindow = 253;

}  // namespace

uint16_t InternetChecksum(const uint8_t* data, size_t len) {
  uint32_t sum = 0;
  size_t i = 0;
  for (; i + 1 < len; i += 2) sum += Get16(data + i);
  if (i < len) sum += uint32_t{data[i]} << 8;
  while ((sum >> 16) != 0) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

void WriteHeader(const Header& h, uint8_t* out) {
  out[0] = 0x45;  // version 4, five 32-bit words
  out[1] = h.tos;
  Put16(out + 2, h.total_length);
  Put16(out + 4, h.id);
  uint16_t flags = static_cast<uint16_t>((h.offset_bytes / 8) & kOffsetMask);
  if (h.dont_fragment) flags |= kFlagDontFragment;
  if (h.more_fragments) flags |= kFlagMoreFragments;
  Put16(out + 6, flags);
  out[8] = h.ttl;
  out[9] = h.protocol;
  Put16(out + 10, 0);
  Put32(out + 12, h.src);
  Put32(out + 16, h.dst);
  Put16(out + 10, InternetChecksum(out, kHeaderBytes));
}

HeaderError ReadHeader(const uint8_t* data, size_t len, Header* out) {
  if (len < kHeaderBytes || data[0] != 0x45) return HeaderError::kMalformed;
  if (InternetChecksum(data, kHeaderBytes) != 0) return HeaderError::kBadChecksum;
  Header h;
  h.tos = data[1];
  h.total_length = Get16(data + 2);
  h.id = Get16(data + 4);
  const uint16_t flags = Get16(data + 6);
  h.dont_fragment = (flags & kFlagDontFragment) != 0;
  h.more_fragments = (flags & kFlagMoreFragments) != 0;
  h.offset_bytes = uint32_t{static_cast<uint16_t>(flags & kOffsetMask)} * 8;
  h.ttl = data[8];
  h.protocol = data[9];
  h.src = Get32(data + 12);
  h.dst = Get32(data + 16);
  // The reserved flag bit must be clear; the length must be the packet's.
  if ((flags & 0x8000) != 0 || h.total_length != len) return HeaderError::kMalformed;
  *out = h;
  return HeaderError::kNone;
}

std::optional<uint32_t> AddressOf(hal::Peer p) {
  if (p.window > kMaxAddressedWindow) return std::nullopt;
  return kSubnet | (uint32_t{p.adapter} << 8) | (uint32_t{p.window} + 1);
}

std::optional<hal::Peer> PeerOf(uint32_t address) {
  if ((address & kSubnetMask) != kSubnet) return std::nullopt;
  const uint32_t host = address & 0xFF;
  if (host == 0 || host > kMaxAddressedWindow + 1u) return std::nullopt;
  return hal::Peer{static_cast<uint16_t>((address >> 8) & 0xFFFF), static_cast<uint16_t>(host - 1)};
}

std::string FormatAddress(uint32_t a) {
  return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 0xFF, (a >> 8) & 0xFF, a & 0xFF);
}

}  // namespace nicsim::ulp::ip
