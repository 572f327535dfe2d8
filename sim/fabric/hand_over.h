// SPDX-License-Identifier: Apache-2.0
// A frame handed by the fabric to a node of another partition, with the event key it runs
// under there, and its byte encoding for the exchange between processes.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"

namespace nicsim::sim {

/**
 * What the receiving process needs to run a fabric hand-over as the one process would: the
 * event's time and tie key (EventQueue::TakeTie in the sender's event), the node it runs as,
 * and the frame with the plane and the fault decisions the sender's path stream made.
 */
struct HandOver {
  uint64_t time_ps = 0;
  uint64_t tie = 0;
  /** The node the event runs as (the destination adapter's node). */
  uint32_t runs_as = 0;
  uint32_t plane = 0;
  bool corrupted = false;
  bool duplicate = false;
  bool reorder = false;
  uint64_t reorder_delay_ps = 0;
  uint16_t src_adapter = 0;
  uint16_t dest_adapter = 0;
  bool crc_deferred = false;
  std::vector<uint8_t> bytes;

  bool operator==(const HandOver& o) const;
};

/** Appends `h` to `out` (fixed-width little-endian fields, then the frame's bytes). */
void EncodeHandOver(const HandOver& h, std::vector<uint8_t>* out);
/**
 * Decodes every hand-over in `data` (a concatenation of EncodeHandOver outputs). A truncated
 * or malformed buffer is an error naming the byte offset, never a crash.
 */
Result<std::vector<HandOver>> DecodeHandOvers(const uint8_t* data, size_t len);

}  // namespace nicsim::sim
