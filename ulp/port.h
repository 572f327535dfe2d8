// SPDX-License-Identifier: Apache-2.0
// What the reliable transport needs from below: a window to send and receive through (the
// HAL, with a backlog when the send FIFO is full) and the task's host (time, timers, its
// virtual memory and buffer registration). The simulator and a real port each provide them.
#pragma once

#include <cstdint>
#include <functional>

#include "abi/fifo.h"
#include "abi/rdma.h"
#include "base/status.h"
#include "host/page_table.h"
#include "driver/tce_tables.h"

namespace nicsim::ulp {

/** A window on the fabric. */
struct Peer {
  uint16_t adapter = 0;
  uint16_t window = 0;
  bool operator==(const Peer& o) const { return adapter == o.adapter && window == o.window; }
};

/** One window the task owns. */
class Port {
 public:
  virtual ~Port() = default;
  virtual Peer self() const = 0;
  /** Largest packet-mode payload. */
  virtual uint32_t max_payload() const = 0;
  /** Queues a packet-mode packet (copied); it leaves when the send FIFO has room. */
  virtual void Send(Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word) = 0;
  /** Queues an RDMA request behind earlier sends. */
  virtual void Post(abi::SlotType type, Peer dest, const abi::RdmaRequest& request,
                    uint32_t ulp_word) = 0;
  /** Every frame the window receives: packets and RDMA completion records. */
  using ReceiveFn = std::function<void(const abi::RecvFrameHeader&, const uint8_t* payload)>;
  virtual void OnReceive(ReceiveFn fn) = 0;
  /** An rCxt of this window (from the driver's pool). */
  virtual Result<uint32_t> AcquireRcxt() = 0;
  virtual void ReleaseRcxt(uint32_t ref) = 0;
};

/** The task's process on its node. */
class Host {
 public:
  virtual ~Host() = default;
  virtual uint64_t NowPs() = 0;
  /** Runs `fn` after `delay_ps` (a timer). */
  virtual void After(uint64_t delay_ps, std::function<void()> fn) = 0;
  virtual bool Read(uint64_t vaddr, void* dst, uint64_t len) = 0;
  virtual bool Write(uint64_t vaddr, const void* src, uint64_t len) = 0;
  /** Maps fresh virtual memory (receive landing areas). */
  virtual Result<uint64_t> Map(uint64_t bytes) = 0;
  /** The task's page tables. */
  virtual const host::PageTable& pages() = 0;
  /** Pins and maps [vaddr, vaddr + len) for RDMA (the driver call). */
  virtual Result<driver::Registration> Register(uint64_t vaddr, uint64_t len) = 0;
  virtual Status Deregister(const driver::Registration& reg) = 0;
};

}  // namespace nicsim::ulp
