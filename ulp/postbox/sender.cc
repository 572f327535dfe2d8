// SPDX-License-Identifier: Apache-2.0
// Sender: posting into postbox slots and buffer blocks, quota and pool waits, and the
// reclamation walk over the receiver list when blocks run out.
#include "ulp/postbox/sender.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "base/check.h"

namespace nicsim::ulp::postbox {

namespace {

/** Turns of attach-or-create before an ACK segment is given up on. */
constexpr int kAckAttempts = 64;

}  // namespace

Result<std::unique_ptr<Sender>> Sender::Create(Platform* platform, Topology topology,
                                               ProcessId self, Params params) {
  if (platform == nullptr) return Status::Error("postbox: sender needs a platform");
  if (Status s = topology.Validate(); !s.ok()) return s;
  if (Status s = topology.Check(self, "sender"); !s.ok()) return s;
  if (Status s = params.Validate(); !s.ok()) return s;
  return std::unique_ptr<Sender>(
      new Sender(platform, std::move(topology), self, std::move(params)));
}

Sender::Sender(Platform* platform, Topology topology, ProcessId self, Params params)
    : platform_(platform), topology_(std::move(topology)), self_(self), params_(params) {}

Sender::~Sender() {
  for (auto& [node, c] : connections_) {
    (void)node;
    platform_->Detach(c->data);
    platform_->Detach(c->ack);
  }
}

Status Sender::MakeAckSegment(Connection& c) {
  // The ACK segment of a node pair lives on the sending node and is shared by all of its
  // senders: the first of them to reach the receiving node makes it, the others attach.
  const std::string name = AckSegmentName(self_.node, c.node);
  const size_t bytes =
      AckSegmentBytes(topology_.ProcessesOn(self_.node), topology_.ProcessesOn(c.node), params_);
  // Between another sender's create and its sizing the segment is visible but empty: the
  // creation fails and the attach waits for the size (a while: the creator may be waiting for
  // a CPU). A create between our two calls makes the next turn attach.
  for (int attempt = 0; attempt < kAckAttempts; ++attempt) {
    Result<Mapping> attached = platform_->Attach(name);
    if (attached.ok()) {
      if (attached->bytes < bytes) {
        platform_->Detach(*attached);
        return Status::Error("postbox: ACK segment " + name + " has " +
                             std::to_string(attached->bytes) + " bytes, needs " +
                             std::to_string(bytes));
      }
      c.ack = *attached;
      ++stats_.ack_segments_attached;
      return Status();
    }
    Result<Mapping> created = platform_->Create(name, bytes);
    if (created.ok()) {
      // Zero bytes are already valid flags (seq 0 = nothing acknowledged); constructing the
      // atomics only makes that formal.
      auto* slots = static_cast<AckSlot*>(created->base);
      for (size_t i = 0; i < bytes / sizeof(AckSlot); ++i)
        new (&slots[i].acked_seq) std::atomic<uint32_t>(0);
      c.ack = *created;
      ++stats_.ack_segments_created;
      return Status();
    }
    // Another sender of this node made it between the two calls: attach on the next turn.
  }
  return Status::Error("postbox: could neither create nor attach ACK segment " + name);
}

Result<Sender::Connection*> Sender::Connect(uint32_t node) {
  // Most senders keep sending to one node; remembering it skips a hash lookup per send.
  if (last_connection_ != nullptr && last_connection_->node == node) return last_connection_;
  auto it = connections_.find(node);
  if (it != connections_.end()) {
    last_connection_ = it->second.get();
    return last_connection_;
  }

  // Lazy creation, the reference's rule: nothing exists for a node until the first message
  // for it. The ACK segment comes first so a receiver that finds the data segment published
  // can always find the place to acknowledge into.
  auto c = std::make_unique<Connection>();
  c->node = node;
  if (Status s = MakeAckSegment(*c); !s.ok()) return s;

  const uint32_t receivers = topology_.ProcessesOn(node);
  c->layout = ComputeDataLayout(receivers, params_);
  const std::string name = DataSegmentName(self_, node);
  Result<Mapping> data = platform_->Create(name, c->layout.total_bytes);
  if (!data.ok()) {
    platform_->Detach(c->ack);
    return Status::Error("postbox: cannot create data segment " + name + ": " +
                         data.status().message());
  }
  c->data = *data;
  ++stats_.data_segments_created;

  auto* header = new (c->data.base) DataSegmentHeader{};
  header->version = kLayoutVersion;
  header->sender_node = self_.node;
  header->sender_rank = self_.rank;
  header->receiver_node = node;
  header->receiver_count = receivers;
  header->slots_per_receiver = params_.slots_per_receiver;
  header->inline_bytes = params_.inline_bytes;
  header->piece_bytes = params_.piece_bytes;
  header->block_count = params_.pool_blocks;
  header->slot_stride = static_cast<uint32_t>(c->layout.slot_stride);
  header->slot_area_offset = c->layout.slot_area_offset;
  header->block_area_offset = c->layout.block_area_offset;
  header->total_bytes = c->layout.total_bytes;
  for (uint32_t r = 0; r < receivers; ++r) {
    for (uint32_t s = 0; s < params_.slots_per_receiver; ++s) {
      new (SlotAt(c->data.base, c->layout, r, s, params_.slots_per_receiver)) PostboxSlot{};
    }
  }
  header->magic.store(kDataMagic, std::memory_order_release);

  c->free_blocks.reserve(params_.pool_blocks);
  for (uint32_t b = params_.pool_blocks; b > 0; --b) c->free_blocks.push_back(b - 1);
  c->block_out.assign(params_.pool_blocks, 0);
  c->peers.resize(receivers);
  for (Peer& p : c->peers) {
    p.slots.resize(params_.slots_per_receiver);
    p.acked.resize(params_.slots_per_receiver);
  }
  Connection* raw = c.get();
  connections_.emplace(node, std::move(c));
  last_connection_ = raw;
  return raw;
}

AckSlot* Sender::AckFor(Connection& c, uint32_t rank, uint32_t slot) {
  const size_t offset = AckOffset(self_.rank, rank, slot, topology_.ProcessesOn(c.node), params_);
  return reinterpret_cast<AckSlot*>(static_cast<uint8_t*>(c.ack.base) + offset);
}

Result<SendHandle> Sender::Send(ProcessId to, const void* data, size_t bytes) {
  return Accept(to, data, bytes, /*copy=*/true);
}

Result<SendHandle> Sender::SendInPlace(ProcessId to, const void* data, size_t bytes) {
  return Accept(to, data, bytes, /*copy=*/false);
}

Result<SendHandle> Sender::Accept(ProcessId to, const void* data, size_t bytes, bool copy) {
  if (Status s = topology_.Check(to, "receiver"); !s.ok()) {
    ++stats_.rejected_sends;
    return s;
  }
  if (data == nullptr && bytes > 0) {
    ++stats_.rejected_sends;
    return Status::Error("postbox: send of " + std::to_string(bytes) + " bytes to " +
                         to.ToString() + " from a null buffer");
  }
  if (bytes > params_.max_message_bytes) {
    ++stats_.rejected_sends;
    return Status::Error("postbox: message of " + std::to_string(bytes) + " bytes to " +
                         to.ToString() +
                         " exceeds max_message_bytes=" + std::to_string(params_.max_message_bytes));
  }
  Result<Connection*> c = Connect(to.node);
  if (!c.ok()) {
    ++stats_.rejected_sends;
    return c.status();
  }
  Peer& peer = (*c)->peers[to.rank];
  if (peer.broken) {
    ++stats_.rejected_sends;
    return Status::Error(
        "postbox: " + to.ToString() +
        " broke the protocol with its acknowledgements: nothing more is sent to it");
  }
  if (peer.queue.empty() && bytes <= params_.inline_bytes) {
    // The common small send: nothing ahead of it, so it goes straight into a free slot
    // without a trip through the queue (same postings, in the same order, as Advance's).
    if (PostboxSlot* slot = NextSlot(**c, to.rank)) {
      const SendHandle handle = next_handle_++;
      ++stats_.messages_accepted;
      PutInline(slot, static_cast<const uint8_t*>(data), bytes);
      Publish(**c, to.rank, slot, -1, bytes, bytes, 0, handle);
      ++stats_.messages_posted;
      return handle;
    }
  }
  const SendHandle handle = next_handle_++;
  PendingSend m;
  m.handle = handle;
  m.size = bytes;
  if (bytes > 0) {
    const auto* p = static_cast<const uint8_t*>(data);
    if (copy) {
      m.bytes.assign(p, p + bytes);
      m.data = m.bytes.data();  // a vector's buffer stays put when the vector is moved
    } else {
      m.data = p;
    }
  }
  peer.queue.push_back(std::move(m));
  ++stats_.messages_accepted;
  Advance(**c, to.rank);
  // Only a send that could not be posted at once is remembered as pending: most small sends
  // go out right here, and a set insertion and erasure each would be most of their cost.
  if (!peer.queue.empty() && peer.queue.back().handle == handle) pending_handles_.insert(handle);
  return handle;
}

uint32_t Sender::Reclaim(Connection& c, uint32_t rank) {
  // Receivers consume their postbox in order and acknowledge each slot, so walking from the
  // oldest posting and stopping at the first one not acknowledged finds all there is.
  Peer& p = c.peers[rank];
  uint32_t freed = 0;
  while (p.outstanding > 0 && !p.broken) {
    SlotRecord& rec = p.slots[p.oldest_slot];
    NICSIM_CHECK(rec.in_use, "postbox: outstanding slot %u not in use", p.oldest_slot);
    const uint32_t flag = AckFor(c, rank, p.oldest_slot)->acked_seq.load(std::memory_order_acquire);
    if (flag == p.acked[p.oldest_slot]) break;  // not acknowledged yet
    if (flag != rec.seq) {
      // The shared flag is not trusted: a value that is neither is a broken receiver. Its
      // slots and blocks stay lent (it may still read them); it gets nothing more.
      p.broken = true;
      p.queue.clear();
      ++stats_.ack_protocol_errors;
      if (protocol_error_.ok()) {
        protocol_error_ =
            Status::Error("postbox: " + ProcessId{c.node, rank}.ToString() + " acknowledged slot " +
                          std::to_string(p.oldest_slot) + " with sequence number " +
                          std::to_string(flag) + ", expected " + std::to_string(rec.seq) + " or " +
                          std::to_string(p.acked[p.oldest_slot]));
      }
      break;
    }
    p.acked[p.oldest_slot] = rec.seq;
    if (rec.block >= 0) {
      const auto b = static_cast<uint32_t>(rec.block);
      // Every block comes back exactly once: only a block lent out can be returned.
      NICSIM_CHECK(c.block_out[b] == 1, "postbox: block %u returned twice", b);
      c.block_out[b] = 0;
      c.free_blocks.push_back(b);
      ++stats_.blocks_returned;
      --p.blocks_held;
      ++freed;
    }
    rec = SlotRecord{};
    ++stats_.slots_reclaimed;
    p.oldest_slot = (p.oldest_slot + 1) % params_.slots_per_receiver;
    --p.outstanding;
  }
  if (p.on_list && p.blocks_held == 0) {
    // A receiver holding no blocks has nothing to give back: drop it from the list so the
    // search for memory only visits receivers that can yield some.
    c.receiver_list.erase(std::find(c.receiver_list.begin(), c.receiver_list.end(), rank));
    p.on_list = false;
    ++stats_.receivers_delisted;
  }
  return freed;
}

int64_t Sender::TakeBlock(Connection& c, uint32_t rank) {
  Peer& p = c.peers[rank];
  // Quota: one receiver may hold only part of the pool; over it, the send waits for that
  // receiver's own acknowledgements rather than starving the others (receiver_quota_blocks =
  // 0: the pool's share of each process the sender may send to on that node).
  const uint32_t potential = topology_.ProcessesOn(c.node) - (c.node == self_.node ? 1 : 0);
  const uint32_t quota = params_.QuotaFor(potential);
  if (p.blocks_held >= quota) {
    Reclaim(c, rank);
    if (p.blocks_held >= quota) {
      if (!p.waiting_quota) ++stats_.quota_waits;
      p.waiting_quota = true;
      return -1;
    }
  }
  p.waiting_quota = false;
  if (c.free_blocks.empty()) {
    // The reference's order: first what this receiver returned, then the receiver list from
    // its head (oldest first), stopping as soon as a block is free.
    Reclaim(c, rank);
    if (c.free_blocks.empty()) {
      const std::deque<uint32_t> list = c.receiver_list;  // Reclaim may shorten it
      for (uint32_t other : list) {
        if (other == rank) continue;
        stats_.blocks_reclaimed_from_others += Reclaim(c, other);
        if (!c.free_blocks.empty()) break;
      }
    }
    if (c.free_blocks.empty()) {
      if (!p.waiting_pool) ++stats_.pool_waits;
      p.waiting_pool = true;
      return -1;
    }
  }
  p.waiting_pool = false;
  const uint32_t b = c.free_blocks.back();
  c.free_blocks.pop_back();
  NICSIM_CHECK(c.block_out[b] == 0, "postbox: free block %u already lent", b);
  c.block_out[b] = 1;
  ++stats_.blocks_taken;
  if (!p.on_list) {
    c.receiver_list.push_back(rank);
    p.on_list = true;
  }
  ++p.blocks_held;
  return b;
}

PostboxSlot* Sender::NextSlot(Connection& c, uint32_t rank) {
  Peer& p = c.peers[rank];
  if (p.slots[p.next_slot].in_use) {
    Reclaim(c, rank);
    if (p.slots[p.next_slot].in_use) {
      if (!p.waiting_slot) ++stats_.slot_waits;
      p.waiting_slot = true;
      return nullptr;
    }
  }
  p.waiting_slot = false;
  return SlotAt(c.data.base, c.layout, rank, p.next_slot, params_.slots_per_receiver);
}

void Sender::PutInline(PostboxSlot* slot, const uint8_t* data, size_t size) {
  // Small enough for the postbox itself: no block, one copy.
  if (size > 0) std::memcpy(InlineData(slot), data, size);
  slot->kind = static_cast<uint32_t>(SlotKind::kInline);
  slot->block_index = 0;
  ++stats_.inline_messages;
}

void Sender::Publish(Connection& c, uint32_t rank, PostboxSlot* slot, int64_t block, size_t piece,
                     uint64_t message_bytes, uint64_t offset, SendHandle handle) {
  Peer& p = c.peers[rank];
  SlotRecord& rec = p.slots[p.next_slot];
  slot->piece_bytes = static_cast<uint32_t>(piece);
  slot->message_bytes = message_bytes;
  slot->piece_offset = offset;
  slot->message_id = handle;
  // Publishing the sequence number hands the slot (and its block) to the receiver; the
  // release order makes the bytes above visible first.
  slot->posted_seq.store(p.next_seq, std::memory_order_release);
  rec.in_use = true;
  rec.seq = p.next_seq;
  rec.block = block;
  p.next_seq = NextSeq(p.next_seq);
  p.next_slot = (p.next_slot + 1) % params_.slots_per_receiver;
  ++p.outstanding;
  stats_.bytes_posted += piece;
}

size_t Sender::Advance(Connection& c, uint32_t rank) {
  Peer& p = c.peers[rank];
  size_t pieces = 0;
  while (!p.queue.empty()) {
    PendingSend& m = p.queue.front();
    PostboxSlot* slot = NextSlot(c, rank);
    if (slot == nullptr) break;
    const size_t size = m.size;
    size_t piece = 0;
    int64_t block = -1;
    if (size <= params_.inline_bytes) {
      piece = size;
      PutInline(slot, m.data, size);
    } else {
      block = TakeBlock(c, rank);
      if (block < 0) break;
      // One piece of at most the cyclic transaction size per block and slot.
      piece = std::min<size_t>(size - m.posted, params_.piece_bytes);
      std::memcpy(BlockAt(c.data.base, c.layout, static_cast<uint32_t>(block), params_.piece_bytes),
                  m.data + m.posted, piece);
      slot->kind = static_cast<uint32_t>(SlotKind::kPiece);
      slot->block_index = static_cast<uint32_t>(block);
      ++stats_.pieces_posted;
    }
    Publish(c, rank, slot, block, piece, size, m.posted, m.handle);
    ++pieces;
    m.posted += piece;
    if (m.posted == size) {
      if (!pending_handles_.empty()) pending_handles_.erase(m.handle);
      ++stats_.messages_posted;
      p.queue.pop_front();
    }
  }
  return pieces;
}

Result<size_t> Sender::Progress() {
  size_t pieces = 0;
  for (auto& [node, c] : connections_) {
    (void)node;
    for (uint32_t r = 0; r < c->peers.size(); ++r) {
      if (c->peers[r].outstanding > 0) Reclaim(*c, r);  // nothing for a broken receiver
    }
    for (uint32_t r = 0; r < c->peers.size(); ++r) {
      if (!c->peers[r].queue.empty()) pieces += Advance(*c, r);
    }
  }
  if (!protocol_error_.ok()) {
    Status error = protocol_error_;
    protocol_error_ = Status();
    return error;
  }
  return pieces;
}

SendState Sender::State(SendHandle handle) const {
  if (handle == 0 || handle >= next_handle_) return SendState::kUnknown;
  return pending_handles_.count(handle) > 0 ? SendState::kPending : SendState::kPosted;
}

bool Sender::Idle() const {
  for (const auto& [node, c] : connections_) {
    (void)node;
    for (const Peer& p : c->peers) {
      // A broken receiver's slots never come back; nothing more happens there.
      if (!p.broken && (!p.queue.empty() || p.outstanding > 0)) return false;
    }
  }
  return true;
}

uint32_t Sender::FreeBlocks(uint32_t node) const {
  auto it = connections_.find(node);
  if (it == connections_.end()) return params_.pool_blocks;
  return static_cast<uint32_t>(it->second->free_blocks.size());
}

uint32_t Sender::BlocksHeldBy(ProcessId to) const {
  if (!topology_.Check(to, "receiver").ok()) return 0;
  auto it = connections_.find(to.node);
  if (it == connections_.end()) return 0;
  return it->second->peers[to.rank].blocks_held;
}

std::vector<uint32_t> Sender::ReceiverList(uint32_t node) const {
  auto it = connections_.find(node);
  if (it == connections_.end()) return {};
  return {it->second->receiver_list.begin(), it->second->receiver_list.end()};
}

}  // namespace nicsim::ulp::postbox
