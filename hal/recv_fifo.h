// SPDX-License-Identifier: Apache-2.0
// HAL receive side: poll the first cache line of the next frame, consume by zeroing it,
// and hand consumed frames back to the adapter in batches.
#pragma once

#include <cstdint>

#include "abi/fifo.h"
#include "driver/adapter_driver.h"
#include "host/prefault.h"

namespace nicsim::hal {

/** A packet sitting in the receive FIFO, valid until Consume(). */
struct RecvPacket {
  abi::RecvFrameHeader header;
  const uint8_t* payload = nullptr;
};

/** The user-space view of one window's receive FIFO. */
class RecvFifo {
 public:
  RecvFifo(const driver::WindowInfo& window, driver::DeviceAccess& device, uint32_t return_batch);

  /** The next packet if its first cache line has arrived; false otherwise. */
  bool Poll(RecvPacket* packet) const;
  /** Releases the packet last polled: zeroes its first line and advances the head. */
  void Consume();
  /** Hands every consumed frame not yet returned back to the adapter. */
  void ReturnFrames();
  /** Asks for an interrupt when `count` frames in all have been written (0: off). */
  void SetInterruptThreshold(uint32_t count);

  /** Frames consumed so far (monotonic). */
  uint64_t consumed() const { return head_; }
  /** Real address of the frame the HAL polls next (the line a CPU would spin on). */
  uint64_t NextFrameAddr() const;
  uint64_t fifo_real_addr() const { return real_addr_; }
  uint64_t fifo_bytes() const;

 private:
  uint8_t* Frame(uint64_t seq) const;

  driver::DeviceAccess& device_;
  uint32_t window_;
  uint8_t* base_;
  uint64_t real_addr_;
  uint32_t frames_;
  uint32_t line_bytes_;
  uint32_t return_batch_;
  uint64_t head_ = 0;
  uint32_t unreturned_ = 0;
  /** Materialises the ring ahead of the first pass's polls (host/prefault.h). */
  host::RingPrefault prefault_;
};

}  // namespace nicsim::hal
