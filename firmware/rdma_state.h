// SPDX-License-Identifier: Apache-2.0
// RDMA state the microcode keeps: rCxt records in SRAM (with the window send lists threaded
// through them), per-transfer landing maps for incoming data, and conditional counters with
// the requests parked on them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "abi/fifo.h"
#include "abi/lmt.h"
#include "abi/rdma.h"
#include "firmware/counters.h"
#include "firmware/platform.h"

namespace nicsim::fw {

/**
 * Byte ranges of a transfer that have been claimed by arriving packets. The fabric may
 * duplicate packets: a packet whose range overlaps a claimed one is a duplicate.
 */
class LandedRanges {
 public:
  /** Claims [begin, end); false (nothing claimed) if any byte of it was claimed before. */
  bool Claim(uint32_t begin, uint32_t end);
  /** True if Claim(begin, end) would succeed (nothing is claimed). */
  bool Free(uint32_t begin, uint32_t end) const;
  /** True once [0, end) is claimed, and nothing beyond it. */
  bool Covers(uint32_t end) const;
  void Clear() {
    ranges_.clear();
    zero_claimed_ = false;
  }

 private:
  /** Disjoint, merged ranges: begin -> end. */
  std::map<uint32_t, uint32_t> ranges_;
  /** A zero-length transfer's only packet was claimed. */
  bool zero_claimed_ = false;
};

/** An incoming transfer being landed through an rCxt. */
struct Inbound {
  LandedRanges landed;
  /** Packets whose DMA into host memory is still in progress. */
  uint32_t outstanding = 0;
  /** Set when the packet carrying kLastPacket arrived: the transfer's length. */
  bool end_known = false;
  uint32_t end = 0;
};

/** A request parked until a conditional counter reaches `count`. */
struct ParkedRequest {
  uint32_t window = 0;
  abi::SendSlotHeader slot{};
  abi::RdmaRequest request{};
};

class RdmaState {
 public:
  RdmaState(Platform& platform, uint32_t rcxts);

  uint32_t size() const { return rcxts_; }
  /** Reads rCxt `index` from SRAM; false if the index is beyond the pool. */
  bool Load(uint32_t index, abi::RcxtRecord* rec) const;
  /** Writes rCxt `index` back; a state change is traced (with `task` and `window`). */
  void Store(uint32_t index, const abi::RcxtRecord& rec, TaskId task);
  /**
   * Resolves a reference carried by a packet or a request: the index is in the pool, the
   * rCxt belongs to `window` and its key matches. Loads it into `rec`.
   */
  bool Resolve(uint32_t ref, uint32_t window, abi::RcxtRecord* rec, uint32_t* index) const;
  /** The reference naming rCxt `index` with its current key. */
  static uint32_t RefOf(uint32_t index, const abi::RcxtRecord& rec) {
    return abi::MakeRcxtRef(index, rec.key);
  }

  /** Appends rCxt `index` (already stored) to the window's send list. */
  void Enqueue(abi::LmtEntry& lmt, uint32_t index);
  /** Takes rCxt `index` off the window's send list if it is on it. */
  void Unlink(abi::LmtEntry& lmt, uint32_t index);
  /** Takes the head off the window's send list; `next` is the head record's link. */
  static void PopHead(abi::LmtEntry& lmt, uint32_t next);
  /**
   * Empties the window's send list. For a list the host has cut: its LMT or a record on it
   * (host-writable SRAM) names an rCxt beyond the pool.
   */
  static void DropList(abi::LmtEntry& lmt);

  /** Starts tracking a new incoming transfer on rCxt `index` (forgets any old one). */
  Inbound& BeginInbound(uint32_t index);
  /** The transfer being tracked on rCxt `index`, or nullptr. */
  Inbound* FindInbound(uint32_t index);
  void EndInbound(uint32_t index) { inbound_.erase(index); }

  uint32_t counter(uint32_t queue) const { return counters_[queue]; }
  /** Sets a conditional counter; returns the parked requests whose condition now holds. */
  std::vector<ParkedRequest> SetCounter(uint32_t queue, uint32_t value);
  /** Parks a request on `queue` until its counter reaches request.count (checked by caller). */
  void Park(uint32_t queue, const ParkedRequest& parked) { parked_[queue].push_back(parked); }
  /** Forgets the requests parked on `queue`; returns how many there were. */
  size_t DiscardParked(uint32_t queue) {
    const size_t n = parked_[queue].size();
    parked_[queue].clear();
    return n;
  }

  /** Adapter reset: the SRAM records are gone with SRAM; forget everything else. */
  void Reset();

 private:
  void TraceRcxt(uint32_t index, const abi::RcxtRecord& rec, TaskId task) const;

  Platform& platform_;
  uint32_t rcxts_;
  std::unordered_map<uint32_t, Inbound> inbound_;
  std::array<uint32_t, abi::kConditionalQueues> counters_{};
  std::array<std::vector<ParkedRequest>, abi::kConditionalQueues> parked_;
};

}  // namespace nicsim::fw
