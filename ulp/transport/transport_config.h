// SPDX-License-Identifier: Apache-2.0
// The reliable transport's settings, its counters and the record of a message it gave up:
// shared by the facade (ulp/transport/transport.h) and each of its parts.
#pragma once

#include <array>
#include <cstdint>

#include "base/counter_table.h"

namespace nicsim::ulp {

/** Settings of one task's transport (the ulp.* parameters, ulp/transport/transport_params.h). */
struct TransportConfig {
  /** This task's rank. */
  uint32_t task = 0;
  /** RDMA for messages above rdma_threshold bytes; off sends everything in packet mode. */
  bool rdma = true;
  uint64_t rdma_threshold = 16 * 1024;
  /** Largest RDMA read chunk: chunks are cut smaller as the loss reads meet grows
   *  (ChunkSizer), and a failing chunk is halved down to one packet. */
  uint32_t rdma_chunk = 256 * 1024;
  /** Chunks in flight per message (rCxt pairs). */
  uint32_t rdma_pipeline = 4;
  /** Bytes of RDMA reads in flight at once over all messages this task receives. */
  uint64_t rdma_inflight_bytes = 2u << 20;
  /** Tries of a one-packet chunk before the message falls back to packet mode, unless the
   *  loss seen explains the failures and leaves RDMA worth it (ChunkSizer::LossExplains). */
  uint32_t rdma_attempts = 6;
  /**
   * Packet-mode retransmit timeout before any round trip is measured (an MPI job sets it
   * from its cluster's model: sim::FirstTimeoutPs); afterwards the timeout follows the
   * measured round trip (srtt + 4 rttvar, at least rto_min_ps). Doubled per retry up to
   * rto_max_ps.
   */
  uint64_t rto_ps = 200'000'000;
  uint64_t rto_min_ps = 20'000'000;
  uint64_t rto_max_ps = 2'000'000'000;
  /**
   * Sends of one reliable packet without an acknowledgement after which its destination is
   * unreachable: every message to it fails (OnUnreachable) and nothing more is sent there.
   */
  uint32_t max_retransmits = 64;
  /** RDMA chunk timeout (after which the source is asked about the read): base plus this
   *  task's bytes of RDMA reads in flight at rdma_timeout_ps_per_byte (a conservative pace of
   *  its link). A source that serves other readers first answers that the read is queued or
   *  being sent, and the reader waits on. */
  uint64_t rdma_timeout_base_ps = 60'000'000;
  double rdma_timeout_ps_per_byte = 2000.0;
  /**
   * A chunk overtaken by a later chunk of its message on the same port is redriven if it
   * has not completed this long after plus its own time at the source's pace (the
   * fabric's paths reorder packets by less).
   */
  uint64_t rdma_reorder_window_ps = 20'000'000;
  /** Unacknowledged packets in flight per destination. */
  uint32_t window = 48;
  /** Host CPU time the protocol stack spends per message sent and per message delivered
   *  (the software path of LAPI and MPI on the node). */
  uint64_t send_overhead_ps = 0;
  uint64_t recv_overhead_ps = 0;
  /** Host CPU time per byte of a copy of message data (the inverse of the host's copy
   *  bandwidth): a message copied out of its landing area is delivered that much later.
   *  0: copies are free. */
  double copy_ps_per_byte = 0;
  /**
   * Eager RDMA (docs/ulp.md): a message that fits a slot goes by one RDMA write into the
   * receiver's ring for this connection instead of packet mode or an RTS. Connections are made
   * on first use with small slots and enlarged when a message needs it.
   */
  bool eager_rdma = false;
  /** Bytes of a small slot and of a large slot (framing included). */
  uint64_t eager_small_slot = 4 * 1024;
  uint64_t eager_large_slot = 64 * 1024;
  /** Slots per ring: writes in flight per connection. */
  uint32_t eager_slots = 4;
  /** Slots per ring of large slots (0: eager_slots). */
  uint32_t eager_large_slots = 0;
  /** The receiver frees and deregisters the small ring once the sender has moved to the large. */
  bool eager_release_small = true;
  /** A large connection idle this long goes back to small slots (0: never). */
  uint64_t eager_shrink_idle_ps = 0;
  /** Redrives of one eager write after which its message goes in packet mode instead
   *  (at most kEagerAttempts - 1). */
  uint32_t eager_redrives = 8;
};

/** Counters of one task's transport; its parts count into one instance the facade owns. */
struct TransportStats {
  uint64_t messages_sent = 0;
  uint64_t messages_delivered = 0;
  uint64_t packets_sent = 0;
  uint64_t retransmits = 0;
  uint64_t retransmits_deferred = 0;
  uint64_t probes_coalesced = 0;
  uint64_t probes = 0;
  uint64_t probes_overtaken = 0;
  uint64_t duplicates = 0;
  uint64_t rdma_messages = 0;
  uint64_t rdma_chunks = 0;
  uint64_t rdma_redrives = 0;
  uint64_t rdma_redrives_timeout = 0;
  uint64_t rdma_redrives_overtaken = 0;
  uint64_t rdma_redrives_not_there = 0;
  uint64_t rdma_queries = 0;
  uint64_t rdma_cancel_notices = 0;
  uint64_t rdma_budget_cuts = 0;
  uint64_t rdma_splits = 0;
  uint64_t fallbacks = 0;
  uint64_t rdma_reads = 0;
  uint64_t rdma_reads_given_up = 0;
  uint64_t read_channels_opened = 0;
  uint64_t read_channels_refused = 0;
  uint64_t messages_failed = 0;
  uint64_t window_fatals = 0;
  uint64_t host_copies = 0;
  uint64_t host_copy_bytes = 0;
  uint64_t mcast_sends = 0;
  uint64_t mcast_unicasts = 0;
  uint64_t mcast_retries = 0;
  uint64_t mcast_queries = 0;
  uint64_t mcast_not_yet = 0;
  uint64_t mcast_acks = 0;
  uint64_t mcast_nacks = 0;
  uint64_t mcast_received = 0;
  uint64_t mcast_superseded = 0;
  uint64_t mcast_failed = 0;
  uint64_t mcast_chain_writes = 0;
  uint64_t mcast_chain_forwards = 0;
  uint64_t mcast_reacks = 0;
  uint64_t half_rdma_transfers = 0;
  uint64_t half_rdma_writes = 0;
  uint64_t half_rdma_packets = 0;
  uint64_t half_rdma_duplicate_packets = 0;
  uint64_t half_rdma_stale = 0;
  uint64_t half_rdma_combined_bytes = 0;
  uint64_t half_rdma_retries = 0;
  uint64_t half_rdma_chunks = 0;
  uint64_t eager_rdma_messages = 0;
  uint64_t eager_rdma_redrives = 0;
  uint64_t eager_fill_passes = 0;
  uint64_t eager_fallbacks = 0;
  uint64_t eager_enlargements = 0;
  uint64_t eager_shrinks = 0;
  uint64_t eager_rings_released = 0;
  uint64_t eager_registrations = 0;
  uint64_t eager_deregistrations = 0;
  uint64_t eager_rcxts_taken = 0;
  uint64_t eager_rcxts_released = 0;
  uint64_t eager_ring_bytes = 0;
  uint64_t eager_ring_bytes_peak = 0;
  uint64_t eager_flag_mismatches = 0;
  uint64_t eager_duplicates = 0;
  uint64_t eager_refusals = 0;

