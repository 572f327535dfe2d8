// SPDX-License-Identifier: Apache-2.0
// Frame encoding shared by every port model: a wire header, the payload, and the link CRC
// computed over both (with the header's crc field taken as zero).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "abi/packet.h"

namespace nicsim::hw {

/** The link CRC of a frame of `size` bytes (at least a WireHeader). */
uint32_t FrameCrc(const uint8_t* bytes, size_t size);
/** True if the frame holds a whole header whose crc field matches the frame. */
bool FrameCrcOk(const uint8_t* bytes, size_t size);
/** Header (with its CRC stamped) followed by `len` payload bytes. */
std::vector<uint8_t> EncodeFrame(const abi::WireHeader& header, const uint8_t* payload,
                                 uint32_t len);
/** Header (CRC field zero) and payload; the caller marks the frame crc_deferred. */
std::vector<uint8_t> EncodeFrameUnstamped(const abi::WireHeader& header, const uint8_t* payload,
                                          uint32_t len);
/** Computes and writes the CRC of a frame whose CRC was deferred (no-op on short frames). */
void StampCrc(std::vector<uint8_t>& bytes);

}  // namespace nicsim::hw
