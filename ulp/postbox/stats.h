// SPDX-License-Identifier: Apache-2.0
// Counters of the postbox engines: every mechanism of the protocol (lazy segments, pieces,
// quota waits, reclamation) leaves a number here that tests and reports can read.
#pragma once

#include <cstdint>

namespace nicsim::ulp::postbox {

/** What a Sender has done. */
struct SenderStats {
  /** Data segments this sender created (one per receiving node, on the first send there). */
  uint64_t data_segments_created = 0;
  /** ACK segments this sender created (the first sender of a node to reach a node does). */
  uint64_t ack_segments_created = 0;
  /** ACK segments found already made by another sender of the same node and attached. */
  uint64_t ack_segments_attached = 0;
  /** Send calls accepted. */
  uint64_t messages_accepted = 0;
  /** Messages whose every byte is posted. */
  uint64_t messages_posted = 0;
  /** Messages that fitted in a postbox slot. */
  uint64_t inline_messages = 0;
  /** Pieces written into buffer blocks. */
  uint64_t pieces_posted = 0;
  /** Bytes posted (inline and pieces). */
  uint64_t bytes_posted = 0;
  /** Buffer blocks taken from a pool. */
  uint64_t blocks_taken = 0;
  /** Buffer blocks given back to a pool after their receiver's ACK. */
  uint64_t blocks_returned = 0;
  /** Postbox slots reclaimed after an ACK. */
  uint64_t slots_reclaimed = 0;
  /** Times a send had to stop because its receiver was at its block quota. */
  uint64_t quota_waits = 0;
  /** Times a send had to stop because the pool was empty even after reclaiming. */
  uint64_t pool_waits = 0;
  /** Times a send had to stop because the receiver's postbox slots were all in use. */
  uint64_t slot_waits = 0;
  /** Blocks reclaimed from another receiver on the receiver list to serve this one. */
  uint64_t blocks_reclaimed_from_others = 0;
  /** Receivers removed from the receiver list when their block count fell to zero. */
  uint64_t receivers_delisted = 0;
  /** Send calls refused with an error (bad size, bad receiver, ...). */
  uint64_t rejected_sends = 0;
};

/** What a Receiver has done. */
struct ReceiverStats {
  /** Data segments of senders found and attached. */
  uint64_t segments_attached = 0;
  /** ACK segments attached (one per sending node). */
  uint64_t ack_segments_attached = 0;
  /** Whole messages delivered. */
  uint64_t messages_delivered = 0;
  /** Pieces copied out of buffer blocks. */
  uint64_t pieces_received = 0;
  /** Inline messages copied out of postbox slots. */
  uint64_t inline_received = 0;
  /** Bytes delivered. */
  uint64_t bytes_delivered = 0;
  /** ACK flags written. */
  uint64_t acks_written = 0;
  /** Slots whose contents broke the protocol (the sender is then ignored). */
  uint64_t protocol_errors = 0;
};

}  // namespace nicsim::ulp::postbox
