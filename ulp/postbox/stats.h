// SPDX-License-Identifier: Apache-2.0
// Counters of the postbox engines: every mechanism of the protocol (lazy segments, pieces,
// quota waits, reclamation) leaves a number here that tests and reports can read.
#pragma once

#include <array>
#include <cstdint>

#include "base/counter_table.h"

namespace nicsim::ulp::postbox {

/** What a Sender has done (each field's meaning is in Fields()). */
struct SenderStats {
  uint64_t data_segments_created = 0;
  uint64_t ack_segments_created = 0;
  uint64_t ack_segments_attached = 0;
  uint64_t messages_accepted = 0;
  uint64_t messages_posted = 0;
  uint64_t inline_messages = 0;
  uint64_t pieces_posted = 0;
  uint64_t bytes_posted = 0;
  uint64_t blocks_taken = 0;
  uint64_t blocks_returned = 0;
  uint64_t slots_reclaimed = 0;
  uint64_t quota_waits = 0;
  uint64_t pool_waits = 0;
  uint64_t slot_waits = 0;
  uint64_t blocks_reclaimed_from_others = 0;
  uint64_t receivers_delisted = 0;
  uint64_t rejected_sends = 0;
  uint64_t ack_protocol_errors = 0;

  /** Every counter with its stats.json name and meaning. */
  static constexpr auto Fields() {
    using S = SenderStats;
    return std::array<CounterField<S>, 18>{{
        {"data_segments_created", &S::data_segments_created,
         "data segments senders created (one per receiving node, on the first send there)"},
        {"ack_segments_created", &S::ack_segments_created,
         "ACK segments created (the first sender of a node to reach a node makes it)"},
        {"sender_ack_segments_attached", &S::ack_segments_attached,
         "ACK segments a sender found made by another sender of its node and attached"},
        {"messages_accepted", &S::messages_accepted, "sends accepted"},
        {"messages_posted", &S::messages_posted, "messages whose every byte is posted"},
        {"inline_messages", &S::inline_messages, "messages that fitted in a postbox slot"},
        {"pieces_posted", &S::pieces_posted, "pieces written into buffer blocks"},
        {"bytes_posted", &S::bytes_posted, "bytes posted, inline and in pieces"},
        {"blocks_taken", &S::blocks_taken, "buffer blocks taken from a pool"},
        {"blocks_returned", &S::blocks_returned,
         "buffer blocks given back to their pool after the receiver's ACK"},
        {"slots_reclaimed", &S::slots_reclaimed, "postbox slots reclaimed after an ACK"},
        {"quota_waits", &S::quota_waits,
         "times a send stopped because its receiver held its quota of blocks"},
        {"pool_waits", &S::pool_waits,
         "times a send stopped because the pool was empty even after reclaiming"},
        {"slot_waits", &S::slot_waits,
         "times a send stopped because the receiver's postbox slots were all in use"},
        {"blocks_reclaimed_from_others", &S::blocks_reclaimed_from_others,
         "blocks reclaimed from another receiver on the receiver list to serve this one"},
        {"receivers_delisted", &S::receivers_delisted,
         "receivers taken off a receiver list when their block count fell to zero"},
        {"rejected_sends", &S::rejected_sends, "sends refused with an error"},
        {"ack_protocol_errors", &S::ack_protocol_errors,
         "receivers whose ACK flags broke the protocol (nothing more is sent to them)"},
    }};
  }
  /** Adds another sender's figures. */
  SenderStats& operator+=(const SenderStats& o) { return AddCounters(*this, o); }
};

/** What a Receiver has done (each field's meaning is in Fields()). */
struct ReceiverStats {
  uint64_t segments_attached = 0;
  uint64_t ack_segments_attached = 0;
  uint64_t messages_delivered = 0;
  uint64_t pieces_received = 0;
  uint64_t inline_received = 0;
  uint64_t bytes_delivered = 0;
  uint64_t bytes_copied = 0;
  uint64_t acks_written = 0;
  uint64_t protocol_errors = 0;

  /** Every counter with its stats.json name and meaning. */
  static constexpr auto Fields() {
    using S = ReceiverStats;
    return std::array<CounterField<S>, 9>{{
        {"segments_attached", &S::segments_attached, "senders' data segments found and attached"},
        {"receiver_ack_segments_attached", &S::ack_segments_attached,
         "ACK segments receivers attached (one per sending node)"},
        {"messages_delivered", &S::messages_delivered, "whole messages delivered"},
        {"pieces_received", &S::pieces_received, "pieces copied out of buffer blocks"},
        {"inline_received", &S::inline_received, "inline messages copied out of postbox slots"},
        {"bytes_delivered", &S::bytes_delivered, "bytes of whole messages delivered"},
        {"bytes_copied", &S::bytes_copied,
         "bytes copied out of slots and blocks, counted as each piece is copied"},
        {"acks_written", &S::acks_written, "ACK flags written"},
        {"protocol_errors", &S::protocol_errors,
         "slots whose contents broke the protocol (their sender is then ignored)"},
    }};
  }
  /** Adds another receiver's figures. */
  ReceiverStats& operator+=(const ReceiverStats& o) { return AddCounters(*this, o); }
};

}  // namespace nicsim::ulp::postbox
