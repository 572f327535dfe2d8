// SPDX-License-Identifier: Apache-2.0
// Counters of the push-pull engines: each mechanism of reference 003 (the two pushes, the ack,
// pull rounds through the zero buffer, masked translation, the staging fallback) shows here.
#pragma once

#include <array>
#include <cstdint>

#include "base/counter_table.h"

namespace nicsim::ulp::pushpull {

/** What a Sender has done (each field's meaning is in Fields()). */
struct SenderStats {
  uint64_t messages_accepted = 0;
  uint64_t messages_completed = 0;
  uint64_t first_pushes = 0;
  uint64_t second_pushes = 0;
  uint64_t push_all_chunks = 0;
  uint64_t header_only_pushes = 0;
  uint64_t bytes_pushed = 0;
  uint64_t push_waits = 0;
  uint64_t source_translations = 0;
  uint64_t translations_masked = 0;
  uint64_t pull_rounds_served = 0;
  uint64_t acks_received = 0;
  uint64_t acks_overlapped_by_second_push = 0;
  uint64_t bytes_pulled = 0;
  uint64_t zero_copy_rounds = 0;
  uint64_t zero_copy_fallbacks = 0;
  uint64_t bytes_staged = 0;
  uint64_t protocol_errors = 0;

  /** Every counter with its stats.json name and meaning. */
  static constexpr auto Fields() {
    using S = SenderStats;
    return std::array<CounterField<S>, 18>{{
        {"messages_accepted", &S::messages_accepted, "send calls accepted"},
        {"messages_completed", &S::messages_completed,
         "messages finished: every byte pushed and, if any was to be pulled, the last round "
         "served"},
        {"first_pushes", &S::first_pushes,
         "first pushes posted (one per message, header only in push-zero or for an empty message)"},
        {"second_pushes", &S::second_pushes,
         "second pushes (BTP2) posted, without waiting for the first push's acknowledgement"},
        {"push_all_chunks", &S::push_all_chunks, "further push-all chunks after a message's first"},
        {"header_only_pushes", &S::header_only_pushes,
         "pushes that carried no data (push-zero announcements, empty messages, BTP1 = 0)"},
        {"bytes_pushed", &S::bytes_pushed, "message bytes copied into the pushed buffer"},
        {"push_waits", &S::push_waits,
         "times pushing stopped because the receiver's pushed buffer was full (per episode)"},
        {"source_translations", &S::source_translations,
         "source zero buffers built (address translation of a message's pulled part)"},
        {"translations_masked", &S::translations_masked,
         "of those, built after the first push was posted and before its ack arrived (masked)"},
        {"pull_rounds_served", &S::pull_rounds_served,
         "pull requests served (the first of each message is the push's acknowledgement)"},
        {"acks_received", &S::acks_received,
         "acknowledgements served (first pull request of a message)"},
        {"acks_overlapped_by_second_push", &S::acks_overlapped_by_second_push,
         "acknowledgements that arrived while a second push of the message was already posted"},
        {"bytes_pulled_served", &S::bytes_pulled,
         "message bytes moved in pull rounds (one copy or staged)"},
        {"zero_copy_rounds", &S::zero_copy_rounds,
         "pull rounds done as one cross-space copy through the zero buffers"},
        {"zero_copy_fallbacks", &S::zero_copy_fallbacks,
         "pull rounds done through the staging area instead (forced, EPERM/ENOSYS, or failed)"},
        {"bytes_staged", &S::bytes_staged, "bytes copied into the staging area by those rounds"},
        {"sender_protocol_errors", &S::protocol_errors,
         "pull requests that broke the protocol (unknown message, range outside the pull part)"},
    }};
  }
  /** Adds another sender's figures. */
  SenderStats& operator+=(const SenderStats& o) { return AddCounters(*this, o); }
};

/** What a Receiver has done (each field's meaning is in Fields()). */
struct ReceiverStats {
  uint64_t receives_posted = 0;
  uint64_t receives_completed = 0;
  uint64_t early_matches = 0;
  uint64_t late_matches = 0;
  uint64_t arrival_posts = 0;
  uint64_t pushes_consumed = 0;
  uint64_t pushed_bytes_direct = 0;
  uint64_t pushed_bytes_buffered = 0;
  uint64_t acks_sent = 0;
  uint64_t pushes_after_ack = 0;
  uint64_t pull_requests = 0;
  uint64_t bytes_pulled = 0;
  uint64_t bytes_unstaged = 0;
  uint64_t dest_translations = 0;
  uint64_t dest_translations_masked = 0;
  uint64_t bytes_delivered = 0;
  uint64_t truncated = 0;
  uint64_t protocol_errors = 0;

  /** Every counter with its stats.json name and meaning. */
  static constexpr auto Fields() {
    using S = ReceiverStats;
    return std::array<CounterField<S>, 18>{{
        {"receives_posted", &S::receives_posted, "receives posted"},
        {"receives_completed", &S::receives_completed,
         "receives completed (every wanted byte in the destination)"},
        {"early_matches", &S::early_matches,
         "messages whose first push found its receive already posted (early receiver)"},
        {"late_matches", &S::late_matches,
         "messages matched by a receive posted after their first push arrived (late receiver)"},
        {"arrival_posts", &S::arrival_posts,
         "receives posted by the arrival hook for a first push that matched no posted receive "
         "(also in early_matches)"},
        {"pushes_consumed", &S::pushes_consumed, "pushed slots taken out of the pushed buffer"},
        {"pushed_bytes_direct", &S::pushed_bytes_direct,
         "pushed bytes copied straight into a posted destination buffer"},
        {"pushed_bytes_buffered", &S::pushed_bytes_buffered,
         "pushed bytes kept aside because no receive matched yet (copied again on the match)"},
        {"acks_sent", &S::acks_sent, "acknowledgements sent (the first pull request of a message)"},
        {"pushes_after_ack", &S::pushes_after_ack,
         "pushes taken out after their message's ack had gone: the push-and-ack overlap"},
        {"pull_requests", &S::pull_requests, "pull requests sent (acks included)"},
        {"bytes_pulled", &S::bytes_pulled, "message bytes that arrived by pull rounds"},
        {"bytes_unstaged", &S::bytes_unstaged,
         "pulled bytes that came through the staging area (the second copy of the fallback)"},
        {"dest_translations", &S::dest_translations,
         "destination zero buffers built (address translation at PostReceive)"},
        {"dest_translations_masked", &S::dest_translations_masked,
         "of those, built before the matching message's first push arrived (masked)"},
        {"bytes_delivered", &S::bytes_delivered, "bytes delivered into destination buffers"},
        {"truncated", &S::truncated,
         "receives whose message was longer than the buffer (the excess is not moved)"},
        {"receiver_protocol_errors", &S::protocol_errors,
         "pushed slots that broke the protocol (the sender is then ignored)"},
    }};
  }
  /** Adds another receiver's figures. */
  ReceiverStats& operator+=(const ReceiverStats& o) { return AddCounters(*this, o); }
};

}  // namespace nicsim::ulp::pushpull
