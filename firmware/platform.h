// SPDX-License-Identifier: Apache-2.0
// The firmware platform seam: the only way the microcode touches hardware.
// Outward services (DMA, SRAM, registers, link, interrupts) are the Platform; inward events
// (MMIO command, header and payload arrival, DMA completion) are the Microcode's entry points.
#pragma once

#include <cstdint>
#include <string_view>

#include "abi/mmio.h"
#include "abi/packet.h"

namespace nicsim::fw {

/** Index of a microcode task; also the tag that DMA completions carry back. */
using TaskId = uint16_t;
inline constexpr TaskId kNoTask = 0xFFFF;

/** Index of a data transfer buffer (payload staging in adapter memory, not CPU-visible). */
using DtbId = uint16_t;
inline constexpr DtbId kNoDtb = 0xFFFF;

/** Bytes the microcode may place ahead of DTB bytes in one device-to-host DMA. */
inline constexpr uint32_t kDmaPrefixBytes = 16;

/** A device-to-host DMA: optional microcode-built prefix bytes, then a DTB range. */
struct DmaToHost {
  uint64_t host_addr = 0;
  /** Bytes composed by the microcode (a FIFO frame header), written first. */
  uint8_t prefix[kDmaPrefixBytes] = {};
  uint32_t prefix_len = 0;
  /** Source DTB for the rest, or kNoDtb for prefix only. */
  DtbId dtb = kNoDtb;
  uint32_t dtb_offset = 0;
  uint32_t dtb_len = 0;
  /** The task to wake when the data has reached the point of coherence. */
  TaskId tag = kNoTask;
};

/** Where a host-to-device DMA lands. */
enum class DmaTarget : uint8_t {
  /** The task's header buffer (CPU-visible to the microcode). */
  kHeaderBuffer,
  /** A DTB (payload staging). */
  kDtb,
};

/** A host-to-device DMA into a header buffer or DTB. */
struct DmaFromHost {
  uint64_t host_addr = 0;
  uint32_t len = 0;
  DmaTarget target = DmaTarget::kDtb;
  /** For kDtb: the destination DTB. For kHeaderBuffer: the header buffer is the tag's. */
  DtbId dtb = kNoDtb;
  uint32_t dtb_offset = 0;
  TaskId tag = kNoTask;
};

/** Status delivered with a DMA completion, as hardware would report it. */
enum class DmaStatus : uint8_t { kOk = 0, kAddressError = 1 };

/** Kinds of microcode trace events (software-observable state changes). */
enum class TraceKind : uint8_t {
  kTaskState,     // a task entered a state: a = state, b = window
  kDrop,          // a packet was dropped: a = reason, b = window
  kInterrupt,     // an interrupt was raised: a = window, b = cause
  kMmio,          // a window command arrived: a = command, b = value
};

/** Hardware services the microcode may call. All calls return at once. */
class Platform {
 public:
  virtual ~Platform() = default;

  /** This adapter's global id on the fabric. */
  virtual uint16_t AdapterId() const = 0;
  /** Cache line size of the host (64 or 128). */
  virtual uint32_t CacheLineBytes() const = 0;

  virtual void SramRead(uint32_t addr, void* dst, uint32_t len) = 0;
  virtual void SramWrite(uint32_t addr, const void* src, uint32_t len) = 0;
  virtual uint64_t ReadGlobalReg(abi::GlobalReg reg) = 0;
  virtual void WriteGlobalReg(abi::GlobalReg reg, uint64_t value) = 0;

  /** Starts a device-to-host DMA; Microcode::OnDmaComplete(tag) fires once coherent. */
  virtual void StartDmaToHost(const DmaToHost& request) = 0;
  /** Starts a host-to-device DMA; Microcode::OnDmaComplete(tag) fires when it has landed. */
  virtual void StartDmaFromHost(const DmaFromHost& request) = 0;

  /** Claims a free DTB for a transmit; kNoDtb if none. */
  virtual DtbId AllocDtb() = 0;
  /** Returns a DTB (receive or transmit) to the hardware pool. */
  virtual void ReleaseDtb(DtbId dtb) = 0;
  /** A task's header buffer (at least 64 bytes), readable and writable by the microcode. */
  virtual uint8_t* HeaderBuffer(TaskId task) = 0;

  /** Injects a packet: `header` followed by `len` payload bytes from `dtb`. */
  virtual void Transmit(const abi::WireHeader& header, DtbId dtb, uint32_t len) = 0;
  /** Raises the window's interrupt line with a cause code. */
  virtual void RaiseInterrupt(uint32_t window, uint32_t cause) = 0;
  /** A receive task was freed: the hardware may dispatch a waiting header. */
  virtual void RxTaskFreed() = 0;

  /** Records a software-observable firmware event. */
  virtual void Trace(TraceKind kind, TaskId task, uint32_t a, uint32_t b) = 0;
};

}  // namespace nicsim::fw
