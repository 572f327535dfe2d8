// SPDX-License-Identifier: Apache-2.0
#include "hal/endpoint.h"

#include <atomic>

namespace nicsim::hal {

uint64_t Endpoint::ReadFrames() {
  RecvFifo& recv = window_.recv();
  RecvPacket packet;
  uint64_t read = 0;
  const bool hold = ring_once_per_read_ && !reading_;
  if (hold) reading_ = true;
  while (consuming_ && recv.Poll(&packet)) {
    ++received_;
    ++read;
    if (on_receive_) on_receive_(packet);
    const uint64_t seq = recv.consumed();  // the frame's sequence number on the window
    recv.Consume();
    if (on_consumed_) on_consumed_(seq);
  }
  if (hold) {
    reading_ = false;
    RingDoorbell();  // once, for every reply the batch posted
  }
  // Frames go back in the HAL's batches (hal.return_batch), not after every read.
  return read;
}

uint64_t Endpoint::NextSerial() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

bool Endpoint::Send(Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word) {
  if (len > max_payload()) return false;
  ++given_;
  if (backlog_.empty() &&
      window_.send().Post(dest.adapter, dest.window, data, len, ulp_word) == SendResult::kOk) {
    RingDoorbell();
    return true;
  }
  backlog_.push_back(Pending{dest, std::vector<uint8_t>(data, data + len), ulp_word});
  return true;
}

void Endpoint::PostRequest(abi::SlotType type, Peer dest, const abi::RdmaRequest& request,
                           uint32_t ulp_word) {
  ++given_;
  Pending p;
  p.dest = dest;
  p.ulp_word = ulp_word;
  p.is_request = true;
  p.type = type;
  p.request = request;
  if (backlog_.empty() && window_.send().CanPost()) {
    PostPending(p);
    RingDoorbell();
    return;
  }
  backlog_.push_back(std::move(p));
}

void Endpoint::PostPending(const Pending& p) {
  SendFifo& send = window_.send();
  if (p.is_request) {
    send.PostRequest(p.type, p.dest.adapter, p.dest.window, p.request, p.ulp_word);
  } else {
    send.Post(p.dest.adapter, p.dest.window, p.data.data(), static_cast<uint32_t>(p.data.size()),
              p.ulp_word);
  }
}

void Endpoint::DrainBacklog() {
  SendFifo& send = window_.send();
  bool posted = false;
  while (!backlog_.empty() && send.CanPost()) {
    PostPending(backlog_.front());
    backlog_.pop_front();
    posted = true;
  }
  if (posted) RingDoorbell();
  if (backlog_.empty() && on_sendable_) on_sendable_();
}

}  // namespace nicsim::hal
