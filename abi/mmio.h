// SPDX-License-Identifier: Apache-2.0
// The adapter's MMIO map and command encodings, host-to-device.
// SRAM accesses are served by hardware; window commands are passed to the microcode.
#pragma once

#include <cstdint>

#include "abi/limits.h"

namespace nicsim::abi {

/** MMIO offsets [0, kSramBytes) read and write adapter SRAM directly (8-byte accesses). */
inline constexpr uint64_t kMmioSramBase = 0;
/** Window command pages start here, one page per window. */
inline constexpr uint64_t kMmioWindowBase = 0x0100'0000;
/** Bytes per window command page. */
inline constexpr uint64_t kMmioWindowStride = 0x1000;
/** Adapter-wide command page (reset and the like). */
inline constexpr uint64_t kMmioGlobalBase = 0x0200'0000;

/** Window commands; the command is the register index in the window's page. */
enum class MmioCommand : uint32_t {
  /** Value: packets just posted in the send FIFO; added to readyToSend. */
  kStartTransmit = 0,
  /** Value: receive frames the ULP has consumed and hands back. */
  kReturnRecvFrames = 1,
  /** Value: recv_tail count at which to interrupt (0 or all ones: off). */
  kSetRecvInterruptThreshold = 2,
  /** Value: send completion count at which to interrupt (0 or all ones: off). */
  kSetSendInterruptThreshold = 3,
  /** Value: InterruptMode flags for the window (kEarlyInterrupt or 0). */
  kSetInterruptMode = 4,
  /** One past the last command. */
  kCount = 5,
};

/** Window interrupt mode flags (LmtEntry::intr_flags). */
inline constexpr uint32_t kEarlyInterrupt = 1;

/** Adapter-wide commands; the command is the register index in the global page. */
enum class GlobalCommand : uint32_t {
  /**
   * Value: window. Closes it: the microcode stops starting work for it and copies the live
   * task view into the snapshot view. Disruptive.
   */
  kCloseWindow = 0,
  /** Value: window. Writes the window's cached LMT (if a channel buffer holds it) to SRAM. */
  kFlushLmt = 1,
  /** Value: handler number. The interrupt handler is ready for its next interrupt. */
  kInterruptHandlerReady = 2,
  /** Value ignored. Resets the adapter: all in-flight work is dropped, every window closed. */
  kResetAdapter = 3,
  kCount = 4,
};

/** MMIO offset of an adapter-wide command register. */
inline constexpr uint64_t GlobalCommandOffset(GlobalCommand cmd) {
  return kMmioGlobalBase + static_cast<uint64_t>(cmd) * 8;
}

/** Global registers are readable by MMIO here (8 bytes each, indexed by GlobalReg). */
inline constexpr uint64_t kMmioRegisterBase = 0x0300'0000;

/** MMIO offset of a window command register. */
inline constexpr uint64_t WindowCommandOffset(uint32_t window, MmioCommand cmd) {
  return kMmioWindowBase + window * kMmioWindowStride + static_cast<uint64_t>(cmd) * 8;
}

/** A window command decoded from an MMIO offset. */
struct DecodedCommand {
  /** False if the offset is not a window command. */
  bool valid;
  uint32_t window;
  MmioCommand command;
};

/** Decodes an MMIO offset into a window command; valid is false for anything else. */
inline constexpr DecodedCommand DecodeWindowCommand(uint64_t offset) {
  if (offset < kMmioWindowBase || offset >= kMmioWindowBase + kMaxWindows * kMmioWindowStride) {
    return {false, 0, MmioCommand::kCount};
  }
  const uint64_t rel = offset - kMmioWindowBase;
  const uint64_t reg = (rel % kMmioWindowStride) / 8;
  if (rel % 8 != 0 || reg >= static_cast<uint64_t>(MmioCommand::kCount)) {
    return {false, 0, MmioCommand::kCount};
  }
  return {true, static_cast<uint32_t>(rel / kMmioWindowStride), static_cast<MmioCommand>(reg)};
}

/** Why the adapter raised a window's interrupt (bits, so causes can be pending together). */
enum class InterruptCause : uint32_t {
  /** The receive FIFO tail reached the window's receive threshold. */
  kRecvThreshold = 1,
  /** Send completions reached the window's send threshold. */
  kSendThreshold = 2,
  /** An RDMA protection failure made the window fatal (WindowState::kFatal). */
  kWindowFatal = 4,
};

/** Global registers visible to every adapter task. */
enum class GlobalReg : uint32_t {
  /** Ready bit vector, windows 0..63: bit set while the window has readyToSend > 0. */
  kReadyLow = 0,
  /** Ready bit vector, windows 64..127. */
  kReadyHigh = 1,
  /** Live task view: bit n set while task n is in the middle of an operation. */
  kLiveTaskView = 2,
  /** Snapshot view: the live view copied by a disruptive command, cleared as tasks finish. */
  kSnapshotView = 3,
  kCount = 4,
};

/** MMIO offset at which a global register reads. */
inline constexpr uint64_t GlobalRegOffset(GlobalReg reg) {
  return kMmioRegisterBase + static_cast<uint64_t>(reg) * 8;
}

/** One pending interrupt event presented to a handler. */
struct InterruptEvent {
  uint32_t window;
  /** InterruptCause bits that became pending for the window. */
  uint32_t causes;
};

}  // namespace nicsim::abi
