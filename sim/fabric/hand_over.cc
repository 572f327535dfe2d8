// SPDX-License-Identifier: Apache-2.0
// Byte encoding of cross-partition hand-overs: a fixed header of little-endian fields and the
// frame's bytes, so the same build on every process reads what another wrote.
#include "sim/fabric/hand_over.h"

#include <string>

#include "base/le_bytes.h"

namespace nicsim::sim {
namespace {

/** time, tie, reorder delay (8 each); runs_as, plane, byte count (4 each); src, dest (2
 *  each); flags (1). */
constexpr size_t kHeaderBytes = 3 * 8 + 3 * 4 + 2 * 2 + 1;
constexpr uint8_t kCorrupted = 1, kDuplicate = 2, kReorder = 4, kCrcDeferred = 8;
constexpr uint8_t kKnownFlags = kCorrupted | kDuplicate | kReorder | kCrcDeferred;

}  // namespace

bool HandOver::operator==(const HandOver& o) const {
  return time_ps == o.time_ps && tie == o.tie && runs_as == o.runs_as && plane == o.plane &&
         corrupted == o.corrupted && duplicate == o.duplicate && reorder == o.reorder &&
         reorder_delay_ps == o.reorder_delay_ps && src_adapter == o.src_adapter &&
         dest_adapter == o.dest_adapter && crc_deferred == o.crc_deferred && bytes == o.bytes;
}

void EncodeHandOver(const HandOver& h, std::vector<uint8_t>* out) {
  PutLe(out, h.time_ps, 8);
  PutLe(out, h.tie, 8);
  PutLe(out, h.reorder_delay_ps, 8);
  PutLe(out, h.runs_as, 4);
  PutLe(out, h.plane, 4);
  PutLe(out, h.bytes.size(), 4);
  PutLe(out, h.src_adapter, 2);
  PutLe(out, h.dest_adapter, 2);
  const uint8_t flags = (h.corrupted ? kCorrupted : 0) | (h.duplicate ? kDuplicate : 0) |
                        (h.reorder ? kReorder : 0) | (h.crc_deferred ? kCrcDeferred : 0);
  out->push_back(flags);
  out->insert(out->end(), h.bytes.begin(), h.bytes.end());
}

Result<std::vector<HandOver>> DecodeHandOvers(const uint8_t* data, size_t len) {
  std::vector<HandOver> all;
  size_t at = 0;
  while (at < len) {
    if (len - at < kHeaderBytes) {
      return Status::Error("hand-over at byte " + std::to_string(at) + ": header truncated (" +
                           std::to_string(len - at) + " of " + std::to_string(kHeaderBytes) +
                           " bytes)");
    }
    const uint8_t* p = data + at;
    HandOver h;
    h.time_ps = GetLe(p, 8);
    h.tie = GetLe(p + 8, 8);
    h.reorder_delay_ps = GetLe(p + 16, 8);
    h.runs_as = static_cast<uint32_t>(GetLe(p + 24, 4));
    h.plane = static_cast<uint32_t>(GetLe(p + 28, 4));
    const uint64_t size = GetLe(p + 32, 4);
    h.src_adapter = static_cast<uint16_t>(GetLe(p + 36, 2));
    h.dest_adapter = static_cast<uint16_t>(GetLe(p + 38, 2));
    const uint8_t flags = p[40];
    if ((flags & ~kKnownFlags) != 0) {
      return Status::Error("hand-over at byte " + std::to_string(at) + ": unknown flags " +
                           std::to_string(flags));
    }
    h.corrupted = (flags & kCorrupted) != 0;
    h.duplicate = (flags & kDuplicate) != 0;
    h.reorder = (flags & kReorder) != 0;
    h.crc_deferred = (flags & kCrcDeferred) != 0;
    at += kHeaderBytes;
    if (len - at < size) {
      return Status::Error("hand-over at byte " + std::to_string(at - kHeaderBytes) +
                           ": frame of " + std::to_string(size) + " bytes truncated");
    }
    h.bytes.assign(data + at, data + at + size);
    at += size;
    all.push_back(std::move(h));
  }
  return all;
}

}  // namespace nicsim::sim
