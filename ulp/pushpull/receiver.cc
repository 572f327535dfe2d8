// SPDX-License-Identifier: Apache-2.0
// Receiver: channels made up front, pushes taken out in order and matched by (source, tag),
// the acknowledgement that doubles as the first pull request, and the pull rounds.
#include "ulp/pushpull/receiver.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace nicsim::ulp::pushpull {

Result<std::unique_ptr<Receiver>> Receiver::Create(Platform* platform, uint32_t ranks,
                                                   uint32_t self, Params params) {
  if (platform == nullptr) return Status::Error("pushpull: receiver needs a platform");
  if (ranks == 0) return Status::Error("pushpull: ranks must be at least 1");
  if (self >= ranks) {
    return Status::Error("pushpull: receiver rank " + std::to_string(self) + " of " +
                         std::to_string(ranks) + " ranks");
  }
  if (Status s = params.Validate(); !s.ok()) return s;
  std::unique_ptr<Receiver> r(new Receiver(platform, ranks, self, params));
  if (Status s = r->MakeChannels(); !s.ok()) return s;
  return r;
}

Receiver::Receiver(Platform* platform, uint32_t ranks, uint32_t self, Params params)
    : platform_(platform),
      ranks_(ranks),
      self_(self),
      params_(params),
      layout_(ComputeChannelLayout(params)),
      inbound_(ranks) {
  for (uint32_t s = 0; s < ranks; ++s) inbound_[s].from = s;
}

Receiver::~Receiver() {
  for (Inbound& in : inbound_) {
    if (in.view.base != nullptr) platform_->Detach(in.mapping);
  }
}

Status Receiver::MakeChannels() {
  for (Inbound& in : inbound_) {
    if (in.from == self_) continue;
    Result<Mapping> m = platform_->Create(ChannelName(in.from, self_), layout_.total_bytes);
    if (!m.ok()) return m.status();
    in.mapping = *m;
    in.view.base = static_cast<uint8_t*>(m->base);
    in.view.layout = layout_;
    ChannelHeader* h = in.view.header();
    h->version = kChannelVersion;
    h->sender = in.from;
    h->receiver = self_;
    h->mode = static_cast<uint32_t>(params_.mode);
    h->slot_bytes = params_.SlotBytes();
    h->slots = params_.pushed_slots;
    h->max_extents = layout_.max_extents;
    h->receiver_token = platform_->ProcessToken();
    h->pull_round_bytes = params_.pull_round_bytes;
    h->request_offset = layout_.request_offset;
    h->staging_offset = layout_.staging_offset;
    h->slot_offset = layout_.slot_offset;
    h->slot_stride = layout_.slot_stride;
    h->total_bytes = layout_.total_bytes;
    h->magic.store(kChannelMagic, std::memory_order_release);
  }
  return Status();
}

Result<ReceiveHandle> Receiver::PostReceive(uint32_t source, uint32_t tag, void* buffer,
                                            size_t capacity) {
  if (source >= ranks_ || source == self_) {
    return Status::Error("pushpull: receive at " + std::to_string(self_) + " from rank " +
                         std::to_string(source) + ": not another rank of " +
                         std::to_string(ranks_));
  }
  if (buffer == nullptr && capacity > 0) return Status::Error("pushpull: receive into null");
  const ReceiveHandle h = next_handle_++;
  Posted& p = receives_[h];
  p.source = source;
  p.tag = tag;
  p.buffer = static_cast<uint8_t*>(buffer);
  p.capacity = capacity;
  // The destination's translation, done now: for an early receiver this is before the push
  // arrives, so the acknowledgement can carry the zero buffer without waiting for it.
  p.dest = ZeroBuffer(buffer, capacity);
  ++stats_.dest_translations;
  ++stats_.receives_posted;
  auto it = std::find_if(unexpected_.begin(), unexpected_.end(),
                         [&](const Incoming* m) { return m->source == source && m->tag == tag; });
  if (it == unexpected_.end()) {
    ++stats_.dest_translations_masked;
    unmatched_.push_back(h);
    return h;
  }
  // Late receiver: the first push is already here, set aside; the ack goes out now.
  Incoming* msg = *it;
  unexpected_.erase(it);
  ++stats_.late_matches;
  Match(msg, h, p);
  size_t completed = 0;
  Pump(inbound_[source], &completed);
  MaybeComplete(msg, &completed);
  return h;
}

