// SPDX-License-Identifier: Apache-2.0
// The link seam between an adapter's port and the fabric: whole frames of bytes.
// Adapters send frames out through a FabricLink (their link into the fabric); the fabric hands
// frames in through LinkSink.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace nicsim::hw {

/** One frame on the fabric: a wire header followed by the payload, as bytes. */
struct Frame {
  std::vector<uint8_t> bytes;
  /** Global id of the adapter that sent the frame (set by the sending port). */
  uint16_t src_adapter = 0;
  /** Global id of the adapter the fabric routes it to. */
  uint16_t dest_adapter = 0;
  /**
   * The header's CRC field is not computed yet: the frame is exactly as the sending link
   * made it, so its CRC would check. Whoever changes or inspects the bytes first calls
   * StampCrc (hw/common/frame_codec.h). Saves two CRCs per packet in simulation.
   */
  bool crc_deferred = false;
};

/** Device-to-fabric direction: where an adapter's transmitted frames go. */
class FabricLink {
 public:
  virtual ~FabricLink() = default;
  /** A frame whose last byte leaves the adapter at `depart_ps`. */
  virtual void Send(Frame frame, uint64_t depart_ps) = 0;
};

/** Fabric-to-device direction: an adapter's receive side. */
class LinkSink {
 public:
  virtual ~LinkSink() = default;
  /** The frame's header reaches the adapter now; its payload follows at link speed. */
  virtual void Receive(Frame frame) = 0;
  /**
   * A burst of `count` frames taken off a real port at once, in arrival order (their bytes
   * are moved out). By default each goes to Receive; an adapter may take the burst whole.
   */
  virtual void ReceiveBurst(Frame* frames, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) Receive(std::move(frames[i]));
  }
};

}  // namespace nicsim::hw
