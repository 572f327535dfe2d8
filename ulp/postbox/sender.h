// SPDX-License-Identifier: Apache-2.0
// The sending side of postbox messaging: lazily made segments, postbox slots and pooled
// buffer blocks, per-receiver quotas, and reclamation of memory the receivers acknowledged.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "ulp/postbox/config.h"
#include "ulp/postbox/platform.h"
#include "ulp/postbox/segment_layout.h"
#include "ulp/postbox/stats.h"

namespace nicsim::ulp::postbox {

/** Names one accepted send. */
using SendHandle = uint64_t;

/** Where an accepted send stands. */
enum class SendState {
  /** Not a handle this sender gave out. */
  kUnknown,
  /** Accepted; some or all bytes wait for a slot, a block or quota. */
  kPending,
  /** Every byte is in shared memory; the caller's data is no longer needed (it never was). */
  kPosted,
};

/**
 * One sending process. Send() copies the message and posts what it can at once; Progress()
 * reclaims acknowledged memory and posts what waited. No threads and no blocking: a send that
 * cannot proceed (quota, empty pool, full postbox) stays queued, in order per receiver, and is
 * never dropped. Connections are simplex: this object only sends.
 */
class Sender {
 public:
  /** A sender for `self`; checks the topology, the id and the parameters. */
  static Result<std::unique_ptr<Sender>> Create(Platform* platform, Topology topology,
                                                ProcessId self, Params params);
  /** Unmaps its segments; they live on (a receiver may still be reading them). */
  ~Sender();
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  /**
   * Accepts `bytes` bytes at `data` for `to` and posts as much as it can now. The first send
   * to a node creates this sender's data segment there (and the node pair's ACK segment if
   * no one has). Errors: unknown receiver, null data with a length, a message over
   * max_message_bytes, a segment the platform could not make, or a receiver whose
   * acknowledgements broke the protocol.
   */
  Result<SendHandle> Send(ProcessId to, const void* data, size_t bytes);

  /**
   * Send without the up-front copy: the bytes go from `data` straight into shared memory, so
   * the caller must keep them alive and unchanged until State(handle) is kPosted. For large
   * messages this saves one full copy (the engine's only one on the sending side besides the
   * copy into the blocks). Same checks and errors as Send.
   */
  Result<SendHandle> SendInPlace(ProcessId to, const void* data, size_t bytes);

  /**
   * Reclaims what receivers acknowledged and posts waiting sends. Returns pieces posted, or
   * the error of a receiver found to have written an ACK flag that breaks the protocol (a
   * sequence number neither the slot's posting nor the one before it); that receiver gets
   * nothing more from this sender, the others carry on.
   */
  Result<size_t> Progress();

  /** Where send `handle` stands. */
  SendState State(SendHandle handle) const;

  /** True when nothing waits to be posted and every slot and block has come back. */
  bool Idle() const;

  /** Free blocks in the pool of this sender's segment on `node` (pool_blocks before any). */
  uint32_t FreeBlocks(uint32_t node) const;

  /** Blocks that receiver `to` holds unacknowledged. */
  uint32_t BlocksHeldBy(ProcessId to) const;

  /** Receivers (ranks on `node`) now on that segment's receiver list, oldest first. */
  std::vector<uint32_t> ReceiverList(uint32_t node) const;

  /** Counters. */
  const SenderStats& stats() const { return stats_; }

 private:
  /** A message waiting, or partly posted. */
  struct PendingSend {
    SendHandle handle = 0;
    std::vector<uint8_t> bytes;     // the copy Send makes; empty for SendInPlace
    const uint8_t* data = nullptr;  // the message: bytes.data() or the caller's buffer
    size_t size = 0;
    size_t posted = 0;  // bytes already in shared memory
  };
  /** What this sender remembers of one slot it posted (the shared slot is not trusted). */
  struct SlotRecord {
    bool in_use = false;
    uint32_t seq = 0;
    int64_t block = -1;  // block the slot points at, -1 for inline
  };
  /** Per receiver on one node. */
  struct Peer {
    uint32_t next_seq = 1;     // what the next posting carries (never 0)
    uint32_t next_slot = 0;    // where it goes
    uint32_t oldest_slot = 0;  // oldest posting not yet reclaimed
    uint32_t outstanding = 0;  // postings not yet reclaimed
    std::vector<SlotRecord> slots;
    /** Per slot, the sequence number last acknowledged in it (0: none yet): what its ACK
     *  flag holds until the receiver acknowledges the posting there now. */
    std::vector<uint32_t> acked;
    /** Its ACK flags broke the protocol: nothing more is posted to it. */
    bool broken = false;
    uint32_t blocks_held = 0;
    bool on_list = false;
    // Each wait is counted once per episode, not once per Progress call that finds it.
    bool waiting_slot = false;
    bool waiting_quota = false;
    bool waiting_pool = false;
    std::deque<PendingSend> queue;
  };
  /** This sender's connection to one node: its data segment there and the ACK segment. */
  struct Connection {
    uint32_t node = 0;
    Mapping data;
    Mapping ack;
    DataLayout layout;
    std::vector<uint32_t> free_blocks;
    std::vector<uint8_t> block_out;      // 1 while a block is lent to a receiver
    std::deque<uint32_t> receiver_list;  // ranks, in order of first use of a block
    std::vector<Peer> peers;
  };

  Sender(Platform* platform, Topology topology, ProcessId self, Params params);
  Result<SendHandle> Accept(ProcessId to, const void* data, size_t bytes, bool copy);
  Result<Connection*> Connect(uint32_t node);
  Status MakeAckSegment(Connection& c);
  /** `rank`'s next postbox slot if it is free (reclaiming first), else null (a slot wait). */
  PostboxSlot* NextSlot(Connection& c, uint32_t rank);
  /** Copies a message of at most inline_bytes into `slot` itself. */
  void PutInline(PostboxSlot* slot, const uint8_t* data, size_t size);
  /** Fills in the slot from NextSlot and hands it to the receiver (and records it). */
  void Publish(Connection& c, uint32_t rank, PostboxSlot* slot, int64_t block, size_t piece,
               uint64_t message_bytes, uint64_t offset, SendHandle handle);
  /** Posts what it can of `rank`'s queue; returns pieces posted. */
  size_t Advance(Connection& c, uint32_t rank);
  /**
   * Reclaims `rank`'s acknowledged slots in posting order; returns blocks freed. A flag that
   * breaks the protocol marks the receiver broken and leaves its error for Progress.
   */
  uint32_t Reclaim(Connection& c, uint32_t rank);
  /** Takes a block for `rank`: quota first, then the pool, reclaiming as the reference does. */
  int64_t TakeBlock(Connection& c, uint32_t rank);
  AckSlot* AckFor(Connection& c, uint32_t rank, uint32_t slot);

  Platform* platform_;
  Topology topology_;
  ProcessId self_;
  Params params_;
  std::unordered_map<uint32_t, std::unique_ptr<Connection>> connections_;
  Connection* last_connection_ = nullptr;           // the one the last send used (owned above)
  std::unordered_set<SendHandle> pending_handles_;  // accepted, not yet fully posted
  SendHandle next_handle_ = 1;
  /** The first protocol error Reclaim found since Progress last reported one. */
  Status protocol_error_;
  SenderStats stats_;
};

}  // namespace nicsim::ulp::postbox
