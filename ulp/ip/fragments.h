// SPDX-License-Identifier: Apache-2.0
// Splitting a datagram into IPv4 fragments that each fit one frame, and putting fragments
// back together at the receiver: keyed by (source, destination, protocol, identification),
// with a timeout, and a drop counted by its reason for every datagram that cannot be whole.
// A datagram is handed up only when every byte has arrived and no two copies of a byte
// disagreed; a datagram already delivered is not delivered again.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "ulp/byte_ranges.h"
#include "ulp/ip/ipv4.h"
#include "ulp/ip/stats.h"

namespace nicsim::ulp::ip {

/** Payload bytes of each fragment but the last, for frames of `frame_bytes`: a multiple of 8. */
uint32_t FragmentPayloadBytes(uint32_t frame_bytes);

/**
 * The packets that carry a datagram with header `h` (its id, addresses and protocol; length,
 * flags and offset are set here) and `len` payload bytes, each at most `frame_bytes` long:
 * one unfragmented packet if it fits, else fragments of FragmentPayloadBytes each (the last
 * shorter) with the more-fragments flag on all but the last and the offset in 8-byte units.
 */
std::vector<std::vector<uint8_t>> Fragment(Header h, const uint8_t* payload, uint32_t len,
                                           uint32_t frame_bytes);

/** Puts fragments together; counts into an IpStats it does not own. */
class Reassembler {
 public:
  Reassembler(uint64_t timeout_ps, IpStats& stats) : timeout_ps_(timeout_ps), stats_(stats) {}

  /**
   * One packet whose header `h` has been read and checked, with its `len` payload bytes.
   * Returns the whole datagram (a header without fragment fields, then the payload) when this
   * packet completes it.
   */
  std::optional<std::vector<uint8_t>> Feed(uint64_t now_ps, const Header& h, const uint8_t* payload,
                                           uint32_t len);
  /** ReadHeader then Feed; a malformed packet or a bad checksum is counted and dropped. */
  std::optional<std::vector<uint8_t>> FeedPacket(uint64_t now_ps, const uint8_t* packet,
                                                 uint32_t len);
  /** Drops the reassemblies that have timed out; forgets finished datagrams past the timeout. */
  void Expire(uint64_t now_ps);
  /** Reassemblies in progress. */
  size_t pending() const { return partials_.size(); }
  /** When the oldest reassembly in progress times out, if there is one. */
  std::optional<uint64_t> NextDeadline() const;

 private:
  using Key = std::tuple<uint32_t, uint32_t, uint8_t, uint16_t>;
  struct Partial {
    uint64_t started_ps = 0;
    Header first;
    std::vector<uint8_t> data;
    ByteRanges have;
    /** Payload length, once the last fragment has come. */
    std::optional<uint32_t> end;
    /** Highest byte end seen. */
    uint32_t high = 0;
  };
  struct Finished {
    uint64_t until_ps = 0;
    bool delivered = false;
  };

  void Finish(const Key& key, uint64_t now_ps, bool delivered);
  void Abandon(const Key& key, uint64_t now_ps, uint64_t IpStats::*reason);
  static std::vector<uint8_t> Whole(const Header& first, const uint8_t* payload, uint32_t len);

  uint64_t timeout_ps_;
  IpStats& stats_;
  std::map<Key, Partial> partials_;
  /** (started, key) in start order: the reassemblies to time out. */
  std::deque<std::pair<uint64_t, Key>> starts_;
  std::map<Key, Finished> finished_;
  std::deque<std::pair<uint64_t, Key>> finished_order_;
};

}  // namespace nicsim::ulp::ip
