// SPDX-License-Identifier: Apache-2.0
// The frame CRC (CRC-32, IEEE 802.3, as base/crc32.h) computed with DPDK's rte_net_crc, which
// folds with PCLMULQDQ (or VPCLMULQDQ) where the CPU has it: the real port's fast path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nicsim::hw::dpdk {

/**
 * Chooses rte_net_crc's algorithm: the widest carry-less multiply the CPU and the EAL's SIMD
 * width allow (AVX-512 VPCLMULQDQ, else SSE4.2 PCLMULQDQ, else a table). InitEal calls it once,
 * before any lcore runs a port; harmless to call again from the same single thread.
 */
void SelectNetCrc();

/** CRC-32 (IEEE) of `len` bytes at `data`, equal to nicsim::Crc32(0, data, len). */
uint32_t NetCrc32(const void* data, size_t len);

/**
 * The CRC a frame's WireHeader carries (hw::FrameCrc: header with its crc field zeroed, then
 * the payload) of the `size`-byte frame at `bytes` (at least a WireHeader). The crc field is
 * zeroed while the CRC runs and put back, so the bytes must be writable.
 */
uint32_t NetFrameCrc(uint8_t* bytes, size_t size);

/** True if the frame is at least a WireHeader and its crc field matches NetFrameCrc. */
bool NetFrameCrcOk(uint8_t* bytes, size_t size);

/** Writes NetFrameCrc into the frame's crc field (frames shorter than a header: untouched). */
void NetStampCrc(std::vector<uint8_t>& bytes);

}  // namespace nicsim::hw::dpdk
