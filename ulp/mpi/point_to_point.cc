// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/point_to_point.h"

#include <cstring>
#include <utility>

#include "base/check.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {

PointToPoint::PointToPoint(ulp::Transport& transport, hal::TaskHost& host, Blocker& blocker,
                           const MpiConfig& config, MpiStats& stats)
    : s_(transport, host, blocker, config, stats),
      eager_(s_),
      rendezvous_(s_),
      push_pull_(s_, eager_) {
  transport.OnDeliver(
      [this](uint32_t src, uint32_t context, uint32_t tag, std::vector<uint8_t> data) {
        OnMessage(src, context, tag, std::move(data));
      });
  transport.OnAnnounce(
      [this](uint32_t src, uint32_t context, uint32_t tag, uint64_t total, uint32_t seq) {
        if (windows_ != nullptr && IsWindowContext(context & kContextMask)) {
          windows_->OnAnnounced(static_cast<int>(src), context & kContextMask, tag, total, seq);
          return;
        }
        rendezvous_.OnAnnounced(static_cast<int>(src), context, tag, total, seq);
      });
  transport.OnAccepted([this](uint32_t src, uint32_t seq, std::vector<uint8_t> data) {
    if (windows_ != nullptr && windows_->OnAccepted(static_cast<int>(src), seq, data)) return;
    rendezvous_.OnAccepted(static_cast<int>(src), seq, std::move(data));
  });
}

PointToPoint::~PointToPoint() {
  s_.transport.OnDeliver(nullptr);
  s_.transport.OnAnnounce(nullptr);
  s_.transport.OnAccepted(nullptr);
  if (s_.outbox.intranode() != nullptr) s_.outbox.intranode()->OnDeliver(nullptr);
}

void PointToPoint::UseIntranodePath(IntranodePath* path) {
  if (s_.outbox.intranode() != nullptr) s_.outbox.intranode()->OnDeliver(nullptr);
  s_.outbox.UseIntranodePath(path);
  if (path == nullptr) return;
  path->OnDeliver([this](uint32_t src, uint32_t wire, uint32_t tag, std::vector<uint8_t> data) {
    OnMessage(src, wire, tag, std::move(data));
  });
}

Request PointToPoint::Send(const void* buf, size_t count, const Datatype& type, int dest_world,
                           int tag, uint32_t context, bool synchronous) {
  auto r = std::make_shared<RequestState>();
  const SendCall call{buf, count, &type, dest_world, tag, context, synchronous};
  if (s_.PushPull(dest_world)) {
    push_pull_.Send(call, r);
  } else if (!synchronous && call.bytes() <= s_.config.eager_limit) {
    eager_.Send(call, r);
  } else {
    // A synchronous send always goes by rendezvous: it completes only once a receive
    // matched it.
    rendezvous_.Send(call, r);
  }
  return r;
}

Request PointToPoint::Recv(void* buf, size_t count, const Datatype& type, int source, int tag,
                           uint32_t context, const Comm& comm) {
  auto r = std::make_shared<RequestState>();
  r->buf = buf;
  r->count = count;
  r->type = type;
  r->source = source;
  r->tag = tag;
  r->context = context;
  r->group = comm.group;
  // The oldest matching unexpected message first (MPI's non-overtaking rule).
  if (std::optional<UnexpectedMessage> u = s_.matcher.TakeUnexpected(*r)) {
    P2pProtocol& protocol =
        u->kind == MessageKind::kEager ? eager_ : HandshakeProtocolFor(u->source);
    protocol.Receive(*u, r);
    // The program's call made the copy: it returns when the copy is done.
    s_.cpu.Spend();
    return r;
  }
  s_.matcher.Post(r);
  return r;
}

void PointToPoint::OnMessage(uint32_t src, uint32_t wire_context, uint32_t tag,
                             std::vector<uint8_t> data) {
  const auto kind = static_cast<MessageKind>(wire_context >> kKindShift);
  const uint32_t context = wire_context & kContextMask;
  const int source = static_cast<int>(src);
  if (windows_ != nullptr && IsWindowContext(context)) {
    windows_->OnMessage(source, context, std::move(data));
    return;
  }
  switch (kind) {
    case MessageKind::kEager:
      eager_.OnArrival(context, source, static_cast<int>(tag), std::move(data));
      return;
    case MessageKind::kRts:
      HandshakeProtocolFor(source).OnArrival(context, source, static_cast<int>(tag),
                                             std::move(data));
      return;
    case MessageKind::kCts: {
      uint64_t id;
      std::memcpy(&id, data.data(), sizeof(id));
      std::optional<PendingSend> p = s_.rendezvous.TakeSend(id);
      if (!p) return;
      P2pProtocol& protocol = p->pushpull ? static_cast<P2pProtocol&>(push_pull_) : rendezvous_;
      protocol.OnClearToSend(id, std::move(*p));
      return;
    }
    case MessageKind::kData: {
      Request r = s_.rendezvous.TakeAwaitingData(source, uint64_t{tag});
      if (r == nullptr) return;
      HandshakeProtocolFor(source).OnData(r, source, std::move(data));
      return;
    }
  }
}

std::optional<Status> PointToPoint::Iprobe(int source, int tag, const Comm& comm) const {
  RequestState probe;
  probe.source = source;
  probe.tag = tag;
  probe.context = comm.context;
  probe.group = comm.group;
  const UnexpectedMessage* u = s_.matcher.PeekUnexpected(probe);
  if (u == nullptr) return std::nullopt;
  Status s;
  s.source = comm.group->RankOf(u->source);
  s.tag = u->tag;
  s.bytes = u->kind == MessageKind::kEager ? u->data.size() : u->bytes;
  return s;
}

bool PointToPoint::CancelRecv(const Request& r) {
  if (!s_.matcher.Unpost(r)) return false;
  r->status = Status{};
  r->status.cancelled = true;
  r->done = true;
  return true;
}

void PointToPoint::ForgetReceives() {
  s_.matcher.ForgetPosted();
  s_.rendezvous.ForgetReceives();
}

std::optional<CountMismatch> PointToPoint::TakeCountMismatch() {
  std::optional<CountMismatch> m = s_.count_mismatch;
  s_.count_mismatch.reset();
  return m;
}

}  // namespace nicsim::mpi
