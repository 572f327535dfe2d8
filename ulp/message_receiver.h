// SPDX-License-Identifier: Apache-2.0
// The receiving side of messages: fragments are assembled, an RTS hands the message to the
// RDMA puller, and complete messages are delivered exactly once, in order per source.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ulp/message_states.h"
#include "ulp/rdma_puller.h"
#include "ulp/transport_context.h"
#include "ulp/wire.h"

namespace nicsim::ulp {

/**
 * Every message this task is receiving, per source: its fragments (packet mode, or pushed
 * after a pull was given up), or its pull (the RdmaPuller reads it and reports back). A
 * message is delivered when it is complete and every earlier one from its source was;
 * anything older than the next to deliver, or already held, is a duplicate.
 */
class MessageReceiver {
 public:
  /** A whole message, delivered once, in order per source. */
  using DeliverFn = std::function<void(uint32_t src_task, uint32_t context, uint32_t tag,
                                       std::vector<uint8_t> data)>;

  MessageReceiver(const TransportContext& ctx, RdmaPuller& puller);

  /** Sets the delivery callback; returns the one it replaces. */
  DeliverFn OnDeliver(DeliverFn fn) { return std::exchange(deliver_, std::move(fn)); }
  /** A fragment `h` (already acknowledged) with its `h.frag_len` bytes at `data`. */
  void OnData(const Header& h, const uint8_t* data);
  /** An RTS `h` (already acknowledged) with `len` bytes of body. */
  void OnRts(const Header& h, const uint8_t* body, uint32_t len);
  /** The puller landed every byte of message `seq` from `src`. */
  void OnPullLanded(uint32_t src, uint32_t seq, std::vector<uint8_t> data);
  /** Message `seq` from `src` landed whole in an eager RDMA ring slot. */
  void OnRingLanded(uint32_t src, uint32_t seq, uint32_t context, uint32_t tag,
                    std::vector<uint8_t> data);
  /** The puller gave up message `seq` from `src`: its fragments will be pushed. */
  void OnPullAbandoned(uint32_t src, uint32_t seq);
  /**
   * The message from `src` with `context` and `tag`, when it comes by RDMA, lands at `vaddr`
   * of the task's memory (at most `len` bytes) instead of a landing area: the receiver's own
   * buffer, so no copy is made. Its delivery then carries no bytes (they are in place). A
   * longer message, or one pushed in packet mode, is delivered with its bytes as usual.
   */
  void LandInPlace(uint32_t src, uint32_t context, uint32_t tag, uint64_t vaddr, uint64_t len);
  /**
   * True if the fragment (`kind` kData, at `offset`) or the RTS (kRts) of message `seq` from
   * `src` has arrived: the message was delivered, or is held with that fragment or its pull.
   */
  bool Holds(uint32_t src, Kind kind, uint32_t seq, uint32_t offset) const;
  /** True when no message is being received. */
  bool empty() const;
  /** Messages in progress per state. */
  InStateCounts CountByState() const;

 private:
  struct InMsg {
    uint32_t context = 0;
    uint32_t tag = 0;
    uint64_t total = 0;
    std::vector<uint8_t> data;
    InState state = InState::kFragments;
    /** Offsets of the fragments that arrived, ascending (in order they append: no tree node
     *  per fragment). */
    std::vector<uint32_t> fragments;
    uint64_t received = 0;
  };
  /** What arrives from one source. */
  struct InConn {
    uint32_t next_deliver = 0;
    std::map<uint32_t, InMsg> msgs;
  };

  /** Delivers the messages of `src` that are complete and next in order. */
  void TryDeliver(uint32_t src);

  const TransportContext ctx_;
  RdmaPuller& puller_;
  DeliverFn deliver_;
  struct Placement {
    uint64_t vaddr;
    uint64_t len;
  };
  /** LandInPlace's placements by (source, context, tag), until their RTS comes. */
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Placement> placements_;
  std::unordered_map<uint32_t, InConn> in_;
};

}  // namespace nicsim::ulp
