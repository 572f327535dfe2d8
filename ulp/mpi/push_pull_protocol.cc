// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/push_pull_protocol.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "base/check.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {
namespace {

/** What every push carries before its bytes. */
struct PushHeader {
  /** The whole message. */
  uint64_t total;
  /** The rendezvous id the acknowledgement and the pulled rest name. */
  uint64_t rdv_id;
  /** Where this push's bytes go in the message. */
  uint64_t offset;
  /** Bytes pushed in all (the pulled rest starts there). */
  uint64_t pushed;
};

}  // namespace

void PushPullProtocol::SendPush(int dest_world, uint32_t context, int tag, uint64_t id,
                                uint64_t total, uint64_t pushed, uint64_t offset,
                                const uint8_t* data, uint64_t len) {
  const PushHeader h{total, id, offset, pushed};
  std::vector<uint8_t> wire(sizeof(h) + len);
  std::memcpy(wire.data(), &h, sizeof(h));
  if (len > 0) std::memcpy(wire.data() + sizeof(h), data, len);
  ++s_.stats.pushpull_pushes;
  s_.stats.pushpull_pushed_bytes += len;
  s_.outbox.Send(dest_world, MessageKind::kRts, context, static_cast<uint32_t>(tag),
                 std::move(wire), nullptr);
}

void PushPullProtocol::Send(const SendCall& call, const Request& r) {
  const size_t total = call.bytes();
  const ulp::pushpull::Params& pp = s_.config.pushpull;
  // A synchronous send pushes nothing: its acknowledgement is what says the receive matched.
  const uint64_t pushed = call.synchronous ? 0 : pp.PushedBytesOf(total);
  if (pushed == total && !call.synchronous) {
    // Everything is pushed: the message is an eager one, complete once copied out.
    // Copied out once, into the staging area (counted there).
    eager_.SendPacked(r, call.dest_world, call.context, call.tag,
                      Pack(call.buf, call.count, *call.type));
    return;
  }
  ++s_.stats.rendezvous_sends;
  // The rest goes from the program's AllocMem buffer if it lies in one (read there by RDMA).
  const std::optional<uint64_t> own =
      call.type->dense() ? s_.areas.TaskAddress(call.buf, total) : std::nullopt;
  std::vector<uint8_t> bytes;
  if (own) {
    const auto* at = static_cast<const uint8_t*>(call.buf);
    bytes.assign(at, at + pushed);
  } else {
    bytes = Pack(call.buf, call.count, *call.type);
  }
  s_.cpu.Count(bytes.size());
  const uint64_t id = s_.rendezvous.NewId();
  const uint64_t first =
      pp.mode == ulp::pushpull::Mode::kPushPull ? std::min<uint64_t>(pp.btp1_bytes, pushed) : 0;
  SendPush(call.dest_world, call.context, call.tag, id, total, pushed, 0, bytes.data(), first);
  if (pushed > first) {
    // The second push leaves now, not after the acknowledgement: it keeps the link busy
    // while the first push is matched and acknowledged.
    ++s_.stats.pushpull_second_pushes;
    SendPush(call.dest_world, call.context, call.tag, id, total, pushed, first,
             bytes.data() + first, pushed - first);
  }
  PendingSend p{[r] { r->done = true; }, call.dest_world, call.context, call.tag, {},
                own.value_or(0),         own ? total : 0};
  if (!own) p.data = std::move(bytes);
  p.pushpull = true;
  p.pushed = pushed;
  s_.rendezvous.AwaitClearToSend(id, std::move(p));
  s_.cpu.Spend();
}

void PushPullProtocol::Begin(const Request& r, int source_world, int tag, uint64_t rdv_id,
                             uint64_t total, uint64_t pushed, const uint8_t* data, size_t len) {
  P2pServices::Matched(*r, source_world, tag);
  r->gathering = true;
  r->gathered.assign(total, 0);
  r->gathered_bytes = 0;
  r->pulled_from = pushed;
  Gather(r, source_world, 0, data, len);
  s_.ClearToSend(source_world, rdv_id, r);
}

