// SPDX-License-Identifier: Apache-2.0
// HAL send side: copy a packet into the next send FIFO slot and ring StartTransmit.
// A slot is reusable once the adapter has rewritten its header as complete or rejected.
#pragma once

#include <cstdint>

#include "driver/adapter_driver.h"

namespace nicsim::hal {

/** Outcome of posting a packet. */
enum class SendResult : uint8_t {
  kOk,
  /** The next slot is still owned by the adapter: try again later. */
  kFull,
  /** Longer than the largest single-packet payload. */
  kTooLong,
};

/** The user-space view of one window's send FIFO. */
class SendFifo {
 public:
  SendFifo(const driver::WindowInfo& window, driver::DeviceAccess& device);

  /** Copies a packet into the next slot; it is not sent until Flush(). */
  SendResult Post(uint16_t dest_adapter, uint16_t dest_window, const void* data, uint32_t len,
                  uint32_t ulp_word);
  /** StartTransmit for every slot posted since the last Flush. */
  void Flush();
  /** Post then Flush. */
  SendResult Send(uint16_t dest_adapter, uint16_t dest_window, const void* data, uint32_t len,
                  uint32_t ulp_word);
  /** True if the next slot can take a packet now. */
  bool CanPost() const;
  /** Slots the adapter has not yet finished with (posted, not complete). */
  uint32_t InFlight() const;

  uint32_t max_payload() const { return max_payload_; }
  uint64_t posted() const { return tail_; }

 private:
  uint8_t* Slot(uint64_t seq) const;

  driver::DeviceAccess& device_;
  uint32_t window_;
  uint8_t* base_;
  uint32_t slots_;
  uint32_t slot_bytes_;
  uint32_t max_payload_;
  /** Next slot to fill (monotonic). */
  uint64_t tail_ = 0;
  /** Slots filled but not yet announced with StartTransmit. */
  uint32_t unflushed_ = 0;
};

}  // namespace nicsim::hal
