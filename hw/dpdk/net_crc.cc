// SPDX-License-Identifier: Apache-2.0
// Frame CRC through rte_net_crc_calc(RTE_NET_CRC32_ETH): the same polynomial, reflection and
// final inversion as base/crc32.cc, so the bytes on the wire are the same either way.
#include "hw/dpdk/net_crc.h"

#include <rte_net_crc.h>

#include <cstddef>
#include <cstring>

#include "abi/packet.h"

namespace nicsim::hw::dpdk {

void SelectNetCrc() {
  // Falls back by itself: AVX-512 to SSE4.2 to the scalar table.
  rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
}

uint32_t NetCrc32(const void* data, size_t len) {
  return rte_net_crc_calc(data, static_cast<uint32_t>(len), RTE_NET_CRC32_ETH);
}

uint32_t NetFrameCrc(uint8_t* bytes, size_t size) {
  // rte_net_crc has no running value to chain a zeroed header copy with the payload: zero the
  // field in place instead, over the one contiguous frame, and put it back.
  constexpr size_t kAt = offsetof(abi::WireHeader, crc);
  uint32_t field;
  std::memcpy(&field, bytes + kAt, sizeof(field));
  std::memset(bytes + kAt, 0, sizeof(field));
  const uint32_t crc = NetCrc32(bytes, size);
  std::memcpy(bytes + kAt, &field, sizeof(field));
  return crc;
}

bool NetFrameCrcOk(uint8_t* bytes, size_t size) {
  if (size < sizeof(abi::WireHeader)) return false;
  uint32_t field;
  std::memcpy(&field, bytes + offsetof(abi::WireHeader, crc), sizeof(field));
  return field == NetFrameCrc(bytes, size);
}

void NetStampCrc(std::vector<uint8_t>& bytes) {
  if (bytes.size() < sizeof(abi::WireHeader)) return;
  const uint32_t crc = NetFrameCrc(bytes.data(), bytes.size());
  std::memcpy(bytes.data() + offsetof(abi::WireHeader, crc), &crc, sizeof(crc));
}

}  // namespace nicsim::hw::dpdk
