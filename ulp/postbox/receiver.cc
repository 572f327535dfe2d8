// SPDX-License-Identifier: Apache-2.0
// Receiver: discovery of senders' segments, in-order draining of postbox slots, exact
// reassembly of pieces, and the ACK flags that let senders reclaim slots and blocks.
#include "ulp/postbox/receiver.h"

#include <cstring>
#include <string>
#include <utility>

namespace nicsim::ulp::postbox {

Result<std::unique_ptr<Receiver>> Receiver::Create(Platform* platform, Topology topology,
                                                   ProcessId self, Params params) {
  if (platform == nullptr) return Status::Error("postbox: receiver needs a platform");
  if (Status s = topology.Validate(); !s.ok()) return s;
  if (Status s = topology.Check(self, "receiver"); !s.ok()) return s;
  if (Status s = params.Validate(); !s.ok()) return s;
  return std::unique_ptr<Receiver>(
      new Receiver(platform, std::move(topology), self, std::move(params)));
}

Receiver::Receiver(Platform* platform, Topology topology, ProcessId self, Params params)
    : platform_(platform), topology_(std::move(topology)), self_(self), params_(params) {
  for (uint32_t n = 0; n < topology_.nodes(); ++n) {
    for (uint32_t r = 0; r < topology_.ProcessesOn(n); ++r) {
      Inbound in;
      in.from = ProcessId{n, r};
      inbound_.push_back(std::move(in));
    }
  }
}

Receiver::~Receiver() {
  for (Inbound& in : inbound_) {
    if (in.attached) platform_->Detach(in.data);
  }
  for (auto& [node, m] : ack_by_node_) {
    (void)node;
    platform_->Detach(m);
  }
}

Status Receiver::CheckHeader(const Inbound& in, const Mapping& m) const {
  const auto* h = static_cast<const DataSegmentHeader*>(m.base);
  const DataLayout l = ComputeDataLayout(topology_.ProcessesOn(self_.node), params_);
  auto who = [&in] { return "postbox: segment of " + in.from.ToString() + ": "; };
  if (h->version != kLayoutVersion) {
    return Status::Error(who() + "layout version " + std::to_string(h->version));
  }
  if (h->sender_node != in.from.node || h->sender_rank != in.from.rank ||
      h->receiver_node != self_.node) {
    return Status::Error(who() + "header names another sender or node");
  }
  // Every process of a run must agree on the sizes; a segment made with others is refused.
  if (h->receiver_count != topology_.ProcessesOn(self_.node) ||
      h->slots_per_receiver != params_.slots_per_receiver ||
      h->inline_bytes != params_.inline_bytes || h->piece_bytes != params_.piece_bytes ||
      h->block_count != params_.pool_blocks || h->slot_stride != l.slot_stride ||
      h->slot_area_offset != l.slot_area_offset || h->block_area_offset != l.block_area_offset ||
      h->total_bytes != l.total_bytes) {
    return Status::Error(who() + "sizes differ from this receiver's parameters");
  }
  if (m.bytes < l.total_bytes) {
    return Status::Error(who() + "mapping of " + std::to_string(m.bytes) + " bytes, layout needs " +
                         std::to_string(l.total_bytes));
  }
  return Status();
}

Status Receiver::TryAttach(Inbound& in) {
  Result<Mapping> m = platform_->Attach(DataSegmentName(in.from, self_.node));
  if (!m.ok()) return Status();  // that process has not sent here yet
  // A segment being made may be visible before it is sized or filled in; try again later.
  if (m->bytes < sizeof(DataSegmentHeader) || static_cast<DataSegmentHeader*>(m->base)->magic.load(
                                                  std::memory_order_acquire) != kDataMagic) {
    platform_->Detach(*m);
    return Status();
  }
  if (Status s = CheckHeader(in, *m); !s.ok()) {
    platform_->Detach(*m);
    in.broken = true;
    ++stats_.protocol_errors;
    return s;
  }
  auto ack = ack_by_node_.find(in.from.node);
  if (ack == ack_by_node_.end()) {
    Result<Mapping> a = platform_->Attach(AckSegmentName(in.from.node, self_.node));
    const size_t need = AckSegmentBytes(topology_.ProcessesOn(in.from.node),
                                        topology_.ProcessesOn(self_.node), params_);
    if (!a.ok() || a->bytes < need) {
      // The sender makes the ACK segment before publishing its data segment; without it
      // there is nowhere to acknowledge, so the segment is refused.
      if (a.ok()) platform_->Detach(*a);
      platform_->Detach(*m);
      in.broken = true;
      ++stats_.protocol_errors;
      return Status::Error("postbox: no usable ACK segment for " + in.from.ToString());
    }
    ack = ack_by_node_.emplace(in.from.node, *a).first;
    ++stats_.ack_segments_attached;
  }
  in.data = *m;
  in.layout = ComputeDataLayout(topology_.ProcessesOn(self_.node), params_);
  in.acks = reinterpret_cast<AckSlot*>(
      static_cast<uint8_t*>(ack->second.base) +
      AckOffset(in.from.rank, self_.rank, 0, topology_.ProcessesOn(self_.node), params_));
  in.attached = true;
  ++stats_.segments_attached;
  return Status();
}

Status Receiver::Drain(Inbound& in, size_t* delivered) {
  // Built only on an error: a busy-polling receiver calls Drain millions of times a second.
  auto who = [&in] { return "postbox: from " + in.from.ToString() + ": "; };
  while (true) {
    PostboxSlot* slot =
        SlotAt(in.data.base, in.layout, self_.rank, in.next_slot, params_.slots_per_receiver);
    if (slot->posted_seq.load(std::memory_order_acquire) != in.next_seq) break;
    // The slot is ours until acknowledged. Its fields come from another process: check them
    // all before copying, so a wrong value yields an error, not a wild read.
    const uint32_t piece = slot->piece_bytes;
    const uint64_t total = slot->message_bytes;
    const uint64_t offset = slot->piece_offset;
    const uint8_t* src = nullptr;
    if (slot->kind == static_cast<uint32_t>(SlotKind::kInline)) {
      if (piece > params_.inline_bytes || piece != total || offset != 0 || in.in_message) {
        return Status::Error(who() + "malformed inline slot " + std::to_string(in.next_slot));
      }
      src = InlineData(slot);
      in.in_message = true;
      in.message_id = slot->message_id;
      in.message_bytes = total;
      in.partial.clear();
      ++stats_.inline_received;
    } else if (slot->kind == static_cast<uint32_t>(SlotKind::kPiece)) {
      const bool first = offset == 0;
      if (slot->block_index >= params_.pool_blocks || piece == 0 || piece > params_.piece_bytes ||
          total > params_.max_message_bytes || offset + piece > total || first == in.in_message ||
          (!first && (slot->message_id != in.message_id || offset != in.partial.size()))) {
        return Status::Error(who() + "malformed piece in slot " + std::to_string(in.next_slot));
      }
      if (first) {
        in.in_message = true;
        in.message_id = slot->message_id;
        in.message_bytes = total;
        in.partial.clear();
        in.partial.reserve(total);
      }
      src = BlockAt(in.data.base, in.layout, slot->block_index, params_.piece_bytes);
      ++stats_.pieces_received;
    } else {
      return Status::Error(who() + "unknown slot kind " + std::to_string(slot->kind));
    }
    in.partial.insert(in.partial.end(), src, src + piece);
    stats_.bytes_copied += piece;
    // Copy first, acknowledge after: the release store is what lets the sender reuse the
    // slot and the block, so it must follow the last read of them.
    in.acks[in.next_slot].acked_seq.store(in.next_seq, std::memory_order_release);
    ++stats_.acks_written;
    in.next_seq = NextSeq(in.next_seq);
    in.next_slot = (in.next_slot + 1) % params_.slots_per_receiver;
    if (in.partial.size() == in.message_bytes) {
      Message msg;
      msg.from = in.from;
      msg.sender_handle = in.message_id;
      msg.bytes = std::move(in.partial);
      in.partial = {};
      in.in_message = false;
      stats_.bytes_delivered += msg.bytes.size();
      ++stats_.messages_delivered;
      inbox_.push_back(std::move(msg));
      ++*delivered;
    }
  }
  return Status();
}

Result<size_t> Receiver::Poll() {
  size_t delivered = 0;
  Status first_error;
  // Looking for a segment is a system call (shm_open) per absent sender; a busy-polling
  // process may space those looks out (SetAttachInterval) so they do not dominate its polls.
  const bool look = ++polls_since_look_ >= attach_interval_;
  if (look) polls_since_look_ = 0;
  for (Inbound& in : inbound_) {
    if (in.broken) continue;
    if (!in.attached) {
      if (!look) continue;
      Status s = TryAttach(in);
      if (!s.ok() && first_error.ok()) first_error = s;
      if (!in.attached) continue;
    }
    Status s = Drain(in, &delivered);
    if (!s.ok()) {
      in.broken = true;
      ++stats_.protocol_errors;
      if (first_error.ok()) first_error = s;
    }
  }
  if (!first_error.ok()) return first_error;
  return delivered;
}

std::optional<Message> Receiver::Take() {
  if (inbox_.empty()) return std::nullopt;
  Message m = std::move(inbox_.front());
  inbox_.pop_front();
  return m;
}

}  // namespace nicsim::ulp::postbox
