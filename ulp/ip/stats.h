// SPDX-License-Identifier: Apache-2.0
// Counters of an IP interface: what it sent, what it delivered, and every drop by its reason.
#pragma once

#include <array>
#include <cstdint>

#include "base/counter_table.h"

namespace nicsim::ulp::ip {

/** What one IP interface has done (each field's meaning is in Fields()). */
struct IpStats {
  uint64_t datagrams_sent = 0;
  uint64_t unicast_sent = 0;
  uint64_t broadcast_sent = 0;
  uint64_t fragmented_sent = 0;
  uint64_t frames_sent = 0;
  uint64_t broadcast_frames = 0;
  uint64_t bytes_sent = 0;
  uint64_t unroutable = 0;
  uint64_t frames_received = 0;
  uint64_t datagrams_delivered = 0;
  uint64_t bytes_delivered = 0;
  uint64_t reassembled = 0;
  uint64_t duplicate_fragments = 0;
  uint64_t drop_not_ip = 0;
  uint64_t drop_malformed = 0;
  uint64_t drop_bad_checksum = 0;
  uint64_t drop_bad_source = 0;
  uint64_t drop_not_for_us = 0;
  uint64_t drop_too_big = 0;
  uint64_t drop_inconsistent = 0;
  uint64_t drop_timeout = 0;
  uint64_t drop_duplicate = 0;
  uint64_t drop_late = 0;
  uint64_t rdma_offers = 0;
  uint64_t rdma_no_slot = 0;
  uint64_t rdma_fallbacks = 0;
  uint64_t rdma_source_expired = 0;
  uint64_t rdma_reads = 0;
  uint64_t rdma_landed = 0;
  uint64_t rdma_declined = 0;
  uint64_t rdma_read_timeouts = 0;
  uint64_t rdma_cancel_notices = 0;
  uint64_t rdma_stray = 0;
  uint64_t rdma_old_offers = 0;
  uint64_t drop_rdma_crc = 0;

  /** Every counter with its stats.json name and meaning. */
  static constexpr auto Fields() {
    using S = IpStats;
    return std::array<CounterField<S>, 35>{{
        {"datagrams_sent", &S::datagrams_sent, "datagrams accepted by Send"},
        {"unicast_sent", &S::unicast_sent, "of which to one address"},
        {"broadcast_sent", &S::broadcast_sent,
         "of which to 255.255.255.255 or 10.255.255.255 (reaching every other member)"},
        {"fragmented_sent", &S::fragmented_sent,
         "datagrams larger than one frame, sent as IPv4 fragments"},
        {"frames_sent", &S::frames_sent, "packet-mode frames queued (every fragment, every copy)"},
        {"broadcast_frames", &S::broadcast_frames,
         "of which sent once to the broadcast adapter id, for the fabric to copy to every adapter"},
        {"bytes_sent", &S::bytes_sent, "datagram payload bytes accepted by Send"},
        {"unroutable", &S::unroutable,
         "sends refused: the destination is no window of the subnet, or is the sender itself"},
        {"frames_received", &S::frames_received, "frames the window delivered to the interface"},
        {"datagrams_delivered", &S::datagrams_delivered, "datagrams handed up, whole and checked"},
        {"bytes_delivered", &S::bytes_delivered, "payload bytes of those datagrams"},
        {"reassembled", &S::reassembled, "delivered datagrams put together from fragments"},
        {"duplicate_fragments", &S::duplicate_fragments,
         "fragments whose bytes had all arrived already, identical (ignored)"},
        {"drop_not_ip", &S::drop_not_ip, "frames without the IP interface's header word"},
        {"drop_malformed", &S::drop_malformed,
         "packets that are no IPv4 the interface sends: version, options, length, flags"},
        {"drop_bad_checksum", &S::drop_bad_checksum, "packets whose header checksum is wrong"},
        {"drop_bad_source", &S::drop_bad_source,
         "packets whose source address is not the sending window's"},
        {"drop_not_for_us", &S::drop_not_for_us,
         "packets for another address (not ours, not broadcast)"},
        {"drop_too_big", &S::drop_too_big,
         "fragments reaching past the largest datagram (65535 bytes): the reassembly is dropped"},
        {"drop_inconsistent", &S::drop_inconsistent,
         "reassemblies dropped because a fragment disagreed: overlapping bytes differ, two ends, "
         "data past the end, another protocol"},
        {"drop_timeout", &S::drop_timeout,
         "reassemblies not complete within ip.reassembly_timeout of their first fragment"},
        {"drop_duplicate", &S::drop_duplicate,
         "packets of a datagram already delivered (within the reassembly timeout)"},
        {"drop_late", &S::drop_late,
         "packets of a datagram whose reassembly was dropped (within the reassembly timeout)"},
        {"rdma_offers", &S::rdma_offers,
         "unicast datagrams above ip.rdma_threshold offered to their receiver for an RDMA read"},
        {"rdma_no_slot", &S::rdma_no_slot,
         "datagrams above the threshold sent as fragments at once: every source slot was busy"},
        {"rdma_fallbacks", &S::rdma_fallbacks,
         "offered datagrams sent again as fragments because the receiver declined or its read "
         "timed out"},
        {"rdma_source_expired", &S::rdma_source_expired,
         "source slots freed without an answer from the receiver (its done or decline lost)"},
        {"rdma_reads", &S::rdma_reads, "RDMA reads posted for offers received"},
        {"rdma_landed", &S::rdma_landed,
         "RDMA reads whose completion arrived (the datagram landed)"},
        {"rdma_declined", &S::rdma_declined,
         "offers declined (no free landing slot, or a bad offer): the sender uses fragments"},
        {"rdma_read_timeouts", &S::rdma_read_timeouts,
         "RDMA reads not complete within ip.reassembly_timeout: cancelled, the sender asked to "
         "use fragments"},
        {"rdma_cancel_notices", &S::rdma_cancel_notices,
         "completion records with status cancelled: the adapter confirming a timed-out read "
         "is stopped"},
        {"rdma_stray", &S::rdma_stray,
         "RDMA completions for no read in progress (late, or unknown)"},
        {"rdma_old_offers", &S::rdma_old_offers,
         "offers ignored: a copy of one taken already, or older than it (not read twice)"},
        {"drop_rdma_crc", &S::drop_rdma_crc,
         "datagrams read by RDMA whose bytes did not match the offer's CRC-32 (sent again in "
         "fragments)"},
    }};
  }
  IpStats& operator+=(const IpStats& o) { return AddCounters(*this, o); }
};

}  // namespace nicsim::ulp::ip
