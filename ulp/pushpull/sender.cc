// SPDX-License-Identifier: Apache-2.0
// Sender: pushes in order per receiver (BTP1, then BTP2 without waiting for the ack), the
// source translation done while the first push is in flight, and pull rounds served.
#include "ulp/pushpull/sender.h"

#include <cstring>
#include <string>
#include <utility>

namespace nicsim::ulp::pushpull {

Result<std::unique_ptr<Sender>> Sender::Create(Platform* platform, uint32_t ranks, uint32_t self,
                                               Params params) {
  if (platform == nullptr) return Status::Error("pushpull: sender needs a platform");
  if (ranks == 0) return Status::Error("pushpull: ranks must be at least 1");
  if (self >= ranks) {
    return Status::Error("pushpull: sender rank " + std::to_string(self) + " of " +
                         std::to_string(ranks) + " ranks");
  }
  if (Status s = params.Validate(); !s.ok()) return s;
  return std::unique_ptr<Sender>(new Sender(platform, ranks, self, params));
}

Sender::Sender(Platform* platform, uint32_t ranks, uint32_t self, Params params)
    : platform_(platform),
      ranks_(ranks),
      self_(self),
      params_(params),
      layout_(ComputeChannelLayout(params)),
      outbound_(ranks) {
  for (uint32_t r = 0; r < ranks; ++r) outbound_[r].to = r;
}

Sender::~Sender() {
  for (Outbound& out : outbound_) {
    if (out.attached) platform_->Detach(out.mapping);
  }
}

Result<SendHandle> Sender::Send(uint32_t to, uint32_t tag, const void* data, size_t bytes) {
  if (to >= ranks_ || to == self_) {
    return Status::Error("pushpull: send from " + std::to_string(self_) + " to rank " +
                         std::to_string(to) + ": not another rank of " + std::to_string(ranks_));
  }
  if (data == nullptr && bytes > 0) return Status::Error("pushpull: send of null data");
  if (bytes > params_.max_message_bytes) {
    return Status::Error("pushpull: message of " + std::to_string(bytes) +
                         " bytes over max_message_bytes " +
                         std::to_string(params_.max_message_bytes));
  }
  Outbound& out = outbound_[to];
  OutMessage m;
  m.handle = next_handle_++;
  m.tag = tag;
  m.data = static_cast<const uint8_t*>(data);
  m.size = bytes;
  m.push_bytes = params_.PushedBytesOf(bytes);
  out.messages.emplace(out.next_seq++, std::move(m));
  pending_.insert(next_handle_ - 1);
  ++stats_.messages_accepted;
  // Push at once: the first push is what starts the receiver's side of the protocol.
  if (!out.attached) {
    if (Status s = TryAttach(out); !s.ok()) return s;
  }
  if (out.attached) Push(out);
  return next_handle_ - 1;
}

Status Sender::TryAttach(Outbound& out) {
  Result<Mapping> m = platform_->Attach(ChannelName(self_, out.to));
  if (!m.ok()) return Status();  // the receiver has not made it yet; try on the next call
  const auto* h = static_cast<const ChannelHeader*>(m->base);
  if (m->bytes < sizeof(ChannelHeader) ||
      h->magic.load(std::memory_order_acquire) != kChannelMagic) {
    platform_->Detach(*m);
    return Status();
  }
  // Both ends must agree on every size, or the slots and the request would be misread.
  if (h->version != kChannelVersion || h->sender != self_ || h->receiver != out.to ||
      h->mode != static_cast<uint32_t>(params_.mode) || h->slot_bytes != params_.SlotBytes() ||
      h->slots != params_.pushed_slots || h->max_extents != layout_.max_extents ||
      h->pull_round_bytes != params_.pull_round_bytes || h->slot_offset != layout_.slot_offset ||
      h->total_bytes != layout_.total_bytes || m->bytes < layout_.total_bytes) {
    platform_->Detach(*m);
    ++stats_.protocol_errors;
    return Status::Error("pushpull: channel " + ChannelName(self_, out.to) +
                         " differs from this sender's parameters");
  }
  out.mapping = *m;
  out.view.base = static_cast<uint8_t*>(m->base);
  out.view.layout = layout_;
  out.receiver_token = h->receiver_token;
  out.attached = true;
  return Status();
}

size_t Sender::Push(Outbound& out) {
  size_t posted = 0;
  ChannelControl* control = out.view.control();
  while (true) {
    auto it = out.messages.find(out.push_cursor);
    if (it == out.messages.end()) break;
    OutMessage& m = it->second;
    if (m.pushes > 0 && m.pushed == m.push_bytes) {
      ++out.push_cursor;  // pushed in full earlier; waits for its pulls
      continue;
    }
    if (out.next_push_index - control->consumed.load(std::memory_order_acquire) >=
        params_.pushed_slots) {
      if (!out.waiting) ++stats_.push_waits;
      out.waiting = true;
      break;
    }
    out.waiting = false;
    // The chunk this slot carries: BTP1 then BTP2 in push-pull, slot-sized pieces in
    // push-all, nothing but the announcement in push-zero.
    uint64_t len = 0;
    switch (params_.mode) {
      case Mode::kPushPull:
        len = std::min<uint64_t>(m.push_bytes - m.pushed,
                                 m.pushes == 0 ? params_.btp1_bytes : params_.btp2_bytes);
        break;
      case Mode::kPushAll:
        len = std::min<uint64_t>(m.push_bytes - m.pushed, params_.push_all_chunk_bytes);
        break;
      case Mode::kPushZero:
        len = 0;
        break;
    }
    PushSlot* slot = out.view.slot(out.next_push_index, params_.pushed_slots);
    slot->message_seq = it->first;
    slot->message_bytes = m.size;
    slot->push_bytes = m.push_bytes;
    slot->offset = m.pushed;
    slot->bytes = static_cast<uint32_t>(len);
    slot->tag = m.tag;
    if (len > 0) std::memcpy(ChannelView::SlotData(slot), m.data + m.pushed, len);
    slot->posted.store(out.next_push_index + 1, std::memory_order_release);
    ++out.next_push_index;
    ++posted;
    stats_.bytes_pushed += len;
    if (len == 0) ++stats_.header_only_pushes;
    if (m.pushes == 0) {
      ++stats_.first_pushes;
    } else if (params_.mode == Mode::kPushPull) {
      ++stats_.second_pushes;
    } else {
      ++stats_.push_all_chunks;
    }
    m.pushed += len;
    ++m.pushes;
    if (m.pushes == 1 && m.size > m.push_bytes) {
      // Address translation of the part to be pulled, now that the first push is on its way
      // and before the receiver's ack can be served: its cost hides behind the round trip.
      const uint64_t gen = control->request_gen.load(std::memory_order_acquire);
      const bool ack_waiting =
          gen != out.served_gen && out.view.request()->message_seq == it->first;
      m.source = ZeroBuffer(m.data, m.size);
      ++stats_.source_translations;
      if (!ack_waiting) ++stats_.translations_masked;
    }
    if (m.pushed == m.push_bytes) {
      ++out.push_cursor;
      // Nothing to pull (or the pulls are already over): the message is finished.
      if (m.size == m.push_bytes || m.pull_done) Finish(out, it);
    }
  }
  return posted;
}

Result<size_t> Sender::Serve(Outbound& out) {
  ChannelControl* control = out.view.control();
  const uint64_t gen = control->request_gen.load(std::memory_order_acquire);
  if (gen == out.served_gen) return size_t{0};
  const PullRequest req = *out.view.request();
  const Extent* remote = out.view.request_extents();
  auto who = [&] {
    return "pushpull: pull request from " + std::to_string(out.to) + " for message " +
           std::to_string(req.message_seq) + ": ";
  };
  auto it = out.messages.find(req.message_seq);
  if (gen != out.served_gen + 1 || it == out.messages.end() || it->second.pushes == 0) {
    ++stats_.protocol_errors;
    return Status::Error(who() + "no such message waiting (generation " + std::to_string(gen) +
                         ")");
  }
  OutMessage& m = it->second;
  uint64_t remote_bytes = 0;
  if (req.extent_count <= layout_.max_extents) {
    for (uint32_t i = 0; i < req.extent_count; ++i) remote_bytes += remote[i].len;
  }
  if (req.offset < m.push_bytes || req.offset + req.bytes > m.size ||
      req.extent_count > layout_.max_extents || remote_bytes != req.bytes ||
      req.bytes > params_.pull_round_bytes) {
    ++stats_.protocol_errors;
    return Status::Error(who() + "range or zero buffer out of bounds");
  }
  if (!m.acked) {
    m.acked = true;
    ++stats_.acks_received;
    if (m.pushes >= 2) ++stats_.acks_overlapped_by_second_push;
  }
  uint64_t staged = 0;
  if (req.bytes > 0) {
    bool done = false;
    if (out.cross_copy_ok) {
      local_scratch_.clear();
      m.source.Slice(req.offset, req.bytes, &local_scratch_);
      const CrossCopy r = platform_->CopyTo(out.receiver_token, local_scratch_.data(),
                                            local_scratch_.size(), remote, req.extent_count);
      if (r == CrossCopy::kDone) {
        done = true;
        ++stats_.zero_copy_rounds;
      } else if (r == CrossCopy::kUnsupported) {
        out.cross_copy_ok = false;  // it will not start working later: stop asking
      }
    }
    if (!done) {
      // Two copies instead of one: into the staging area here, out of it at the receiver.
      std::memcpy(out.view.staging(), m.data + req.offset, req.bytes);
      staged = 1;
      ++stats_.zero_copy_fallbacks;
      stats_.bytes_staged += req.bytes;
    }
  }
  stats_.bytes_pulled += req.bytes;
  ++stats_.pull_rounds_served;
  control->reply_staged = staged;
  control->reply_gen.store(gen, std::memory_order_release);
  out.served_gen = gen;
  if (req.last != 0) {
    m.pull_done = true;  // the receiver wants nothing more of it
    if (m.pushed == m.push_bytes) Finish(out, it);
  }
  return size_t{1};
}

void Sender::Finish(Outbound& out, std::map<uint64_t, OutMessage>::iterator it) {
  pending_.erase(it->second.handle);
  out.messages.erase(it);
  ++stats_.messages_completed;
}

Result<size_t> Sender::Progress() {
  size_t work = 0;
  Status first_error;
  for (Outbound& out : outbound_) {
    if (out.messages.empty()) continue;
    if (!out.attached) {
      if (Status s = TryAttach(out); !s.ok() && first_error.ok()) first_error = s;
      if (!out.attached) continue;
    }
    Result<size_t> served = Serve(out);
    if (!served.ok()) {
      if (first_error.ok()) first_error = served.status();
    } else {
      work += *served;
    }
    work += Push(out);
  }
  if (!first_error.ok()) return first_error;
  return work;
}

}  // namespace nicsim::ulp::pushpull