uint64_t Receiver::WantedPull(const Incoming* msg) const {
  const Posted& p = receives_.at(msg->receive);
  const uint64_t end = std::min(msg->size, p.capacity);
  return end > msg->push_bytes ? end - msg->push_bytes : 0;
}

void Receiver::Match(Incoming* msg, ReceiveHandle h, Posted& p) {
  msg->receive = h;
  p.message = msg;
  if (!msg->aside.empty()) {
    const uint64_t n = std::min<uint64_t>(msg->aside.size(), p.capacity);
    if (n > 0) std::memcpy(p.buffer, msg->aside.data(), n);
    msg->aside.clear();
    msg->aside.shrink_to_fit();
  }
  if (msg->size > msg->push_bytes) {
    inbound_[msg->source].pulls.push_back(msg);
  } else {
    msg->pull_over = true;
  }
}

void Receiver::CopyIn(Incoming* msg, uint64_t offset, const uint8_t* src, uint64_t len) {
  if (msg->receive == 0) {
    msg->aside.insert(msg->aside.end(), src, src + len);
    stats_.pushed_bytes_buffered += len;
    return;
  }
  const Posted& p = receives_.at(msg->receive);
  if (offset >= p.capacity) return;
  const uint64_t n = std::min(len, p.capacity - offset);
  std::memcpy(p.buffer + offset, src, n);
  stats_.pushed_bytes_direct += n;
}

Status Receiver::Drain(Inbound& in, size_t* completed) {
  auto who = [&] { return "pushpull: push from " + std::to_string(in.from) + ": "; };
  ChannelControl* control = in.view.control();
  while (true) {
    PushSlot* slot = in.view.slot(in.next_index, params_.pushed_slots);
    if (slot->posted.load(std::memory_order_acquire) != in.next_index + 1) break;
    // The slot comes from another process: check every field before using it.
    const uint64_t seq = slot->message_seq;
    const uint64_t size = slot->message_bytes;
    const uint64_t push_bytes = slot->push_bytes;
    const uint64_t offset = slot->offset;
    const uint32_t bytes = slot->bytes;
    if (bytes > params_.SlotBytes() || size > params_.max_message_bytes || push_bytes > size ||
        offset + bytes > push_bytes) {
      return Status::Error(who() + "malformed slot " + std::to_string(in.next_index));
    }
    Incoming* msg = in.current;
    const bool first = msg == nullptr;
    if (first) {
      if (offset != 0 || seq != in.next_seq) {
        return Status::Error(who() + "message " + std::to_string(seq) + " out of order");
      }
      msg = &incoming_[{in.from, seq}];
      msg->source = in.from;
      msg->seq = seq;
      msg->tag = slot->tag;
      msg->size = size;
      msg->push_bytes = push_bytes;
      in.current = msg;
      auto matching = [&] {
        return std::find_if(unmatched_.begin(), unmatched_.end(), [&](ReceiveHandle h) {
          const Posted& p = receives_.at(h);
          return p.source == in.from && p.tag == msg->tag;
        });
      };
      auto it = matching();
      if (it == unmatched_.end() && on_arrival_) {
        // The caller learns the size now and may post a buffer for it before the bytes move.
        const uint64_t posted_before = stats_.receives_posted;
        on_arrival_(in.from, msg->tag, size);
        if (stats_.receives_posted != posted_before) {
          it = matching();
          if (it != unmatched_.end()) ++stats_.arrival_posts;
        }
      }
      if (it != unmatched_.end()) {
        const ReceiveHandle h = *it;
        unmatched_.erase(it);
        ++stats_.early_matches;
        Match(msg, h, receives_.at(h));  // its pushes go straight into the buffer
      } else {
        unexpected_.push_back(msg);
      }
    } else if (seq != msg->seq || offset != msg->pushed_in || size != msg->size) {
      return Status::Error(who() + "push of message " + std::to_string(seq) + " at " +
                           std::to_string(offset) + " does not continue the last one");
    }
    if (msg->ack_sent) ++stats_.pushes_after_ack;
    if (bytes > 0) CopyIn(msg, offset, ChannelView::SlotData(slot), bytes);
    msg->pushed_in += bytes;
    ++stats_.pushes_consumed;
    // Copy first, free the slot after: the sender may refill it from then on.
    control->consumed.store(in.next_index + 1, std::memory_order_release);
    ++in.next_index;
    // The acknowledgement leaves before the second push is taken out: the two overlap.
    if (first && msg->receive != 0) Pump(in, completed);
    if (msg->pushed_in == msg->push_bytes) {
      msg->pushes_over = true;
      in.current = nullptr;
      ++in.next_seq;
      MaybeComplete(msg, completed);
    }
  }
  return Status();
}

