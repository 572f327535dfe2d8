// SPDX-License-Identifier: Apache-2.0
// Frame CRC and encoding.
#include "hw/common/frame_codec.h"

#include <cstddef>
#include <cstring>

#include "base/crc32.h"
#include "hw/common/byte_recycler.h"

namespace nicsim::hw {

uint32_t FrameCrc(const uint8_t* bytes, size_t size) {
  abi::WireHeader h;
  std::memcpy(&h, bytes, sizeof(h));
  h.crc = 0;
  const uint32_t crc = Crc32(0, &h, sizeof(h));
  return Crc32(crc, bytes + sizeof(h), size - sizeof(h));
}

bool FrameCrcOk(const uint8_t* bytes, size_t size) {
  if (size < sizeof(abi::WireHeader)) return false;
  abi::WireHeader h;
  std::memcpy(&h, bytes, sizeof(h));
  return h.crc == FrameCrc(bytes, size);
}

std::vector<uint8_t> EncodeFrameUnstamped(const abi::WireHeader& header, const uint8_t* payload,
                                          uint32_t len) {
  std::vector<uint8_t> bytes = RecycledBytes(sizeof(header) + len);
  abi::WireHeader h = header;
  h.crc = 0;
  std::memcpy(bytes.data(), &h, sizeof(h));
  if (len > 0) std::memcpy(bytes.data() + sizeof(h), payload, len);
  return bytes;
}

void StampCrc(std::vector<uint8_t>& bytes) {
  if (bytes.size() < sizeof(abi::WireHeader)) return;
  const uint32_t crc = FrameCrc(bytes.data(), bytes.size());
  std::memcpy(bytes.data() + offsetof(abi::WireHeader, crc), &crc, sizeof(crc));
}

std::vector<uint8_t> EncodeFrame(const abi::WireHeader& header, const uint8_t* payload,
                                 uint32_t len) {
  std::vector<uint8_t> bytes = EncodeFrameUnstamped(header, payload, len);
  StampCrc(bytes);
  return bytes;
}

}  // namespace nicsim::hw
