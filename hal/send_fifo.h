// SPDX-License-Identifier: Apache-2.0
// HAL send side: copy a packet into the next send FIFO slot and ring StartTransmit.
// A slot is reusable once the adapter has rewritten its header as complete or rejected.
#pragma once

#include <cstdint>

#include "abi/fifo.h"
#include "abi/rdma.h"
#include "driver/adapter_driver.h"
#include "host/prefault.h"

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
  /**
   * Copies an RDMA request (or a conditional-queue command) into the next slot; a
   * kRdmaWritePiece slot carries `piece_len` data bytes after the request. Not sent until
   * Flush(). The slot's sequence number is returned in `*seq` (see SlotHeader).
   */
  SendResult PostRequest(abi::SlotType type, uint16_t dest_adapter, uint16_t dest_window,
                         const abi::RdmaRequest& request, uint32_t ulp_word,
                         const void* piece = nullptr, uint32_t piece_len = 0,
                         uint64_t* seq = nullptr);
  /**
   * The header of slot `seq` as it is now: once the adapter has processed the slot its status
   * is kComplete or kRejected (and a counter query's answer is in ulp_word). Valid until the
   * slot is reused.
   */
  abi::SendSlotHeader SlotHeader(uint64_t seq) const;
  /** StartTransmit for every slot posted since the last Flush. */
  void Flush();
  /** Post then Flush. */
  SendResult Send(uint16_t dest_adapter, uint16_t dest_window, const void* data, uint32_t len,
                  uint32_t ulp_word);
  /** True if the next slot can take a packet now. */
  bool CanPost() const;
  /** Slots the adapter has not yet finished with (posted, not complete). */
  uint32_t InFlight() const;
  /** True once the adapter has finished with slot `seq` (sent or rejected it); false for a
   *  slot not posted yet. A slot reused since was finished with before. */
  bool Finished(uint64_t seq) const;

  uint32_t max_payload() const { return max_payload_; }
  uint64_t posted() const { return tail_; }

 private:
  uint8_t* Slot(uint64_t seq) const;
  /** Writes the slot header (last, so the slot is complete when it reads posted). */
  void Commit(uint8_t* slot, const abi::SendSlotHeader& header);

  driver::DeviceAccess& device_;
  uint32_t window_;
  uint8_t* base_;
  uint32_t slots_;
  uint32_t slot_bytes_;
  uint32_t max_payload_;
  uint32_t line_bytes_;
  /** Next slot to fill (monotonic). */
  uint64_t tail_ = 0;
  /** Slots filled but not yet announced with StartTransmit. */
  uint32_t unflushed_ = 0;
  /** Materialises the ring ahead of the first pass's status reads (host/prefault.h). */
  host::RingPrefault prefault_;
};

}  // namespace nicsim::hal
