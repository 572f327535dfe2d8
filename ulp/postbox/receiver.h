// SPDX-License-Identifier: Apache-2.0
// The receiving side of postbox messaging: finds senders' segments as they appear, copies
// messages and pieces out of its postboxes in order, reassembles them and acknowledges.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "ulp/postbox/config.h"
#include "ulp/postbox/platform.h"
#include "ulp/postbox/segment_layout.h"
#include "ulp/postbox/stats.h"

namespace nicsim::ulp::postbox {

/** One delivered message. */
struct Message {
  /** The process that sent it. */
  ProcessId from;
  /** The sender's handle for it (unique per sender). */
  uint64_t sender_handle = 0;
  /** Its bytes, exactly as sent. */
  std::vector<uint8_t> bytes;
};

/**
 * One receiving process. Poll() looks for new senders' segments (a sender's segment appears
 * only when it first sends here), copies out what its postboxes hold in posting order,
 * reassembles pieces and writes an ACK flag for every slot it has emptied. It never writes
 * into a data segment, so a connection stays one-way. No threads; nothing blocks.
 */
class Receiver {
 public:
  /** A receiver for `self`; checks the topology, the id and the parameters. */
  static Result<std::unique_ptr<Receiver>> Create(Platform* platform, Topology topology,
                                                  ProcessId self, Params params);
  /** Unmaps the segments it attached. */
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  /**
   * One pass over every sender: attach new segments, drain postboxes. Returns the messages
   * completed in this pass, or an error naming a sender whose segment or slots broke the
   * protocol (that sender is ignored from then on; the others carry on).
   */
  Result<size_t> Poll();

  /** The oldest delivered message not yet taken, if any. */
  std::optional<Message> Take();

  /**
   * Makes Poll look for senders not yet attached only every `polls` calls (1, the default:
   * every call; 0 counts as 1). Each look costs a failed shm_open per absent sender on
   * ShmSegments, which would dominate a busy-polling loop; a sender's first messages then
   * wait up to `polls` calls longer to be found. Attached senders are drained every call.
   */
  void SetAttachInterval(uint32_t polls) { attach_interval_ = polls == 0 ? 1 : polls; }

  /** Delivered messages waiting to be taken. */
  size_t Ready() const { return inbox_.size(); }

  /** Counters. */
  const ReceiverStats& stats() const { return stats_; }

 private:
  /** What this receiver knows of one potential sender. */
  struct Inbound {
    ProcessId from;
    bool attached = false;
    bool broken = false;
    Mapping data;
    DataLayout layout;
    AckSlot* acks = nullptr;  // this receiver's ACK block in the sender's section
    uint32_t next_seq = 1;
    uint32_t next_slot = 0;
    bool in_message = false;
    uint64_t message_id = 0;
    uint64_t message_bytes = 0;
    std::vector<uint8_t> partial;
  };

  Receiver(Platform* platform, Topology topology, ProcessId self, Params params);
  Status TryAttach(Inbound& in);
  Status Drain(Inbound& in, size_t* delivered);
  Status CheckHeader(const Inbound& in, const Mapping& m) const;

  Platform* platform_;
  Topology topology_;
  ProcessId self_;
  Params params_;
  std::vector<Inbound> inbound_;                       // by the sender's topology index
  std::unordered_map<uint32_t, Mapping> ack_by_node_;  // ACK segments, by sending node
  std::deque<Message> inbox_;
  uint32_t attach_interval_ = 1;
  uint32_t polls_since_look_ = 0;
  ReceiverStats stats_;
};

}  // namespace nicsim::ulp::postbox
