// SPDX-License-Identifier: Apache-2.0
// The Local Mapping Table entry: per-window state kept in adapter SRAM.
// The driver fills the fields it owns at open; the rest is the microcode's.
#pragma once

#include <cstdint>

#include "abi/limits.h"

namespace nicsim::abi {

/** Whether a window accepts traffic. */
enum class WindowState : uint32_t {
  kClosed = 0,
  kOpen = 1,
  /** A protection failure (address exception) stopped the window; the job must close it. */
  kFatal = 2,
};

/** Interrupt threshold values that mean "no interrupt". */
inline constexpr uint32_t kInterruptsOff = 0;
inline constexpr uint32_t kInterruptsOffAllOnes = 0xFFFFFFFFu;

/** One window's LMT as stored in adapter SRAM (little endian). */
struct LmtEntry {
  /** A WindowState value. */
  uint32_t state;
  /** Protection key of the job that owns the window; stamped on sends, checked on receives. */
  uint32_t protection_key;
  /** Real address of the receive FIFO (contiguous host memory). */
  uint64_t recv_fifo_addr;
  /** Receive FIFO size in frames of kRecvFrameBytes. */
  uint32_t recv_fifo_frames;
  /** Next frame the microcode fills (monotonic; frame index is this modulo the size). */
  uint32_t recv_next;
  /** Frames written to the FIFO so far (the tail; monotonic). */
  uint32_t recv_tail;
  /** Frames the ULP has handed back (monotonic); free frames are this plus size minus next. */
  uint32_t recv_returned;
  /** Interrupt when recv_tail reaches this count; 0 or all ones disables. */
  uint32_t recv_intr_threshold;
  /** Cache line size the window's FIFOs were laid out for. */
  uint32_t line_bytes;
  /** Real address of the send FIFO (contiguous host memory). */
  uint64_t send_fifo_addr;
  /** Send FIFO size in slots of SendSlotBytes(line_bytes). */
  uint32_t send_fifo_slots;
  /** Next slot the microcode will claim (monotonic). */
  uint32_t send_head;
  /** Slots posted by StartTransmit and not yet claimed by a transmit task. */
  uint32_t ready_to_send;
  /** Send completions written so far (monotonic). */
  uint32_t send_done;
  /** Interrupt when send_done reaches this count; 0 or all ones disables. */
  uint32_t send_intr_threshold;
  /** Interrupt mode flags (kEarlyInterrupt). */
  uint32_t intr_flags;
  /** Head, tail and length of the window's list of rCxts with data to send. */
  uint32_t rcxt_head;
  uint32_t rcxt_tail;
  uint32_t rcxt_count;
  /** Address exceptions raised against the window. */
  uint32_t address_exceptions;
  /** Transmit turn counter: send FIFO slots and RDMA packets alternate on it. */
  uint32_t tx_turn;
  /** Reserved for the microcode. */
  uint32_t reserved[9];
};
static_assert(sizeof(LmtEntry) == kLmtStrideBytes, "an LMT fills its SRAM stride");

}  // namespace nicsim::abi
