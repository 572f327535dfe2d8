// SPDX-License-Identifier: Apache-2.0
// The transmit side of the adapter's link port: frames are serialised onto the link at its
// bandwidth through a bounded output queue; transmit tasks that find it full wait and are
// woken as frames go out. Counts frames_out and link_queue_full.
#pragma once

#include <cstdint>
#include <deque>

#include "abi/packet.h"
#include "hw/common/link.h"
#include "hw/func/adapter_buffers.h"
#include "hw/func/adapter_context.h"

namespace nicsim::hw::func {

/** The link output queue of one adapter and the fabric it sends into. */
class AdapterLinkOutput {
 public:
  AdapterLinkOutput(const AdapterContext& context, AdapterBuffers& buffers, uint16_t adapter_id,
                    uint32_t queue_frames)
      : ctx_(context), buffers_(buffers), adapter_id_(adapter_id), queue_frames_(queue_frames) {}

  /** Where transmitted frames go. Must be set before traffic flows. */
  void Connect(FabricLink* fabric) { fabric_ = fabric; }
  /**
   * True if the output queue has room; otherwise the asking task waits and is woken (once)
   * when a frame has gone out. Always true with real-port bursts (AdapterContext::bursts).
   */
  bool HasRoom();
  /** Sends a frame of `header` and `len` bytes of DTB `dtb`. */
  void Transmit(const abi::WireHeader& header, fw::DtbId dtb, uint32_t len);
  /** Sends a frame of `header` and a control payload of `len` bytes. */
  void TransmitControl(const abi::WireHeader& header, const void* payload, uint32_t len);
  /** A reset: the microcode drops its waiting tasks, so no wake-up is owed. */
  void Reset();

 private:
  /** Forgets the frames in the output queue that have gone out by now. */
  void DropSentFrames();
  /** Wakes link waiters when the oldest queued frame has gone out (once per batch). */
  void ScheduleWake();
  /** Puts a frame on the link and into the fabric. */
  void SendFrame(Frame frame, uint16_t dest_adapter);

  AdapterContext ctx_;
  AdapterBuffers& buffers_;
  uint16_t adapter_id_;
  uint32_t queue_frames_;
  uint64_t busy_until_ps_ = 0;
  /** When each frame in the output queue finishes going out, oldest first. */
  std::deque<uint64_t> queue_;
  /** Transmit tasks told the link is full and not yet woken; whether a wake-up is due. */
  uint32_t waiters_ = 0;
  bool wake_pending_ = false;
  FabricLink* fabric_ = nullptr;
};

}  // namespace nicsim::hw::func
