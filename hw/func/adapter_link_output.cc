// SPDX-License-Identifier: Apache-2.0
// Transmit side of the link port: serialisation at link speed, the bounded output queue and
// the wake-ups of transmit tasks that waited for room.
#include "hw/func/adapter_link_output.h"

#include <algorithm>

#include "base/check.h"
#include "hw/common/frame_codec.h"

namespace nicsim::hw::func {

void AdapterLinkOutput::DropSentFrames() {
  const uint64_t now = ctx_.hooks.NowPs();
  while (!queue_.empty() && queue_.front() <= now) queue_.pop_front();
}

bool AdapterLinkOutput::HasRoom() {
  // Behind a real port the room on the link is the ethdev's transmit queue, which the port
  // retries when full; simulated serialisation would only pace the run in simulated time.
  if (ctx_.bursts) return true;
  DropSentFrames();
  if (queue_.size() < queue_frames_) return true;
  // The microcode suspends one task for each false answer; each gets one wake-up.
  ++waiters_;
  ++ctx_.counters.link_queue_full;
  ScheduleWake();
  return false;
}

void AdapterLinkOutput::ScheduleWake() {
  if (wake_pending_) return;
  wake_pending_ = true;
  const auto gen = static_cast<uint32_t>(ctx_.generation);
  // With every queued frame gone (a one-frame queue and several waiters), wake at once.
  const uint64_t at = queue_.empty() ? ctx_.hooks.NowPs() : queue_.front();
  ctx_.events.At(at, [this, gen] {
    if (gen != static_cast<uint32_t>(ctx_.generation)) return;
    wake_pending_ = false;
    DropSentFrames();
    const auto room = static_cast<uint32_t>(queue_frames_ - queue_.size());
    const uint32_t woken = std::min(room, waiters_);
    waiters_ -= woken;
    ctx_.runner.Run([this, gen, woken] {
      if (gen != static_cast<uint32_t>(ctx_.generation)) return;
      for (uint32_t i = 0; i < woken; ++i) ctx_.microcode.OnLinkRoom();
    });
    if (waiters_ > 0) ScheduleWake();
  });
}

void AdapterLinkOutput::Transmit(const abi::WireHeader& header, fw::DtbId dtb, uint32_t len) {
  Frame frame;
  frame.src_adapter = adapter_id_;
  frame.dest_adapter = header.dest_adapter;
  // The link computes the CRC as the frame streams out; the simulation defers the arithmetic
  // until something alters or inspects the frame.
  frame.bytes = EncodeFrameUnstamped(header, len > 0 ? buffers_.dtb(dtb) : nullptr, len);
  SendFrame(std::move(frame), header.dest_adapter);
}

void AdapterLinkOutput::TransmitControl(const abi::WireHeader& header, const void* payload,
                                        uint32_t len) {
  NICSIM_CHECK(len <= fw::kControlPayloadBytes, "control payload of %u bytes", len);
  Frame frame;
  frame.src_adapter = adapter_id_;
  frame.dest_adapter = header.dest_adapter;
  frame.bytes = EncodeFrameUnstamped(header, static_cast<const uint8_t*>(payload), len);
  SendFrame(std::move(frame), header.dest_adapter);
}

void AdapterLinkOutput::SendFrame(Frame frame, uint16_t dest_adapter) {
  frame.crc_deferred = true;
  const uint64_t start = std::max(ctx_.hooks.NowPs(), busy_until_ps_);
  busy_until_ps_ = start + static_cast<uint64_t>(frame.bytes.size() * ctx_.timing.link_ps_per_byte);
  if (!ctx_.bursts) {  // a real port keeps no simulated output queue (HasRoom)
    DropSentFrames();
    queue_.push_back(busy_until_ps_);
  }
  ++ctx_.counters.frames_out;
  ctx_.trace.Hardware(fw::TraceKind::kLinkOut, fw::kNoTask, dest_adapter, frame.bytes.size());
  NICSIM_CHECK(fabric_ != nullptr, "adapter %u transmits with no fabric", adapter_id_);
  fabric_->Send(std::move(frame), busy_until_ps_);
}

void AdapterLinkOutput::Reset() {
  waiters_ = 0;
  wake_pending_ = false;
}

}  // namespace nicsim::hw::func
