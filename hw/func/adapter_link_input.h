// SPDX-License-Identifier: Apache-2.0
// The receive side of the adapter's link port: frames wait in the input queue until the
// microcode takes their header, then their payloads wait for a DTB to stream into. Counts
// frames_in, input_queue_peak, header_task_waits and payload_dtb_waits.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "hw/common/link.h"
#include "hw/func/adapter_buffers.h"
#include "hw/func/adapter_context.h"

namespace nicsim::hw::func {

/** The link input queue and payload staging of one adapter. */
class AdapterLinkInput {
 public:
  AdapterLinkInput(const AdapterContext& context, AdapterBuffers& buffers)
      : ctx_(context), buffers_(buffers) {}

  /** A frame whose header reached the adapter now. */
  void Receive(Frame frame);
  /**
   * A burst off a real port: each frame is received as by Receive, in order. With
   * AdapterContext::bursts the payloads that find a DTB at once land before it returns, in
   * receive order: behind a real port a frame is wholly in memory when the poll hands it
   * over, so no simulated link time passes.
   */
  void ReceiveBurst(Frame* frames, uint32_t count);
  /** True while received payloads wait for a DTB (they are served before the microcode). */
  bool payloads_waiting() const { return !payload_waiters_.empty(); }
  /** Gives free DTBs to the oldest payloads waiting for one. */
  void ServePayloadWaiters();
  /** The microcode freed receive resources: retry the queued headers (once per batch). */
  void RxResourcesFreed();
  /** A reset: every queued frame and waiting payload is dropped (and counted). */
  void Reset();

 private:
  /** A frame whose header reached the adapter at `header_ps`. */
  struct Arrived {
    Frame frame;
    uint64_t header_ps;
  };
  /** A payload that arrived (or will) for an accepted header, waiting for a DTB. */
  struct PendingPayload {
    fw::TaskId task;
    /** The whole frame: header, then payload. */
    std::vector<uint8_t> frame;
    uint64_t arrive_ps;
  };

  /** A payload in its DTB, waiting for its burst's landing event. */
  struct Landing {
    fw::TaskId task;
    fw::DtbId dtb;
  };

  /** Schedules the landing of the payload in `dtb` for `task` at `arrive_ps`. */
  void SchedulePayload(fw::TaskId task, fw::DtbId dtb, uint64_t arrive_ps);
  /** Hands the payloads the current burst collected to the microcode, in receive order. */
  void LandBurst();

  /** True if the microcode can take the header at the head of the input queue now. */
  bool HeadAcceptable() const;
  /** Hands queued headers to the microcode while it has free receive tasks. */
  void DispatchInput();

  AdapterContext ctx_;
  AdapterBuffers& buffers_;
  /** Frames whose header arrived while every receive task was busy. */
  std::deque<Arrived> input_;
  std::deque<PendingPayload> payload_waiters_;
  bool dispatch_pending_ = false;
  /** A burst is being received (its payloads land together). */
  bool in_burst_ = false;
  /** Landings of the burst being received, oldest first (storage reused: no allocation). */
  std::vector<Landing> landings_;
};

}  // namespace nicsim::hw::func
