// SPDX-License-Identifier: Apache-2.0
// PushPullPath: the push-pull engines on simulated host memory, a buffer posted for each
// arriving message, polled when something becomes visible, copies charged where they are made.
#include "ulp/mpi/pushpull_path.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/check.h"
#include "ulp/mpi/path_message.h"
#include "ulp/pushpull/extent_copy.h"

namespace nicsim::mpi {
namespace {

/** Sender work that another rank may see: pushes posted and pull rounds served. */
uint64_t SenderSteps(const ulp::pushpull::SenderStats& s) {
  return s.first_pushes + s.second_pushes + s.push_all_chunks + s.pull_rounds_served;
}

/** Receiver work that another rank may see: slots freed and pull requests written. */
uint64_t ReceiverSteps(const ulp::pushpull::ReceiverStats& r) {
  return r.pushes_consumed + r.pull_requests;
}

/** Bytes the receiving CPU copied: out of pushed slots (and out of staging, never used here). */
uint64_t ReceiverCopied(const ulp::pushpull::ReceiverStats& r) {
  return r.pushed_bytes_direct + r.pushed_bytes_buffered + r.bytes_unstaged;
}

}  // namespace

PushPullNode::PushPullNode(std::vector<uint32_t> world_ranks, ulp::pushpull::Params params,
                           uint64_t wake_ps)
    : ranks_(std::move(world_ranks)),
      params_(params),
      wake_ps_(wake_ps),
      paths_(ranks_.size(), nullptr) {}

ulp::pushpull::CrossCopy TaskPushPullPlatform::CopyTo(uint64_t token,
                                                      const ulp::pushpull::Extent* local,
                                                      size_t local_count,
                                                      const ulp::pushpull::Extent* remote,
                                                      size_t remote_count) {
  NICSIM_CHECK(token < node_.size(), "pushpull copy to local rank %llu of %u",
               static_cast<unsigned long long>(token), node_.size());
  ulp::pushpull::ForEachOverlap(
      local, local_count, remote, remote_count, [](uint64_t src, uint64_t dst, uint64_t n) {
        std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
      });
  return ulp::pushpull::CrossCopy::kDone;
}

Result<std::unique_ptr<PushPullPath>> PushPullPath::Create(PushPullNode& node, uint32_t world,
                                                           hal::TaskHost& host,
                                                           double copy_ps_per_byte) {
  const int local = node.LocalOf(world);
  if (local < 0) {
    return nicsim::Status::Error("pushpull: rank " + std::to_string(world) + " not on the node");
  }
  std::unique_ptr<PushPullPath> path(
      new PushPullPath(node, static_cast<uint32_t>(local), host, copy_ps_per_byte));
  const uint32_t self = static_cast<uint32_t>(local);
  auto sender = ulp::pushpull::Sender::Create(&path->platform_, node.size(), self, node.params());
  if (!sender.ok()) return sender.status();
  // The receiver makes its channels now: every sender of the node finds them on its first send.
  auto receiver =
      ulp::pushpull::Receiver::Create(&path->platform_, node.size(), self, node.params());
  if (!receiver.ok()) return receiver.status();
  path->sender_ = std::move(*sender);
  path->receiver_ = std::move(*receiver);
  PushPullPath* p = path.get();
  path->receiver_->OnArrival(
      [p](uint32_t source, uint32_t tag, uint64_t bytes) { p->PostFor(source, tag, bytes); });
  node.Join(self, path.get());
  return Result<std::unique_ptr<PushPullPath>>(std::move(path));
}

PushPullPath::PushPullPath(PushPullNode& node, uint32_t local, hal::TaskHost& host,
                           double copy_ps_per_byte)
    : node_(node),
      local_(local),
      platform_(host, node, local),
      copies_(copy_ps_per_byte),
      clock_(host),
      inbound_(node.size()),
      next_tag_(node.size(), 0),
      expected_tag_(node.size(), 0) {}

PushPullPath::~PushPullPath() { node_.Join(local_, nullptr); }

size_t PushPullPath::in_flight() const {
  size_t arriving = 0;
  for (const auto& q : inbound_) arriving += q.size();
  return outbound_.size() + arriving + deliveries_waiting_;
}

void PushPullPath::Send(uint32_t dest, uint32_t wire, uint32_t tag, std::vector<uint8_t> bytes,
                        std::function<void()> on_done) {
  const int to = node_.LocalOf(dest);
  NICSIM_CHECK(to >= 0, "pushpull send to rank %u, not on this node", dest);
  Outbound out;
  out.bytes = FramePathMessage(wire, tag, bytes);
  out.to = static_cast<uint32_t>(to);
  out.on_done = std::move(on_done);
  // The engine reads the bytes from `out` (pushes and pulls) until the send is done: the
  // vector's storage stays put when `out` moves into the map.
  const uint8_t* data = out.bytes.data();
  const size_t size = out.bytes.size();
  Result<ulp::pushpull::SendHandle> handle = sender_->Send(out.to, next_tag_[out.to]++, data, size);
  NICSIM_CHECK(handle.ok(), "pushpull send of %zu B to rank %u: %s", size, dest,
               handle.status().message().c_str());
  outbound_.emplace(*handle, std::move(out));
  AfterSending();
}

void PushPullPath::AfterSending() {
  const uint64_t now = clock_.NowPs();
  const ulp::pushpull::SenderStats& s = sender_->stats();
  // Pushes are this CPU's copies into the slots; pull rounds its copies into the receivers'
  // buffers (CopyTo runs in the sender here). One after another, each visible once written.
  const uint64_t bytes = s.bytes_pushed + s.bytes_pulled - sender_bytes_seen_;
  sender_bytes_seen_ += bytes;
  const uint64_t steps = SenderSteps(s) - sender_steps_seen_;
  sender_steps_seen_ += steps;
  const uint64_t written = bytes > 0 ? copies_.Copy(now, bytes) : copies_.DoneAtPs(now);
  std::vector<uint32_t> woken;
  for (auto it = outbound_.begin(); it != outbound_.end();) {
    const uint32_t to = it->second.to;
    if (std::find(woken.begin(), woken.end(), to) == woken.end()) woken.push_back(to);
    if (!sender_->Done(it->first)) {
      ++it;
      continue;
    }
    if (it->second.on_done) clock_.At(written, std::move(it->second.on_done));
    it = outbound_.erase(it);
  }
  if (steps == 0) return;
  // Every receiver this rank had something for may have a push or a round's reply to find.
  for (uint32_t to : woken) {
    PushPullPath* peer = node_.path(to);
    if (peer != nullptr) peer->WakeAfter(written - now + node_.wake_ps());
  }
}

void PushPullPath::PostFor(uint32_t source, uint32_t tag, uint64_t bytes) {
  // Engine tags number each pair's messages: the next one from `source` must be this one.
  NICSIM_CHECK(tag == expected_tag_[source], "pushpull: message %u from local rank %u, want %u",
               tag, source, expected_tag_[source]);
  ++expected_tag_[source];
  Inbound in;
  in.buffer.resize(bytes);
  Result<ulp::pushpull::ReceiveHandle> h =
      receiver_->PostReceive(source, tag, in.buffer.data(), in.buffer.size());
  NICSIM_CHECK(h.ok(), "pushpull receive of %llu B from local rank %u: %s",
               static_cast<unsigned long long>(bytes), source, h.status().message().c_str());
  in.handle = *h;
  inbound_[source].push_back(std::move(in));
}

void PushPullPath::WakeAfter(uint64_t delay_ps) {
  clock_.PollAfter(delay_ps, [this] { Serve(); });
}

void PushPullPath::Serve() {
  ++polls_;
  const uint64_t now = clock_.NowPs();
  Result<size_t> polled = receiver_->Poll();
  // Every channel here was made by this job's own engines: a broken one is a bug.
  NICSIM_CHECK(polled.ok(), "pushpull poll of local rank %u: %s", local_,
               polled.status().message().c_str());
  const ulp::pushpull::ReceiverStats& rs = receiver_->stats();
  const uint64_t copied = ReceiverCopied(rs) - receiver_bytes_seen_;
  receiver_bytes_seen_ += copied;
  const uint64_t read = copied > 0 ? copies_.Copy(now, copied) : copies_.DoneAtPs(now);
  // A short message can finish while an earlier, longer one from the same sender is still
  // being pulled: hand each sender's messages over in the order they were sent.
  for (uint32_t from = 0; from < inbound_.size(); ++from) {
    std::deque<Inbound>& q = inbound_[from];
    while (!q.empty()) {
      std::optional<ulp::pushpull::Completion> c = receiver_->Take(q.front().handle);
      if (!c) break;
      std::vector<uint8_t> bytes = std::move(q.front().buffer);
      q.pop_front();
      NICSIM_CHECK(!c->truncated && c->bytes == bytes.size(), "pushpull message of %llu B into %zu",
                   static_cast<unsigned long long>(c->bytes), bytes.size());
      const PathHeader h = PathHeaderOf(bytes);
      const uint32_t src = node_.WorldOf(from);
      ++deliveries_waiting_;
      clock_.At(read, [this, src, h, bytes = std::move(bytes)]() mutable {
        --deliveries_waiting_;
        ++delivered_;
        StripPathHeader(&bytes);
        if (deliver_) deliver_(src, h.wire, h.tag, std::move(bytes));
      });
    }
  }
  // Freed slots and pull requests (the first is the acknowledgement) are for the senders:
  // those with work left look again once the writes are visible.
  const uint64_t steps = ReceiverSteps(rs) - receiver_steps_seen_;
  receiver_steps_seen_ += steps;
  if (steps > 0) {
    for (uint32_t i = 0; i < node_.size(); ++i) {
      PushPullPath* peer = node_.path(i);
      if (peer != nullptr && i != local_ && !peer->sender_->Idle()) {
        peer->WakeAfter(read - now + node_.wake_ps());
      }
    }
  }
  if (!sender_->Idle()) {
    Result<size_t> progressed = sender_->Progress();
    NICSIM_CHECK(progressed.ok(), "pushpull progress of local rank %u: %s", local_,
                 progressed.status().message().c_str());
    AfterSending();
  }
}

}  // namespace nicsim::mpi
