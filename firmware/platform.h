// SPDX-License-Identifier: Apache-2.0
// The firmware platform seam: the only way the microcode touches hardware.
// Outward services (DMA, SRAM, registers, buffers, link, interrupts) are the Platform; inward
// events (MMIO command, header and payload arrival, DMA completion) are the Microcode's entry
// points. A Platform call never calls back into the microcode before it returns.
#pragma once

#include <cstdint>
#include <vector>

#include "abi/mmio.h"
#include "abi/packet.h"

namespace nicsim::fw {

/** Index of a microcode task; also the tag that DMA completions carry back. */
using TaskId = uint16_t;
inline constexpr TaskId kNoTask = 0xFFFF;

/** Index of a data transfer buffer (payload staging in adapter memory, not CPU-visible). */
using DtbId = uint16_t;
inline constexpr DtbId kNoDtb = 0xFFFF;

/** Index of a header buffer (outgoing packet headers, CPU-visible). */
using HeaderBufferId = uint16_t;
inline constexpr HeaderBufferId kNoHeaderBuffer = 0xFFFF;

/** Index of a channel buffer (a cached LMT). */
using CbId = uint16_t;
inline constexpr CbId kNoCb = 0xFFFF;

/** Bytes the microcode may place ahead of DTB bytes in one device-to-host DMA. */
inline constexpr uint32_t kDmaPrefixBytes = 32;

/** Payload bytes a control packet may carry (TransmitControl). */
inline constexpr uint32_t kControlPayloadBytes = 32;

/** Bytes of a frame the hardware copies into a receive task's registers (header and more). */
inline constexpr uint32_t kHeaderRegisterBytes = 64;

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
  /** A header buffer (CPU-visible to the microcode). */
  kHeaderBuffer,
  /** A DTB (payload staging). */
  kDtb,
};

/** A host-to-device DMA into a header buffer or DTB. */
struct DmaFromHost {
  uint64_t host_addr = 0;
  uint32_t len = 0;
  DmaTarget target = DmaTarget::kDtb;
  /** For kDtb: the destination DTB. */
  DtbId dtb = kNoDtb;
  uint32_t dtb_offset = 0;
  /** For kHeaderBuffer: the destination header buffer and the offset in it. */
  HeaderBufferId header_buffer = kNoHeaderBuffer;
  uint32_t header_offset = 0;
  TaskId tag = kNoTask;
};

/** Status delivered with a DMA completion, as hardware would report it. */
enum class DmaStatus : uint8_t { kOk = 0, kAddressError = 1 };

/** Kinds of microcode trace events (software-observable state changes). */
enum class TraceKind : uint8_t {
  kRxState,      // a receive task entered `state`
  kTxState,      // a transmit task entered `state`
  kDrop,         // a packet was dropped: value = DropReason
  kWait,         // a task suspended for a resource: value = Resource
  kInterrupt,    // an interrupt was presented: value = handler, window = first event's
  kMmio,         // a command arrived: state = command, value = its value
  kCloseWindow,  // a window closed: value = the snapshot view
  kReset,        // the adapter was reset
  kLmtFetch,     // an LMT was fetched from SRAM into channel buffer `cb`
  kLmtFlush,     // channel buffer `cb` was written back to SRAM
  // Hardware events (emitted by the hardware model through the same trace):
  kDmaStart,  // a DMA was queued: task = tag, state = 0 to host / 1 from host, value = bytes
  kDmaDone,   // a DMA completed: task = tag, state = direction, value = DmaStatus
  kLinkOut,   // a frame started onto the link: state = destination adapter, value = bytes
  kFrameIn,   // a frame's header reached the adapter: value = bytes
  // RDMA (microcode):
  kRcxt,              // an rCxt changed state: state = RcxtState, value = index | tid << 32
  kAddressException,  // an RDMA protection failure made `window` fatal: value = PVO
  kCondition,         // a conditional counter changed: state = queue, value = new count
  kSnapshot,          // task `task` finished and left the snapshot view: value = the view now
  kWorkState,         // the work manager task entered `state` (a WorkState)
};

/** One trace event: what happened, to which task, window, channel buffer and DTB. */
struct TraceEvent {
  TraceKind kind = TraceKind::kMmio;
  TaskId task = kNoTask;
  uint32_t state = 0;
  uint32_t window = 0;
  CbId cb = kNoCb;
  DtbId dtb = kNoDtb;
  uint64_t value = 0;
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

  /** Claims a free DTB for a transmit; kNoDtb if none. Receive DTBs come with the payload. */
  virtual DtbId AllocDtb() = 0;
  /** Returns a DTB to the hardware pool (a payload waiting for one may take it). */
  virtual void ReleaseDtb(DtbId dtb) = 0;
  /** Claims a free header buffer; kNoHeaderBuffer if none. */
  virtual HeaderBufferId AllocHeaderBuffer() = 0;
  virtual void ReleaseHeaderBuffer(HeaderBufferId id) = 0;
  /** A header buffer's bytes (at least 64), readable and writable by the microcode. */
  virtual uint8_t* HeaderBuffer(HeaderBufferId id) = 0;

  /**
   * True if the link's output queue can take another data packet now. After it answers
   * false the hardware calls Microcode::OnLinkRoom when a queued frame has gone out, so a
   * transmit task holds its DTB while the link is backed up. Control packets (a few bytes)
   * are not held back. A port with its own queueing (DPDK) always has room.
   */
  virtual bool LinkHasRoom() { return true; }
  /** Injects a packet: `header` followed by `len` payload bytes from `dtb`. */
  virtual void Transmit(const abi::WireHeader& header, DtbId dtb, uint32_t len) = 0;
  /**
   * Injects a control packet whose few payload bytes the microcode composed (at most
   * kControlPayloadBytes, e.g. a read request's extension).
   */
  virtual void TransmitControl(const abi::WireHeader& header, const void* payload,
                               uint32_t len) = 0;
  /** Presents an interrupt to `handler` with the events pending at this moment. */
  virtual void RaiseInterrupt(uint32_t handler, const std::vector<abi::InterruptEvent>& events) = 0;
  /** A receive task or a channel buffer came free: the hardware may dispatch a waiting header. */
  virtual void RxResourcesFreed() = 0;

  /** Records a software-observable firmware event. */
  virtual void Trace(const TraceEvent& event) = 0;
  /**
   * A task entered `state` of the engine `kind` names (kRxState, kTxState or kWorkState); called
   * only when wants_state_events(). Records it as a trace event; a model that times the microcode
   * by its states charges the state here (and may skip building the event when nothing
   * records it).
   */
  virtual void StateEntered(TraceKind kind, TaskId task, uint32_t state, uint32_t window, CbId cb,
                            DtbId dtb) {
    TraceEvent ev;
    ev.kind = kind;
    ev.task = task;
    ev.state = state;
    ev.window = window;
    ev.cb = cb;
    ev.dtb = dtb;
    Trace(ev);
  }

  /**
   * False when nothing looks at the per-state events (no trace attached and the hardware
   * model does not time the microcode by them): the engines then skip building them.
   */
  bool wants_state_events() const { return wants_state_events_; }

 protected:
  void set_wants_state_events(bool on) { wants_state_events_ = on; }

 private:
  bool wants_state_events_ = true;
};

}  // namespace nicsim::fw