void PushPullProtocol::Gather(const Request& r, int source_world, uint64_t offset,
                              const uint8_t* data, size_t len) {
  NICSIM_CHECK(r->gathering && offset + len <= r->gathered.size(),
               "push-pull bytes [%llu, +%zu) of a %zu-byte message",
               static_cast<unsigned long long>(offset), len, r->gathered.size());
  if (len > 0) std::memcpy(r->gathered.data() + offset, data, len);
  r->gathered_bytes += len;
  if (r->gathered_bytes < r->gathered.size()) return;
  s_.Deliver(*r, source_world, r->status.tag, r->gathered.data(), r->gathered.size());
  r->gathered = {};
  r->gathering = false;
  s_.cpu.After([r] { r->done = true; });
}

void PushPullProtocol::OnArrival(uint32_t context, int source_world, int tag,
                                 std::vector<uint8_t> data) {
  NICSIM_CHECK(data.size() >= sizeof(PushHeader), "push of %zu bytes", data.size());
  PushHeader h;
  std::memcpy(&h, data.data(), sizeof(h));
  const uint8_t* bytes = data.data() + sizeof(h);
  const size_t len = data.size() - sizeof(h);
  if (h.offset > 0) {
    // A second push: its first came before it (the transport keeps a source's order).
    if (const Request r = s_.rendezvous.AwaitingData(source_world, h.rdv_id)) {
      Gather(r, source_world, h.offset, bytes, len);
      return;
    }
    if (UnexpectedMessage* u = s_.matcher.FindRendezvous(source_world, h.rdv_id)) {
      u->data.insert(u->data.end(), bytes, bytes + len);
      return;
    }
    NICSIM_CHECK(false, "second push of message %llu from rank %d with no first",
                 static_cast<unsigned long long>(h.rdv_id), source_world);
  }
  if (Request r = s_.matcher.TakePosted(context, source_world, tag)) {
    ++s_.stats.pushpull_early_receivers;
    Begin(r, source_world, tag, h.rdv_id, h.total, h.pushed, bytes, len);
    return;
  }
  s_.KeepUnexpected(UnexpectedMessage{context, source_world, tag, MessageKind::kRts,
                                      std::vector<uint8_t>(bytes, bytes + len), h.rdv_id, h.total,
                                      h.pushed});
}

void PushPullProtocol::Receive(UnexpectedMessage& u, const Request& r) {
  ++s_.stats.pushpull_late_receivers;
  Begin(r, u.source, u.tag, u.rdv_id, u.bytes, u.pushed, u.data.data(), u.data.size());
}

void PushPullProtocol::OnClearToSend(uint64_t id, PendingSend p) {
  const uint64_t rest = (p.len > 0 ? p.len : p.data.size()) - p.pushed;
  s_.stats.pushpull_pulled_bytes += rest;
  if (p.len > 0) {
    // From the program's AllocMem buffer: read there by the transport.
    ++s_.stats.zero_copy_sends;
    s_.transport.Send(static_cast<uint32_t>(p.dest),
                      Wire(static_cast<uint32_t>(MessageKind::kData), p.context),
                      static_cast<uint32_t>(id), p.vaddr + p.pushed, rest, std::move(p.on_done));
    return;
  }
  p.data.erase(p.data.begin(), p.data.begin() + static_cast<std::ptrdiff_t>(p.pushed));
  s_.outbox.Send(p.dest, MessageKind::kData, p.context, static_cast<uint32_t>(id),
                 std::move(p.data), std::move(p.on_done));
}

void PushPullProtocol::OnData(const Request& r, int source_world, std::vector<uint8_t> data) {
  if (r->gathering) Gather(r, source_world, r->pulled_from, data.data(), data.size());
}

}  // namespace nicsim::mpi
