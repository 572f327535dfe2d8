// SPDX-License-Identifier: Apache-2.0
// Receive FIFO polling. The adapter writes a frame's first line last, so a valid marker
// there means the whole frame is in memory. Zeroing it marks the frame as consumed.
#include "hal/recv_fifo.h"

#include <algorithm>
#include <cstring>

#include "abi/limits.h"
#include "abi/mmio.h"

namespace nicsim::hal {

RecvFifo::RecvFifo(const driver::WindowInfo& window, driver::DeviceAccess& device,
                   uint32_t return_batch)
    : device_(device),
      window_(window.window),
      base_(window.recv_fifo.ptr),
      real_addr_(window.recv_fifo.real_addr),
      frames_(window.recv_frames),
      line_bytes_(window.line_bytes),
      // At most half the FIFO is held back, so the adapter always has room for more.
      return_batch_(std::max<uint32_t>(1, std::min(return_batch, window.recv_frames / 2))),
      prefault_(base_, fifo_bytes()) {}

uint8_t* RecvFifo::Frame(uint64_t seq) const {
  return base_ + (seq % frames_) * abi::kRecvFrameBytes;
}

uint64_t RecvFifo::NextFrameAddr() const {
  return real_addr_ + (head_ % frames_) * abi::kRecvFrameBytes;
}

uint64_t RecvFifo::fifo_bytes() const { return uint64_t{frames_} * abi::kRecvFrameBytes; }

bool RecvFifo::Poll(RecvPacket* packet) const {
  const uint8_t* frame = Frame(head_);
  // An acquire load: once the valid marker (in the first line, which the adapter writes
  // last) is seen, the rest of the frame is too, even with the adapter on another core.
  if (__atomic_load_n(frame + offsetof(abi::RecvFrameHeader, valid), __ATOMIC_ACQUIRE) !=
      abi::kRecvFrameValid) {
    return false;
  }
  std::memcpy(&packet->header, frame, sizeof(packet->header));
  packet->payload = frame + abi::kRecvHeaderBytes;
  return true;
}

void RecvFifo::Consume() {
  std::memset(Frame(head_), 0, line_bytes_);
  ++head_;
  prefault_.Reach((head_ % frames_) * abi::kRecvFrameBytes);
  if (++unreturned_ >= return_batch_) ReturnFrames();
}

void RecvFifo::ReturnFrames() {
  if (unreturned_ == 0) return;
  device_.MmioWrite(abi::WindowCommandOffset(window_, abi::MmioCommand::kReturnRecvFrames),
                    unreturned_);
  unreturned_ = 0;
}

void RecvFifo::SetInterruptThreshold(uint32_t count) {
  device_.MmioWrite(abi::WindowCommandOffset(window_, abi::MmioCommand::kSetRecvInterruptThreshold),
                    count);
}

}  // namespace nicsim::hal