  /** Every figure with its stats.json name and meaning, in one table: totals, reports and
   *  docs loop over it. */
  static constexpr auto Fields() {
    using S = TransportStats;
    return std::array<CounterField<S>, 65>{{
        {"messages_sent", &S::messages_sent, "messages handed to the transport"},
        {"messages_delivered", &S::messages_delivered,
         "messages delivered to the receiver, once each"},
        {"messages_failed", &S::messages_failed,
         "messages given up because their destination stopped answering"},
        {"packets_sent", &S::packets_sent, "reliable packets sent, retransmissions included"},
        {"retransmits", &S::retransmits,
         "packets sent again: the receiver answered a probe that they never came, or their "
         "timeout came while their destination's latest answer was such a kNack"},
        {"probes", &S::probes,
         "timeouts that asked the receiver whether a packet came (answered by its "
         "acknowledgement or a kNack) instead of sending it again"},
        {"probes_overtaken", &S::probes_overtaken,
         "probes sent before any timeout because a packet sent later to the same destination "
         "through the same port was acknowledged first"},
        {"retransmits_deferred", &S::retransmits_deferred,
         "timeouts that sent nothing because the last copy had not left through the adapter "
         "yet (in the task's backlog or send FIFO, one port only): it is looked at again a "
         "quarter of its timeout later, and its timeout starts over once it has left; only "
         "after rto_max_ps of such waiting is it doubled and counted like a send"},
        {"probes_coalesced", &S::probes_coalesced,
         "timeouts that asked nothing because a probe to the same destination was still "
         "unanswered (its answer comes behind the acknowledgements sent before it)"},
        {"duplicates_suppressed", &S::duplicates, "packets that arrived again and were dropped"},
        {"rdma_messages", &S::rdma_messages,
         "messages offered for RDMA (their request to send went out)"},
        {"rdma_chunks", &S::rdma_chunks, "RDMA read chunks posted, redrives included"},
        {"rdma_redrives", &S::rdma_redrives, "RDMA chunks given up and posted again, all causes"},
        {"rdma_redrives_timeout", &S::rdma_redrives_timeout,
         "redrives of a late chunk whose source had sent every packet (and they did not all "
         "land), left four questions unanswered, or sent nothing more through eight answers"},
        {"rdma_redrives_overtaken", &S::rdma_redrives_overtaken,
         "redrives of a chunk that a later chunk on the same port had overtaken, once its "
         "source had sent every packet (or did not answer)"},
        {"rdma_redrives_not_there", &S::rdma_redrives_not_there,
         "redrives of a late chunk whose source answered that its rCxt never got the read "
         "request (lost, or dropped at a busy rCxt)"},
        {"rdma_queries", &S::rdma_queries,
         "questions a reader sent to a source about a late chunk before redriving it (the "
         "chunk is redriven only if the source never got it, had sent it all a timeout ago, "
         "or did not answer)"},
        {"rdma_cancel_notices", &S::rdma_cancel_notices,
         "completion records with status cancelled: the adapter confirming that a transfer "
         "this task cancelled (before redriving it) is stopped"},
        {"rdma_budget_cuts", &S::rdma_budget_cuts,
         "times a lost chunk halved the reader's budget of RDMA reads in flight (once per loss "
         "event; it grows back by about a chunk per budget's worth landed)"},
        {"rdma_splits", &S::rdma_splits, "chunks halved after a failure"},
        {"fallbacks", &S::fallbacks,
         "RDMA messages finished in packet mode instead (the reader gave up or declined)"},
        {"rdma_reads", &S::rdma_reads,
         "direct reads of a peer's published memory started over a read channel (a one-sided "
         "get with no message to the peer)"},
        {"rdma_reads_given_up", &S::rdma_reads_given_up,
         "direct reads given up when RDMA could not get through (the caller asked by message; "
         "the channel is opened again on next use)"},
        {"read_channels_opened", &S::read_channels_opened,
         "read channels a source opened for a reader (their rCxts reserved)"},
        {"read_channels_refused", &S::read_channels_refused,
         "read channels a source refused (no rCxts left): that reader asks by message"},
        {"window_fatals", &S::window_fatals,
         "times an RDMA protection failure stopped one of the task's windows (each was closed, "
         "reopened and its work redriven)"},
        {"host_copies", &S::host_copies,
         "RDMA messages the receiving CPU copied out of a landing area (none when the "
         "receiver's buffer was the landing: in place), and group messages copied into a "
         "root's source area or out of a member's slot"},
        {"host_copy_bytes", &S::host_copy_bytes, "bytes of those copies"},
        {"mcast_sends", &S::mcast_sends,
         "multicast group messages sent as a root (one broadcast RDMA write each, when a member "
         "can take it)"},
        {"mcast_unicasts", &S::mcast_unicasts,
         "first sends of group messages by unicast RDMA write to members the broadcast does not "
         "reach (another window number, the root's node, slots elsewhere)"},
        {"mcast_retries", &S::mcast_retries,
         "selective unicast re-sends of a group message to a member whose acknowledgement had "
         "not come, or that asked for a signal again"},
        {"mcast_queries", &S::mcast_queries,
         "questions a root sent with each retry of a group message (a member that has the "
         "message drops a retry that keeps its tid, and any retry once a later message took "
         "the slot, unanswered): a member that has it acknowledges it again"},
        {"mcast_not_yet", &S::mcast_not_yet,
         "answers a root gave a member that asked for a signal it has not sent yet (the member "
         "keeps asking: up to 16,384 questions in all instead of 255 unanswered)"},
        {"mcast_acks", &S::mcast_acks, "acknowledgements of group messages sent as a member"},
        {"mcast_nacks", &S::mcast_nacks,
         "requests a member sent for a group signal (an empty message, not acknowledged) that "
         "had not come by its timeout"},
        {"mcast_received", &S::mcast_received, "group messages received and copied out"},
        {"mcast_superseded", &S::mcast_superseded,
         "group messages whose slot a newer write (a retry of the same message, or a later "
         "message) had reached when they were to be copied out: the copy waits for that write"},
        {"mcast_failed", &S::mcast_failed,
         "group messages whose retries ran out before every member acknowledged (a late "
         "acknowledgement still ends one), or signals a member stopped asking for"},
        {"mcast_chain_writes", &S::mcast_chain_writes,
         "first sends of group messages by a root of a chained group to its children in the "
         "tree (mpi.bcast=chained)"},
        {"mcast_chain_forwards", &S::mcast_chain_forwards,
         "writes a member of a chained group parked for its adapter to forward a message to "
         "its children when it lands"},
        {"mcast_reacks", &S::mcast_reacks,
         "of mcast_acks, acknowledgements a member of a chained group repeated while it "
         "waited long for the next message in a slot (it drops retries of the slot's message "
         "before as stale, so a lost acknowledgement is answered no other way)"},
        {"half_rdma_transfers", &S::half_rdma_transfers,
         "reduction contributions a parent took in by half RDMA (mpi.reduce=half_rdma): the "
         "child's adapter reads them from its buffer, the packets land in the parent's FIFO"},
        {"half_rdma_writes", &S::half_rdma_writes,
         "half RDMA writes a child posted for its contributions, one per clear-to-send it "
         "acted on (retries included)"},
        {"half_rdma_packets", &S::half_rdma_packets,
         "half RDMA data packets a parent took from its FIFO for a contribution in progress"},
        {"half_rdma_duplicate_packets", &S::half_rdma_duplicate_packets,
         "of those, packets whose every byte had already come (a retry overlapping what had "
         "arrived): nothing combined"},
        {"half_rdma_stale", &S::half_rdma_stale,
         "half RDMA data packets dropped by the parent: their rCxt and tid name no attempt of "
         "a contribution in progress (a late packet of a finished one)"},
        {"half_rdma_combined_bytes", &S::half_rdma_combined_bytes,
         "bytes the parent's CPU combined into its accumulator as their packets arrived (each "
         "byte of each contribution once)"},
        {"half_rdma_retries", &S::half_rdma_retries,
         "clear-to-sends a parent sent again, with a newer tid: for the first gaps of a "
         "contribution that had made no progress for its watch interval, or for gaps with "
         "bytes after them once what was asked for before was in"},
        {"half_rdma_chunks", &S::half_rdma_chunks,
         "clear-to-sends for a contribution's next chunk (ulp.rdma_chunk), sent as soon as the "
         "chunk before was in"},
        {"eager_rdma_messages", &S::eager_rdma_messages,
         "messages sent by one RDMA write into the receiver's eager ring (ulp.eager_rdma)"},
        {"eager_rdma_redrives", &S::eager_rdma_redrives,
         "eager ring writes posted again because their delivery was not acknowledged in time "
         "(from its second redrive on, a write of several packets keeps each tid for three "
         "passes, so the receiver's adapter fills in the packets it lacks)"},
        {"eager_fill_passes", &S::eager_fill_passes,
         "eager redrives that kept the tid of the attempt before: the target's adapter keeps "
         "the packets that landed and drops them again"},
        {"eager_fallbacks", &S::eager_fallbacks,
         "eager ring writes given up after ulp.eager_redrives redrives: their messages went "
         "in packet mode instead"},
        {"eager_enlargements", &S::eager_enlargements,
         "connections asked to provision large slots (a message did not fit the small ones)"},
        {"eager_shrinks", &S::eager_shrinks,
         "large connections asked to go back to small slots after ulp.eager_shrink_idle"},
        {"eager_rings_released", &S::eager_rings_released,
         "receive rings freed, deregistered and their rCxts given back once their sender had "
         "moved to another (ulp.eager_release_small, or a shrink)"},
        {"eager_registrations", &S::eager_registrations,
         "eager ring and staging areas registered (each is deregistered once: "
         "eager_deregistrations, or when the transport ends)"},
        {"eager_deregistrations", &S::eager_deregistrations,
         "eager ring and staging areas deregistered while the transport ran"},
        {"eager_rcxts_taken", &S::eager_rcxts_taken, "landing rCxts taken for eager rings"},
        {"eager_rcxts_released", &S::eager_rcxts_released,
         "landing rCxts of eager rings given back while the transport ran"},
        {"eager_ring_bytes", &S::eager_ring_bytes,
         "bytes of eager ring and staging areas registered now (the memory the connections "
         "hold)"},
        {"eager_ring_bytes_peak", &S::eager_ring_bytes_peak,
         "most bytes of eager ring and staging areas this task held at once (job totals add "
         "the tasks' peaks)"},
        {"eager_flag_mismatches", &S::eager_flag_mismatches,
         "eager slots or ready notices whose head and tail flags did not agree (not taken; "
         "the write is redriven)"},
        {"eager_duplicates", &S::eager_duplicates,
         "eager writes that landed again after their message was delivered (acknowledged "
         "again, not delivered)"},
        {"eager_refusals", &S::eager_refusals,
         "ring requests a receiver refused (no memory, registration or rCxts): the connection "
         "keeps packet mode and RTS for those messages"},
    }};
  }

  /** Adds another task's figures (job totals). */
  TransportStats& operator+=(const TransportStats& o) { return AddCounters(*this, o); }
};

/** A message the transport gave up on: its destination never acknowledged a packet of it. */
struct FailedMessage {
  uint32_t dest_task = 0;
  uint32_t seq = 0;
  uint64_t len = 0;
};

}  // namespace nicsim::ulp
