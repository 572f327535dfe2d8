// SPDX-License-Identifier: Apache-2.0
// Send FIFO: the payload is written before the header, and the header's status byte last,
// so the adapter never fetches a half-written slot.
#include "hal/send_fifo.h"

#include <cstring>

#include "abi/fifo.h"
#include "abi/limits.h"
#include "abi/mmio.h"
#include "abi/packet.h"

namespace nicsim::hal {

SendFifo::SendFifo(const driver::WindowInfo& window, driver::DeviceAccess& device)
    : device_(device),
      window_(window.window),
      base_(window.send_fifo.ptr),
      slots_(window.send_slots),
      slot_bytes_(abi::SendSlotBytes(window.line_bytes)),
      max_payload_(abi::MaxPacketPayload(window.line_bytes)),
      line_bytes_(window.line_bytes),
      prefault_(base_, uint64_t{slots_} * slot_bytes_) {}

uint8_t* SendFifo::Slot(uint64_t seq) const { return base_ + (seq % slots_) * slot_bytes_; }

bool SendFifo::CanPost() const {
  // Acquire: the adapter (maybe on another core) has finished reading a slot it marks done.
  const uint8_t status =
      __atomic_load_n(Slot(tail_) + offsetof(abi::SendSlotHeader, status), __ATOMIC_ACQUIRE);
  return status != static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
}

uint32_t SendFifo::InFlight() const {
  uint32_t n = 0;
  for (uint32_t i = 0; i < slots_; ++i) {
    n += base_[i * slot_bytes_ + offsetof(abi::SendSlotHeader, status)] ==
         static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
  }
  return n;
}

bool SendFifo::Finished(uint64_t seq) const {
  if (seq >= tail_) return false;
  if (tail_ - seq > slots_) return true;  // its slot took a later packet: only once done
  const uint8_t status =
      __atomic_load_n(Slot(seq) + offsetof(abi::SendSlotHeader, status), __ATOMIC_ACQUIRE);
  return status != static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
}

SendResult SendFifo::Post(uint16_t dest_adapter, uint16_t dest_window, const void* data,
                          uint32_t len, uint32_t ulp_word) {
  if (len > max_payload_) return SendResult::kTooLong;
  if (!CanPost()) return SendResult::kFull;
  uint8_t* slot = Slot(tail_);
  if (len > 0) std::memcpy(slot + abi::kSendHeaderBytes, data, len);
  abi::SendSlotHeader h{};
  h.dest_adapter = dest_adapter;
  h.dest_window = dest_window;
  h.len_bytes = static_cast<uint16_t>(len);
  h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
  h.ulp_word = ulp_word;
  Commit(slot, h);
  return SendResult::kOk;
}

void SendFifo::Commit(uint8_t* slot, const abi::SendSlotHeader& header) {
  abi::SendSlotHeader h = header;
  h.status = static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
  std::memcpy(slot, &h, sizeof(h));
  ++tail_;
  ++unflushed_;
  prefault_.Reach((tail_ % slots_) * slot_bytes_);
}

SendResult SendFifo::PostRequest(abi::SlotType type, uint16_t dest_adapter, uint16_t dest_window,
                                 const abi::RdmaRequest& request, uint32_t ulp_word,
                                 const void* piece, uint32_t piece_len, uint64_t* seq) {
  if (piece_len > abi::MaxPieceBytes(line_bytes_) ||
      (piece_len > 0 && type != abi::SlotType::kRdmaWritePiece)) {
    return SendResult::kTooLong;
  }
  if (!CanPost()) return SendResult::kFull;
  uint8_t* slot = Slot(tail_);
  std::memcpy(slot + abi::kSendHeaderBytes, &request, sizeof(request));
  if (piece_len > 0) {
    std::memcpy(slot + abi::kSendHeaderBytes + sizeof(request), piece, piece_len);
  }
  abi::SendSlotHeader h{};
  h.dest_adapter = dest_adapter;
  h.dest_window = dest_window;
  h.len_bytes = static_cast<uint16_t>(piece_len);
  h.type = static_cast<uint8_t>(type);
  h.ulp_word = ulp_word;
  if (seq != nullptr) *seq = tail_;
  Commit(slot, h);
  return SendResult::kOk;
}

abi::SendSlotHeader SendFifo::SlotHeader(uint64_t seq) const {
  abi::SendSlotHeader h;
  std::memcpy(&h, Slot(seq), sizeof(h));
  return h;
}

void SendFifo::Flush() {
  if (unflushed_ == 0) return;
  device_.MmioWrite(abi::WindowCommandOffset(window_, abi::MmioCommand::kStartTransmit),
                    unflushed_);
  unflushed_ = 0;
}

SendResult SendFifo::Send(uint16_t dest_adapter, uint16_t dest_window, const void* data,
                          uint32_t len, uint32_t ulp_word) {
  const SendResult r = Post(dest_adapter, dest_window, data, len, ulp_word);
  if (r == SendResult::kOk) Flush();
  return r;
}

}  // namespace nicsim::hal
