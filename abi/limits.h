// SPDX-License-Identifier: Apache-2.0
// Device limits shared by the microcode, the hardware models and the host stack.
// Every size and count that more than one layer must agree on lives here, once.
#pragma once

#include <cstdint>

namespace nicsim::abi {

/** Bytes in one receive FIFO frame; the switch's largest packet dictates it. */
inline constexpr uint32_t kRecvFrameBytes = 2048;
/** A send FIFO slot holds at most this many cache lines. */
inline constexpr uint32_t kMaxSendLines = 16;
/** Bytes of the send FIFO slot header at the start of the slot's first cache line. */
inline constexpr uint32_t kSendHeaderBytes = 16;
/** Bytes of the receive frame header at the start of the frame's first cache line. */
inline constexpr uint32_t kRecvHeaderBytes = 16;
/** Windows per adapter: the ready bit vector lives in two 64-bit global registers. */
inline constexpr uint32_t kMaxWindows = 128;
/** Microcode tasks at most: the live and snapshot task views are 64-bit registers. */
inline constexpr uint32_t kMaxTasks = 64;
/** Interrupt handlers the adapter can track at most. */
inline constexpr uint32_t kMaxInterruptHandlers = 8;
/** Bytes of one channel buffer: two 256-byte halves caching one window's LMT. */
inline constexpr uint32_t kChannelBufferBytes = 512;
/** Bytes reserved per window in adapter SRAM for its LMT. */
inline constexpr uint32_t kLmtStrideBytes = 128;
/** SRAM offset of the first LMT. */
inline constexpr uint32_t kLmtBaseAddr = 0x0000;
/** Bytes of adapter SRAM in the reference adapter. */
inline constexpr uint32_t kSramBytes = 1u << 20;

/** Cache line sizes the adapter supports. */
inline constexpr bool IsValidCacheLine(uint32_t line_bytes) {
  return line_bytes == 64 || line_bytes == 128;
}

/** Bytes of one send FIFO slot for a given cache line size. */
inline constexpr uint32_t SendSlotBytes(uint32_t line_bytes) { return kMaxSendLines * line_bytes; }

/**
 * Largest payload a single packet-mode packet carries: it must fit both the send slot
 * (after its header) and the receive frame (after its header).
 */
inline constexpr uint32_t MaxPacketPayload(uint32_t line_bytes) {
  const uint32_t send = SendSlotBytes(line_bytes) - kSendHeaderBytes;
  const uint32_t recv = kRecvFrameBytes - kRecvHeaderBytes;
  return send < recv ? send : recv;
}

/** SRAM address of a window's LMT. */
inline constexpr uint32_t LmtAddr(uint32_t window) {
  return kLmtBaseAddr + window * kLmtStrideBytes;
}

}  // namespace nicsim::abi
