// SPDX-License-Identifier: Apache-2.0
// PostboxPath: the postbox engines on simulated host memory, polled when something becomes
// visible, with copies charged to the CPU that makes them.
#include "ulp/mpi/postbox_path.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/check.h"
#include "ulp/mpi/path_message.h"

namespace nicsim::mpi {

PostboxNode::PostboxNode(std::vector<uint32_t> world_ranks, ulp::postbox::Params params,
                         uint64_t wake_ps)
    : ranks_(std::move(world_ranks)),
      params_(params),
      wake_ps_(wake_ps),
      paths_(ranks_.size(), nullptr) {
  topology_.processes_per_node = {ranks_.size()};
}

Result<std::unique_ptr<PostboxPath>> PostboxPath::Create(PostboxNode& node, uint32_t world,
                                                         hal::TaskHost& host,
                                                         double copy_ps_per_byte) {
  const int local = node.LocalOf(world);
  if (local < 0) {
    return nicsim::Status::Error("postbox: rank " + std::to_string(world) + " not on the node");
  }
  std::unique_ptr<PostboxPath> path(
      new PostboxPath(node, static_cast<uint32_t>(local), host, copy_ps_per_byte));
  const ulp::postbox::ProcessId self{0, static_cast<uint32_t>(local)};
  auto sender =
      ulp::postbox::Sender::Create(&path->platform_, node.topology(), self, node.params());
  if (!sender.ok()) return sender.status();
  auto receiver =
      ulp::postbox::Receiver::Create(&path->platform_, node.topology(), self, node.params());
  if (!receiver.ok()) return receiver.status();
  path->sender_ = std::move(*sender);
  path->receiver_ = std::move(*receiver);
  node.Join(static_cast<uint32_t>(local), path.get());
  return Result<std::unique_ptr<PostboxPath>>(std::move(path));
}

PostboxPath::PostboxPath(PostboxNode& node, uint32_t local, hal::TaskHost& host,
                         double copy_ps_per_byte)
    : node_(node),
      local_(local),
      host_(host),
      platform_(host, node.segments()),
      copies_(copy_ps_per_byte),
      clock_(host) {}

PostboxPath::~PostboxPath() { node_.Join(local_, nullptr); }

void PostboxPath::Send(uint32_t dest, uint32_t wire, uint32_t tag, std::vector<uint8_t> bytes,
                       std::function<void()> on_done) {
  const int to = node_.LocalOf(dest);
  NICSIM_CHECK(to >= 0, "postbox send to rank %u, not on this node", dest);
  Outbound out;
  out.bytes = FramePathMessage(wire, tag, bytes);
  out.to = static_cast<uint32_t>(to);
  out.on_done = std::move(on_done);
  // The engine reads the bytes from `out` until they are all posted: keep them in the map.
  const uint8_t* data = out.bytes.data();
  const size_t size = out.bytes.size();
  Result<ulp::postbox::SendHandle> handle =
      sender_->SendInPlace(ulp::postbox::ProcessId{0, out.to}, data, size);
  NICSIM_CHECK(handle.ok(), "postbox send of %zu B to rank %u: %s", size, dest,
               handle.status().message().c_str());
  outbound_.emplace(*handle, std::move(out));
  AfterPosting();
}

void PostboxPath::AfterPosting() {
  const uint64_t now = host_.NowPs();
  const uint64_t posted = sender_->stats().bytes_posted - bytes_posted_seen_;
  bytes_posted_seen_ += posted;
  // The CPU writes the pieces one after another; they are visible once written.
  const uint64_t written = posted > 0 ? copies_.Copy(now, posted) : copies_.DoneAtPs(now);
  std::vector<uint32_t> woken;
  for (auto it = outbound_.begin(); it != outbound_.end();) {
    const uint32_t to = it->second.to;
    if (std::find(woken.begin(), woken.end(), to) == woken.end()) woken.push_back(to);
    if (sender_->State(it->first) != ulp::postbox::SendState::kPosted) {
      ++it;
      continue;
    }
    if (it->second.on_done) clock_.At(written, std::move(it->second.on_done));
    it = outbound_.erase(it);
  }
  if (posted == 0) return;
  // Every receiver this rank had something for may have a new posting to find.
  for (uint32_t to : woken) {
    PostboxPath* peer = node_.path(to);
    if (peer != nullptr) peer->WakeAfter(written - now + node_.wake_ps());
  }
}

void PostboxPath::WakeAfter(uint64_t delay_ps) {
  clock_.PollAfter(delay_ps, [this] { Serve(); });
}

void PostboxPath::Serve() {
  ++polls_;
  const uint64_t now = host_.NowPs();
  Result<size_t> polled = receiver_->Poll();
  // Every segment here was made by this job's own engines: a broken one is a bug.
  NICSIM_CHECK(polled.ok(), "postbox poll of local rank %u: %s", local_,
               polled.status().message().c_str());
  const ulp::postbox::ReceiverStats& rs = receiver_->stats();
  const uint64_t copied = rs.bytes_copied - bytes_copied_seen_;
  bytes_copied_seen_ = rs.bytes_copied;
  const uint64_t read = copied > 0 ? copies_.Copy(now, copied) : copies_.DoneAtPs(now);
  while (std::optional<ulp::postbox::Message> m = receiver_->Take()) {
    const PathHeader h = PathHeaderOf(m->bytes);
    const uint32_t src = node_.WorldOf(m->from.rank);
    ++deliveries_waiting_;
    clock_.At(read, [this, src, h, bytes = std::move(m->bytes)]() mutable {
      --deliveries_waiting_;
      StripPathHeader(&bytes);
      if (deliver_) deliver_(src, h.wire, h.tag, std::move(bytes));
    });
  }
  // Acknowledgements free the senders' slots and blocks: those that lent some look again
  // (to post what waited, or only to take them back).
  if (rs.acks_written != acks_seen_) {
    acks_seen_ = rs.acks_written;
    for (uint32_t i = 0; i < node_.size(); ++i) {
      PostboxPath* peer = node_.path(i);
      if (peer != nullptr && !peer->sender_->Idle()) {
        peer->WakeAfter(read - now + node_.wake_ps());
      }
    }
  }
  if (!sender_->Idle()) {
    Result<size_t> posted = sender_->Progress();
    NICSIM_CHECK(posted.ok(), "postbox progress of local rank %u: %s", local_,
                 posted.status().message().c_str());
    AfterPosting();
  }
}

}  // namespace nicsim::mpi
