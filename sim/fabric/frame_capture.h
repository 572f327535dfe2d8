// SPDX-License-Identifier: Apache-2.0
// Where the fabric puts the frames it captures (--pcap): a pcapng file, or, in a run split
// over processes, this process's share to be merged into one file.
#pragma once

#include <cstdint>
#include <vector>

namespace nicsim::sim {

/** A sink for captured fabric frames, in arrival order. */
class FrameCapture {
 public:
  virtual ~FrameCapture() = default;
  /** True if a frame from `src_adapter` to `dest_adapter` arriving at `time_ps` is captured. */
  virtual bool Wants(uint64_t time_ps, uint16_t src_adapter, uint16_t dest_adapter) const = 0;
  /** Takes one frame (wire header and payload) arriving at `time_ps`; false once writing has
   *  failed. */
  virtual bool Write(uint64_t time_ps, const std::vector<uint8_t>& bytes) = 0;
};

}  // namespace nicsim::sim
