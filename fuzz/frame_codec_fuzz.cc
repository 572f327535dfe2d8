// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the wire-frame codec. Any bytes are a received frame: its CRC verdict must agree
// with the CRC recomputed, and its header and payload re-encoded must check and match it.
#include <cstddef>
#include <cstring>
#include <vector>

#include "abi/packet.h"
#include "base/check.h"
#include "fuzz/fuzz_targets.h"
#include "hw/common/frame_codec.h"

namespace nicsim::fuzz {

int FuzzFrameCodec(const uint8_t* data, size_t size) {
  const bool crc_ok = hw::FrameCrcOk(data, size);
  if (size < sizeof(abi::WireHeader)) {
    NICSIM_CHECK(!crc_ok, "a %zu-byte frame passed the CRC check", size);
    return 0;
  }
  abi::WireHeader header;
  std::memcpy(&header, data, sizeof(header));
  const uint32_t crc = hw::FrameCrc(data, size);
  NICSIM_CHECK(crc_ok == (header.crc == crc), "FrameCrcOk disagrees with FrameCrc");

  // The same header and payload, encoded: the frame as a sender would have made it.
  const uint8_t* payload = data + sizeof(header);
  const auto len = static_cast<uint32_t>(size - sizeof(header));
  std::vector<uint8_t> encoded = hw::EncodeFrame(header, payload, len);
  NICSIM_CHECK(encoded.size() == size, "encoded %zu bytes from %zu", encoded.size(), size);
  NICSIM_CHECK(hw::FrameCrcOk(encoded.data(), encoded.size()), "an encoded frame fails its CRC");
  uint32_t stamped;
  std::memcpy(&stamped, encoded.data() + offsetof(abi::WireHeader, crc), sizeof(stamped));
  NICSIM_CHECK(stamped == crc, "the CRC does not depend on the header's crc field alone");
  // Every byte but the CRC field is the input's.
  std::memcpy(encoded.data() + offsetof(abi::WireHeader, crc), &header.crc, sizeof(header.crc));
  NICSIM_CHECK(std::memcmp(encoded.data(), data, size) == 0, "encoding changed the frame");

  // Deferred stamping gives the same bytes.
  std::vector<uint8_t> deferred = hw::EncodeFrameUnstamped(header, payload, len);
  hw::StampCrc(deferred);
  std::memcpy(encoded.data() + offsetof(abi::WireHeader, crc), &crc, sizeof(crc));
  NICSIM_CHECK(deferred == encoded, "EncodeFrameUnstamped + StampCrc differs from EncodeFrame");

  // CRC-32 detects every single-bit error: flip one bit (chosen by the input) outside the
  // CRC field of the good frame and it must fail.
  const size_t bit = (size_t{header.tid} ^ header.msg_offset) % (size * 8);
  const size_t byte = bit / 8;
  const bool in_crc_field = byte >= offsetof(abi::WireHeader, crc) &&
                            byte < offsetof(abi::WireHeader, crc) + sizeof(uint32_t);
  if (!in_crc_field) {
    deferred[byte] ^= static_cast<uint8_t>(1u << (bit % 8));
    NICSIM_CHECK(!hw::FrameCrcOk(deferred.data(), deferred.size()), "a bit flip went unnoticed");
  }
  return 0;
}

}  // namespace nicsim::fuzz
