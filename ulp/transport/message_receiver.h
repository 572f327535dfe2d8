// SPDX-License-Identifier: Apache-2.0
// The receiving side of messages: fragments are assembled, an RTS hands the message to the
// RDMA puller (or announces it to the upper layer, which accepts it when a receive matches),
// and complete messages are delivered exactly once, in order per source.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ulp/byte_ranges.h"
#include "ulp/transport/message_states.h"
#include "ulp/transport/rdma_puller.h"
#include "ulp/transport/transport_context.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * Every message this task is receiving, per source: its fragments (packet mode, or pushed
 * after a pull was given up), or its pull (the RdmaPuller reads it and reports back). A
 * message is delivered when it is complete and every earlier one from its source was;
 * anything older than the next to deliver, or already held, is a duplicate.
 *
 * An announced message (an RTS with kRtsAwaitsAccept) takes its turn in that order as an
 * announcement: the upper layer hears of it (OnAnnounce) and later accepts it (Accept), and
 * its bytes are handed over (OnAccepted) whenever they have all come, since the announcement
 * already kept the order.
 */
class MessageReceiver {
 public:
  /** A whole message, delivered once, in order per source. */
  using DeliverFn = std::function<void(uint32_t src_task, uint32_t context, uint32_t tag,
                                       std::vector<uint8_t> data)>;

  MessageReceiver(const TransportContext& ctx, RdmaPuller& puller);

  /** An announced message `seq` of `total` bytes from `src`, in its turn. */
  using AnnounceFn = std::function<void(uint32_t src_task, uint32_t context, uint32_t tag,
                                        uint64_t total, uint32_t seq)>;
  /** Every byte of accepted message `seq` from `src` (none if it landed in place). */
  using AcceptedFn =
      std::function<void(uint32_t src_task, uint32_t seq, std::vector<uint8_t> data)>;

  /** Sets the delivery callback; returns the one it replaces. */
  DeliverFn OnDeliver(DeliverFn fn) { return std::exchange(deliver_, std::move(fn)); }
  void OnAnnounce(AnnounceFn fn) { announce_ = std::move(fn); }
  void OnAccepted(AcceptedFn fn) { accepted_ = std::move(fn); }
  /**
   * The upper layer takes announced message `seq` from `src`: it is pulled now, into
   * `in_place` of the task's memory if that is not 0 (the receiver's own buffer: OnAccepted
   * then gets no bytes unless the sender had to push them), else into a landing area. False
   * if no such message awaits acceptance.
   */
  bool Accept(uint32_t src, uint32_t seq, uint64_t in_place);
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
    /** The bytes that arrived (fragments that come in order extend one range). */
    ByteRanges arrived;
    /** An announced message's RTS body, kept until it is accepted. */
    std::unique_ptr<RtsBody> rts;
  };
  /** What arrives from one source. */
  struct InConn {
    uint32_t next_deliver = 0;
    std::map<uint32_t, InMsg> msgs;
  };

  /** Delivers the messages of `src` that are complete and next in order, and announces the
   *  announced ones among them. */
  void TryDeliver(uint32_t src);
  /** Runs `fn` after the receive overhead (at once when there is none). */
  void AfterRecvOverhead(std::function<void()> fn);
  /** The message `seq` from `src` held in either place (in order, or announced and taken
   *  out of the order); nullptr if neither holds it. */
  InMsg* Find(uint32_t src, uint32_t seq);
  const InMsg* Find(uint32_t src, uint32_t seq) const;
  /** Message `m` (`seq` from `src`) has every byte: delivered in its turn, or handed to the
   *  upper layer at once if it was announced. */
  void Completed(uint32_t src, uint32_t seq, InMsg& m);

  static uint64_t MsgKey(uint32_t src, uint32_t seq) { return (uint64_t{src} << 32) | seq; }

  const TransportContext ctx_;
  RdmaPuller& puller_;
  DeliverFn deliver_;
  AnnounceFn announce_;
  AcceptedFn accepted_;
  std::unordered_map<uint32_t, InConn> in_;
  /** Announced messages whose turn came, by (source, seq), until all their bytes are here. */
  std::unordered_map<uint64_t, InMsg> announced_;
};

}  // namespace nicsim::ulp