void Receiver::Pump(Inbound& in, size_t* completed) {
  ChannelControl* control = in.view.control();
  if (in.round_out) {
    if (control->reply_gen.load(std::memory_order_acquire) != in.gen) return;
    Incoming* msg = in.pulls.front();
    if (control->reply_staged != 0 && in.round_bytes > 0) {
      // The fallback's second copy: from the staging area into the destination.
      const Posted& p = receives_.at(msg->receive);
      std::memcpy(p.buffer + in.round_offset, in.view.staging(), in.round_bytes);
      stats_.bytes_unstaged += in.round_bytes;
    }
    msg->pulled += in.round_bytes;
    stats_.bytes_pulled += in.round_bytes;
    in.round_out = false;
    if (in.round_last) {
      msg->pull_over = true;
      in.pulls.pop_front();
      MaybeComplete(msg, completed);
    }
  }
  if (in.pulls.empty()) return;
  Incoming* msg = in.pulls.front();
  const Posted& p = receives_.at(msg->receive);
  const uint64_t want = WantedPull(msg);
  const uint64_t offset = msg->push_bytes + msg->pulled;
  const uint64_t n = std::min(want - msg->pulled, params_.pull_round_bytes);
  scratch_.clear();
  p.dest.Slice(offset, n, &scratch_);
  PullRequest* req = in.view.request();
  req->message_seq = msg->seq;
  req->offset = offset;
  req->bytes = n;
  req->extent_count = static_cast<uint32_t>(scratch_.size());
  req->last = msg->pulled + n == want ? 1 : 0;
  if (!scratch_.empty()) {
    std::memcpy(in.view.request_extents(), scratch_.data(), scratch_.size() * sizeof(Extent));
  }
  if (!msg->ack_sent) {
    msg->ack_sent = true;
    ++stats_.acks_sent;
  }
  ++stats_.pull_requests;
  in.round_out = true;
  in.round_bytes = n;
  in.round_offset = offset;
  in.round_last = req->last != 0;
  control->request_gen.store(++in.gen, std::memory_order_release);
}

void Receiver::MaybeComplete(Incoming* msg, size_t* completed) {
  if (msg->receive == 0 || !msg->pushes_over || !msg->pull_over) return;
  Posted& p = receives_.at(msg->receive);
  p.done = true;
  p.message = nullptr;
  p.completion.source = msg->source;
  p.completion.tag = msg->tag;
  p.completion.message_bytes = msg->size;
  p.completion.bytes = std::min(msg->size, p.capacity);
  p.completion.truncated = msg->size > p.capacity;
  ++stats_.receives_completed;
  stats_.bytes_delivered += p.completion.bytes;
  if (p.completion.truncated) ++stats_.truncated;
  incoming_.erase({msg->source, msg->seq});
  ++*completed;
}

Result<size_t> Receiver::Poll() {
  size_t completed = 0;
  Status first_error;
  for (Inbound& in : inbound_) {
    if (in.from == self_ || in.broken) continue;
    if (Status s = Drain(in, &completed); !s.ok()) {
      in.broken = true;
      ++stats_.protocol_errors;
      if (first_error.ok()) first_error = s;
      continue;
    }
    Pump(in, &completed);
  }
  if (!first_error.ok()) return first_error;
  return completed;
}

std::optional<Completion> Receiver::Take(ReceiveHandle handle) {
  auto it = receives_.find(handle);
  if (it == receives_.end() || !it->second.done) return std::nullopt;
  Completion c = it->second.completion;
  receives_.erase(it);
  return c;
}

}  // namespace nicsim::ulp::pushpull
