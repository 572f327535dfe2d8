// SPDX-License-Identifier: Apache-2.0
// The reliable transport's packet formats: a 32-byte header at the start of every
// packet-mode payload, and the body of a request-to-send for a message moved by RDMA.
#pragma once

#include <cstdint>

namespace nicsim::ulp {

/** What a transport packet is. */
enum class Kind : uint8_t {
  /** A fragment of a message's bytes. */
  kData = 1,
  /** Acknowledges one packet: (acked kind, seq, offset). */
  kAck = 2,
  /** Request to send: the message's bytes wait, registered, for the receiver to read. */
  kRts = 3,
  /** Receiver to sender: the RDMA read of message `seq` is complete. */
  kDone = 4,
  /** Receiver to sender: RDMA failed; send message `seq` in packet mode. */
  kFallback = 5,
  /** Multicast member to root: message `seq` of group `context` is in (not acknowledged
   *  itself: the root's retry brings another). */
  kMcastAck = 6,
  /** Multicast member to root: signal (empty message) `seq` of group `context` has not come;
   *  `offset` is the attempt to send it with. */
  kMcastNack = 7,
  /** Reduction parent to child: clear to send contribution `seq` of collective `context`
   *  (`total` bytes) by half RDMA; a ReduceCtsBody says which bytes, to which rCxt, with which
   *  tid. `offset` holds the tid too, so each attempt is a packet of its own. */
  kReduceCts = 8,
  /** Reduction parent to child: every byte of contribution `seq` of `context` (also in
   *  `offset`) is in; the child may reuse its buffer. */
  kReduceDone = 9,
  /** Reduction child to parent: the write of contribution `seq` of `context` has been posted
   *  (`offset`: its tid); from now on its bytes should keep coming. */
  kReduceStarted = 10,
  /** Eager RDMA, sender to receiver: provision ring generation `seq` of `offset` slots of
   *  `total` bytes each for this connection (docs/ulp.md, eager RDMA). */
  kEagerOpen = 11,
  /** Eager RDMA, receiver to sender: ring generation `seq` is ready; an EagerReadyBody says
   *  where (no slots: refused, keep the old way). */
  kEagerReady = 12,
  /** Eager RDMA, receiver to sender (not acknowledged itself): the write with ring index
   *  `seq` of generation `context` was delivered; its slot is free again. */
  kEagerAck = 13,
  /** Eager RDMA, sender to receiver: ring generation `seq` will not be written again. */
  kEagerRelease = 14,
  /** RDMA reader to source (not acknowledged itself): the read of message `seq` at the
   *  source's rCxt number `offset` of the RTS, with tid `context`, has not completed in its
   *  time; has it reached that rCxt? Asked before the read is redriven. */
  kRdmaQuery = 15,
  /** RDMA source to reader (not acknowledged itself): the answer to the kRdmaQuery for message
   *  `seq`, rCxt number `offset`, tid `context`; `total` is an RdmaReadStatus and `tag` the
   *  bytes of the read the source has sent so far. */
  kRdmaStatus = 16,
  /** Sender to receiver (not acknowledged itself): has the packet (`acked` kind, `seq`,
   *  `offset`) arrived? Sent when its acknowledgement is late, instead of the packet: the
   *  receiver answers with the acknowledgement, or with kNack if the packet never came. */
  kProbe = 17,
  /** Receiver to sender (not acknowledged itself): the probed packet (`acked` kind, `seq`,
   *  `offset`) has not arrived (or is of a kind the receiver keeps no record of): send it
   *  again. */
  kNack = 18,
  /** Multicast root to member (not acknowledged itself): has message `seq` of group `context`
   *  come? Sent with each retry (a member that has the message drops a retry that keeps its
   *  tid unanswered, and any retry once a later message took the slot); answered with
   *  kMcastAck if it has. */
  kMcastQuery = 19,
  /** Multicast root to member (not acknowledged itself): signal `seq` of group `context`, which
   *  the member asked for (kMcastNack), is not sent yet; the member keeps waiting. */
  kMcastNotYet = 20,
  /** Direct reads, reader to source: open read channel generation `seq`, for which the source
   *  reserves rCxts that this reader's reads of its published memory name (ReadChannels). */
  kReadOpen = 21,
  /** Direct reads, source to reader: read channel generation `seq` is open; a ReadReadyBody
   *  names its rCxts (no pairs: refused). */
  kReadReady = 22,
};

/** What a source's rCxt says of a read a reader asked about (kRdmaStatus). */
enum class RdmaReadStatus : uint32_t {
  /** The rCxt holds another tid (the request never arrived, or was dropped there), or the
   *  message is no longer offered. */
  kNotThere = 0,
  /** The read is queued on the source's window or being sent. */
  kSending = 1,
  /** Every packet of the read has been sent (injected into the fabric). */
  kSent = 2,
};

/** Little-endian header at the start of every transport packet. */
struct Header {
  uint8_t kind;
  /** kAck: the kind being acknowledged. */
  uint8_t acked;
  /** kRts: kRtsAwaitsAccept or 0; kAck: kAckAnswersProbe or 0. */
  uint16_t flags;
  uint32_t src_task;
  /** The message's sequence number on its (source, destination) connection. */
  uint32_t seq;
  /** kData: this fragment's offset in the message. */
  uint32_t offset;
  /** Bytes of the whole message. */
  uint32_t total;
  uint32_t context;
  uint32_t tag;
  /** Bytes of message data in this packet. */
  uint32_t frag_len;
};
static_assert(sizeof(Header) == 32, "transport header layout");

/**
 * An RTS flag: the message is announced to the receiver's upper layer, which accepts it (and
 * says where it lands) when a receive matches it; only then is it pulled. Without it the
 * receiver pulls at once into a landing area. An announcement may carry no rCxts (the sender
 * had no RDMA for it): accepting it asks the sender to push the bytes in packet mode.
 */
inline constexpr uint16_t kRtsAwaitsAccept = 1;

/**
 * An acknowledgement flag: it answers a probe (the packet had come), rather than the packet's
 * own arrival. An acknowledgement without it measures the round trip of the packet's last
 * transmission even when a probe went after it.
 */
inline constexpr uint16_t kAckAnswersProbe = 1;

/** A piece of the sender's buffer inside one registered fragment. */
struct RtsSpan {
  uint64_t offset;
  uint64_t len;
  uint64_t pvo;
};

/** Most spans and rCxts an RTS carries. */
inline constexpr uint32_t kMaxRtsSpans = 8;
inline constexpr uint32_t kMaxPipeline = 8;

/** Payload of a kRts packet after the header. */
struct RtsBody {
  uint32_t spans;
  uint32_t rcxts;
  RtsSpan span[kMaxRtsSpans];
  /**
   * The sender's rCxts the receiver's reads may name: one per pipeline slot, then a spare
   * per slot. A read redriven on a slot names the other of its two, since the one it named
   * may still be sending the attempt given up on (a busy rCxt drops read requests).
   */
  uint32_t rcxt[2 * kMaxPipeline];
};

/** Most rCxt pairs a read channel holds: reads of one reader in flight at one source. */
inline constexpr uint32_t kMaxReadPairs = 4;

/** Payload of a kReadReady packet after the header. */
struct ReadReadyBody {
  /** Pairs of rCxts reserved (0: refused). A read names the first of its pair, a redrive of
   *  it the other (the first may still be sending the attempt given up on). */
  uint32_t pairs;
  uint32_t reserved;
  uint32_t rcxt[2 * kMaxReadPairs];
};
static_assert(sizeof(ReadReadyBody) == 40, "read ready layout");

/**
 * A pull's seq with this bit set is a direct read of a source's published memory, not a
 * message of the source's (message seqs count up on each connection and stay below it); its low
 * bits name the read channel's pair.
 */
inline constexpr uint32_t kReadSeqBit = 0x80000000u;
inline constexpr bool IsReadSeq(uint32_t seq) { return (seq & kReadSeqBit) != 0; }

/** Payload of a kReduceCts packet after the header: one attempt of a half RDMA write. */
struct ReduceCtsBody {
  /** The parent's rCxt the write must name (its packets go through it into the FIFO). */
  uint32_t rcxt;
  /** The attempt's transaction id: newer than any the rCxt has seen. */
  uint32_t tid;
  /** Bytes [base, base + len) of the contribution to write. */
  uint64_t base;
  uint64_t len;
};
static_assert(sizeof(ReduceCtsBody) == 24, "reduce clear-to-send layout");

/** Most slots of an eager RDMA ring. */
inline constexpr uint32_t kMaxEagerSlots = 16;
/** Tids one eager write may take (its first and its redrives'): a write's tids are its ring
 *  index times this plus a count below it. */
inline constexpr uint32_t kEagerAttempts = 64;

/**
 * Payload of a kEagerReady packet: where the receiver's ring lies. The sender takes it only
 * when the head and tail flags both name the generation it asked for.
 */
struct EagerReadyBody {
  /** The ring's generation (first field). */
  uint32_t head_flag;
  /** Slots of the ring (0: the receiver refused; the connection keeps what it had). */
  uint32_t slots;
  /** Bytes of one slot, head and tail flags included. */
  uint64_t slot_bytes;
  /** PVO of slot 0 (its registration's remote key is the PVO's key); slot s lies
   *  s * slot_bytes after it. */
  uint64_t pvo;
  /** The receiver's landing rCxt of each slot. */
  uint32_t rcxt[kMaxEagerSlots];
  /** The ring's generation again (last field). */
  uint32_t tail_flag;
  uint32_t reserved;
};
static_assert(sizeof(EagerReadyBody) == 96, "eager ready layout");

/** The head of a message in an eager RDMA slot: the message's bytes follow it. */
struct EagerSlotHead {
  /** The write's ring index (the tail flag must name it too). */
  uint32_t flag;
  uint32_t generation;
  /** The message's sequence number on the connection. */
  uint32_t seq;
  uint32_t len;
  uint32_t context;
  uint32_t tag;
};
static_assert(sizeof(EagerSlotHead) == 24, "eager slot head layout");

/** The tail of a message in an eager RDMA slot, right after its bytes. */
struct EagerSlotTail {
  uint32_t flag;
  uint32_t generation;
};
static_assert(sizeof(EagerSlotTail) == 8, "eager slot tail layout");

/** Bytes of a slot that are not message data. */
inline constexpr uint64_t kEagerFraming = sizeof(EagerSlotHead) + sizeof(EagerSlotTail);

}  // namespace nicsim::ulp
