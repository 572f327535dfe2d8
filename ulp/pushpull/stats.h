// SPDX-License-Identifier: Apache-2.0
// Counters of the push-pull engines: each mechanism of reference 003 (the two pushes, the
// ack, pull rounds through the zero buffer, masked translation, the staging fallback) shows here.
#pragma once

#include <cstdint>

namespace nicsim::ulp::pushpull {

/** What a Sender has done. */
struct SenderStats {
  /** Send calls accepted. */
  uint64_t messages_accepted = 0;
  /** Messages finished: every byte pushed and, if any was to be pulled, the last round served. */
  uint64_t messages_completed = 0;
  /** First pushes posted (one per message, header only in push-zero or for an empty message). */
  uint64_t first_pushes = 0;
  /** Second pushes (BTP2) posted, without waiting for the first push's acknowledgement. */
  uint64_t second_pushes = 0;
  /** Further push-all chunks after a message's first. */
  uint64_t push_all_chunks = 0;
  /** Pushes that carried no data (push-zero announcements, empty messages, BTP1 = 0). */
  uint64_t header_only_pushes = 0;
  /** Message bytes copied into the pushed buffer. */
  uint64_t bytes_pushed = 0;
  /** Times pushing stopped because the receiver's pushed buffer was full (per episode). */
  uint64_t push_waits = 0;
  /** Source zero buffers built (address translation of a message's pulled part). */
  uint64_t source_translations = 0;
  /** Of those, built after the first push was posted and before its ack arrived (masked). */
  uint64_t translations_masked = 0;
  /** Pull requests served (the first of each message is the push's acknowledgement). */
  uint64_t pull_rounds_served = 0;
  /** Acknowledgements served (first pull request of a message). */
  uint64_t acks_received = 0;
  /** Acknowledgements that arrived while a second push of the message was already posted. */
  uint64_t acks_overlapped_by_second_push = 0;
  /** Message bytes moved in pull rounds (one copy or staged). */
  uint64_t bytes_pulled = 0;
  /** Pull rounds done as one cross-space copy through the zero buffers. */
  uint64_t zero_copy_rounds = 0;
  /** Pull rounds done through the staging area instead (forced, EPERM/ENOSYS, or failed). */
  uint64_t zero_copy_fallbacks = 0;
  /** Bytes copied into the staging area by those rounds. */
  uint64_t bytes_staged = 0;
  /** Pull requests that broke the protocol (unknown message, range outside the pull part). */
  uint64_t protocol_errors = 0;
};

/** What a Receiver has done. */
struct ReceiverStats {
  /** Receives posted. */
  uint64_t receives_posted = 0;
  /** Receives completed (every wanted byte in the destination). */
  uint64_t receives_completed = 0;
  /** Messages whose first push found its receive already posted (early receiver). */
  uint64_t early_matches = 0;
  /** Messages matched by a receive posted after their first push arrived (late receiver). */
  uint64_t late_matches = 0;
  /** Pushed slots taken out of the pushed buffer. */
  uint64_t pushes_consumed = 0;
  /** Pushed bytes copied straight into a posted destination buffer. */
  uint64_t pushed_bytes_direct = 0;
  /** Pushed bytes kept aside because no receive matched yet (copied again on the match). */
  uint64_t pushed_bytes_buffered = 0;
  /** Acknowledgements sent (the first pull request of a message). */
  uint64_t acks_sent = 0;
  /** Pushes taken out after their message's ack had gone: the push-and-ack overlap. */
  uint64_t pushes_after_ack = 0;
  /** Pull requests sent (acks included). */
  uint64_t pull_requests = 0;
  /** Message bytes that arrived by pull rounds. */
  uint64_t bytes_pulled = 0;
  /** Pulled bytes that came through the staging area (the second copy of the fallback). */
  uint64_t bytes_unstaged = 0;
  /** Destination zero buffers built (address translation at PostReceive). */
  uint64_t dest_translations = 0;
  /** Of those, built before the matching message's first push arrived (masked). */
  uint64_t dest_translations_masked = 0;
  /** Bytes delivered into destination buffers. */
  uint64_t bytes_delivered = 0;
  /** Receives whose message was longer than the buffer (the excess is not moved). */
  uint64_t truncated = 0;
  /** Pushed slots that broke the protocol (the sender is then ignored). */
  uint64_t protocol_errors = 0;
};

}  // namespace nicsim::ulp::pushpull
