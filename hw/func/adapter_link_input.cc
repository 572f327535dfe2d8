// SPDX-License-Identifier: Apache-2.0
// Receive side of the link port: the input queue, header dispatch to the microcode, and
// payload staging into DTBs, each payload arriving behind its header at link speed.
#include "hw/func/adapter_link_input.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "hw/common/byte_recycler.h"
#include "hw/common/frame_codec.h"

namespace nicsim::hw::func {

void AdapterLinkInput::Receive(Frame frame) {
  ++ctx_.counters.frames_in;
  ctx_.trace.Hardware(fw::TraceKind::kFrameIn, fw::kNoTask, 0, frame.bytes.size());
  input_.push_back(Arrived{std::move(frame), ctx_.events.now_ps()});
  if (input_.size() > 1 || !HeadAcceptable()) ++ctx_.counters.header_task_waits;
  ctx_.counters.input_queue_peak =
      std::max<uint64_t>(ctx_.counters.input_queue_peak, input_.size());
  ctx_.runner.Run([this] { DispatchInput(); });
}

void AdapterLinkInput::ReceiveBurst(Frame* frames, uint32_t count) {
  if (!ctx_.bursts) {
    for (uint32_t i = 0; i < count; ++i) Receive(std::move(frames[i]));
    return;
  }
  in_burst_ = true;
  for (uint32_t i = 0; i < count; ++i) Receive(std::move(frames[i]));
  in_burst_ = false;
  LandBurst();
}

void AdapterLinkInput::SchedulePayload(fw::TaskId task, fw::DtbId dtb, uint64_t arrive_ps) {
  if (in_burst_) {
    landings_.push_back(Landing{task, dtb});
    return;
  }
  const auto gen = static_cast<uint32_t>(ctx_.generation);  // small closures: no allocation
  ctx_.events.At(arrive_ps, [this, task, dtb, gen] {
    if (gen != static_cast<uint32_t>(ctx_.generation)) {
      ++ctx_.counters.dropped_by_reset;
      return;
    }
    ctx_.runner.Run([this, task, dtb, gen] {
      if (gen == static_cast<uint32_t>(ctx_.generation)) {
        ctx_.microcode.OnPayloadArrived(task, dtb);
      }
    });
  });
}

void AdapterLinkInput::LandBurst() {
  const auto generation = static_cast<uint32_t>(ctx_.generation);
  // In receive order. Only a burst being received adds landings, so none should join while
  // these land; by index all the same, so one that did would not move the ones being read.
  const size_t count = landings_.size();
  for (size_t i = 0; i < count; ++i) {
    const Landing l = landings_[i];
    // A reset made by an earlier landing drops the rest.
    if (generation != static_cast<uint32_t>(ctx_.generation)) {
      ++ctx_.counters.dropped_by_reset;
      continue;
    }
    ctx_.runner.Run([this, l, generation] {
      if (generation == static_cast<uint32_t>(ctx_.generation)) {
        ctx_.microcode.OnPayloadArrived(l.task, l.dtb);
      }
    });
  }
  // The storage keeps its capacity.
  landings_.erase(landings_.begin(), landings_.begin() + static_cast<std::ptrdiff_t>(count));
}

bool AdapterLinkInput::HeadAcceptable() const {
  const std::vector<uint8_t>& b = input_.front().frame.bytes;
  return ctx_.microcode.CanAcceptHeader(
      b.data(), static_cast<uint32_t>(std::min<size_t>(b.size(), fw::kHeaderRegisterBytes)));
}

void AdapterLinkInput::DispatchInput() {
  while (!input_.empty() && HeadAcceptable()) {
    Frame frame = std::move(input_.front().frame);
    // The payload streams in behind its header whatever the microcode is doing.
    const uint64_t header_ps = input_.front().header_ps;
    input_.pop_front();
    const size_t size = frame.bytes.size();
    // The header and the first payload bytes land in the receive task's registers.
    const uint32_t header_len =
        static_cast<uint32_t>(std::min<size_t>(size, fw::kHeaderRegisterBytes));
    const uint32_t payload_len =
        size > sizeof(abi::WireHeader) ? static_cast<uint32_t>(size - sizeof(abi::WireHeader)) : 0;
    // An untouched frame from a simulated link checks by construction.
    const bool crc_ok = frame.crc_deferred || FrameCrcOk(frame.bytes.data(), size);
    const fw::TaskId task =
        ctx_.microcode.OnHeaderArrived(frame.bytes.data(), header_len, payload_len, crc_ok);
    if (task == fw::kNoTask || payload_len == 0) {  // dropped: payload discarded
      Recycle(std::move(frame.bytes));
      continue;
    }
    // The payload streams in behind the header and needs a DTB to land in (the frame is kept
    // whole; the payload starts after its header).
    const uint64_t arrive =
        header_ps + static_cast<uint64_t>(payload_len * ctx_.timing.link_ps_per_byte);
    if (!payload_waiters_.empty() || !buffers_.has_free_dtb()) ++ctx_.counters.payload_dtb_waits;
    payload_waiters_.push_back(PendingPayload{task, std::move(frame.bytes), arrive});
    ServePayloadWaiters();
  }
}

void AdapterLinkInput::ServePayloadWaiters() {
  while (!payload_waiters_.empty() && buffers_.has_free_dtb()) {
    PendingPayload p = std::move(payload_waiters_.front());
    payload_waiters_.pop_front();
    const fw::DtbId dtb = buffers_.TakeDtb();
    ctx_.hooks.OnPayloadDtbTaken(dtb);
    std::memcpy(buffers_.dtb(dtb), p.frame.data() + sizeof(abi::WireHeader),
                p.frame.size() - sizeof(abi::WireHeader));
    Recycle(std::move(p.frame));
    SchedulePayload(p.task, dtb, p.arrive_ps);
  }
}

void AdapterLinkInput::RxResourcesFreed() {
  if (dispatch_pending_ || input_.empty()) return;
  dispatch_pending_ = true;
  const uint64_t gen = ctx_.generation;
  ctx_.events.At(ctx_.hooks.NowPs(), [this, gen] {
    if (gen != ctx_.generation) return;
    dispatch_pending_ = false;
    ctx_.runner.Run([this, gen] {
      if (gen == ctx_.generation) DispatchInput();
    });
  });
}

void AdapterLinkInput::Reset() {
  ctx_.counters.dropped_by_reset += input_.size() + payload_waiters_.size();
  input_.clear();
  payload_waiters_.clear();
  dispatch_pending_ = false;
}

}  // namespace nicsim::hw::func
