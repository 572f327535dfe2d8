// SPDX-License-Identifier: Apache-2.0
// Point-to-point receiving: matching, the unexpected queue, rendezvous on the receiving side,
// announced messages, probes.
#include "ulp/mpi/mpi.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {

void Mpi::KeepUnexpected(UnexpectedMessage u) {
  const size_t queued = matcher_.KeepUnexpected(std::move(u));
  ++stats_.unexpected;
  stats_.unexpected_peak = std::max<uint64_t>(stats_.unexpected_peak, queued);
}

void Mpi::Deliver(RequestState& r, int source_world, int tag, const uint8_t* data, size_t bytes) {
  const size_t room = r.count * r.type.size();
  r.status.source = r.group->RankOf(source_world);
  r.status.tag = tag;
  r.status.truncated = bytes > room;
  r.status.bytes = std::min(bytes, room);
  Unpack(data, r.status.bytes, r.buf, r.count, r.type);
  CountCopy(r.status.bytes);
  // Every message of a collective has the length its receiver's call expects, unless the
  // ranks passed different counts: noted for the call, and what did not arrive is zeroed
  // (the buffer may be scratch memory nothing else wrote).
  if (IsCollectiveContext(r.context) && bytes != room) {
    if (!count_mismatch_) count_mismatch_ = CountMismatch{bytes, room};
    if (bytes < room && r.type.dense()) {
      std::memset(static_cast<uint8_t*>(r.buf) + bytes, 0, room - bytes);
    }
  }
}

std::optional<Mpi::CountMismatch> Mpi::TakeCountMismatch() {
  std::optional<CountMismatch> m = count_mismatch_;
  count_mismatch_.reset();
  return m;
}

void Mpi::ClearToSend(int source_world, uint64_t rdv_id, const Request& r) {
  rendezvous_.AwaitData(source_world, rdv_id, r);
  std::vector<uint8_t> id(sizeof(rdv_id));
  std::memcpy(id.data(), &rdv_id, sizeof(rdv_id));
  Transmit(source_world, Kind::kCts, r->context, 0, std::move(id), nullptr);
}

Mpi::Request Mpi::StartRecv(void* buf, size_t count, const Datatype& type, int source, int tag,
                            uint32_t context, const Comm& comm) {
  NICSIM_CHECK(source == kAnySource || (source >= 0 && source < comm.size()),
               "MPI receive from rank %d of %d", source, comm.size());
  auto r = std::make_shared<RequestState>();
  r->buf = buf;
  r->count = count;
  r->type = type;
  r->source = source;
  r->tag = tag;
  r->context = context;
  r->group = comm.group;
  // The oldest matching unexpected message first (MPI's non-overtaking rule).
  if (std::optional<UnexpectedMessage> it = matcher_.TakeUnexpected(*r)) {
    if (it->kind == Kind::kEager) {
      Deliver(*r, it->source, it->tag, it->data.data(), it->data.size());
      r->done = true;
    } else if (PushPull(it->source)) {
      // A late receiver: the pushed bytes waited here; the acknowledgement asks for the rest.
      ++stats_.pushpull_late_receivers;
      r->status.source = r->group->RankOf(it->source);
      r->status.tag = it->tag;
      BeginGather(*r, it->bytes, it->pushed);
      Gather(r, it->source, 0, it->data.data(), it->data.size());
      ClearToSend(it->source, it->rdv_id, r);
    } else {
      r->status.source = r->group->RankOf(it->source);
      r->status.tag = it->tag;
      if (it->announced) {
        AcceptAnnounced(it->source, static_cast<uint32_t>(it->rdv_id), it->bytes, r);
      } else {
        ClearToSend(it->source, it->rdv_id, r);
      }
    }
    // The program's call made the copy: it returns when the copy is done.
    SpendCopyTime();
    return r;
  }
  matcher_.Post(r);
  return r;
}

bool Mpi::CancelRecv(const Request& r) {
  if (!matcher_.Unpost(r)) return false;
  r->status = Status{};
  r->status.cancelled = true;
  r->done = true;
  return true;
}

Mpi::Request Mpi::Irecv(void* buf, size_t count, const Datatype& type, int source, int tag,
                        const Comm& comm) {
  return StartRecv(buf, count, type, source, tag, comm.context, comm);
}

Status Mpi::Recv(void* buf, size_t count, const Datatype& type, int source, int tag,
                 const Comm& comm) {
  return Wait(Irecv(buf, count, type, source, tag, comm));
}

void Mpi::OnMessage(uint32_t src, uint32_t wire_context, uint32_t tag, std::vector<uint8_t> data) {
  const auto kind = static_cast<Kind>(wire_context >> kKindShift);
  const uint32_t context = wire_context & kContextMask;
  const int source = static_cast<int>(src);
  switch (kind) {
    case Kind::kEager:
    case Kind::kRts:
      OnMatchable(kind, context, source, static_cast<int>(tag), std::move(data));
      return;
    case Kind::kCts:
      OnClearToSend(data);
      return;
    case Kind::kData:
      OnRendezvousData(source, tag, std::move(data));
      return;
  }
}

void Mpi::OnMatchable(Kind kind, uint32_t context, int source, int tag, std::vector<uint8_t> data) {
  if (kind == Kind::kRts && PushPull(source)) {
    OnPush(source, context, tag, data);
    return;
  }
  if (Request r = matcher_.TakePosted(context, source, tag)) {
    if (kind == Kind::kEager) {
      Deliver(*r, source, tag, data.data(), data.size());
      AfterCopies([r] { r->done = true; });
    } else {
      RtsPayload rts;
      std::memcpy(&rts, data.data(), sizeof(rts));
      r->status.source = r->group->RankOf(source);
      r->status.tag = tag;
      ClearToSend(source, rts.rdv_id, r);
    }
    return;
  }
  UnexpectedMessage u{context, source, tag, kind, {}, 0, 0};
  if (kind == Kind::kEager) {
    u.data = std::move(data);
  } else {
    RtsPayload rts;
    std::memcpy(&rts, data.data(), sizeof(rts));
    u.rdv_id = rts.rdv_id;
    u.bytes = rts.bytes;
  }
  KeepUnexpected(std::move(u));
}

void Mpi::OnClearToSend(const std::vector<uint8_t>& data) {
  uint64_t id;
  std::memcpy(&id, data.data(), sizeof(id));
  std::optional<PendingSend> taken = rendezvous_.TakeSend(id);
  if (!taken) return;
  PendingSend& p = *taken;
  if (p.pushpull) {
    // Push-pull: the acknowledgement asks for what the pushes did not carry.
    const uint64_t rest = (p.len > 0 ? p.len : p.data.size()) - p.pushed;
    stats_.pushpull_pulled_bytes += rest;
    if (p.len > 0) {
      ++stats_.zero_copy_sends;
      transport_.Send(static_cast<uint32_t>(p.dest),
                      Wire(static_cast<uint32_t>(Kind::kData), p.context),
                      static_cast<uint32_t>(id), p.vaddr + p.pushed, rest, std::move(p.on_done));
      return;
    }
    p.data.erase(p.data.begin(), p.data.begin() + static_cast<std::ptrdiff_t>(p.pushed));
  } else if (p.len > 0 && Intranode(p.dest)) {
    // The path copies from the program's AllocMem buffer into shared memory itself.
    const uint8_t* at = host_.Contiguous(p.vaddr, p.len);
    NICSIM_CHECK(at != nullptr, "AllocMem area at %llx", static_cast<unsigned long long>(p.vaddr));
    p.data.assign(at, at + p.len);
  }
  Transmit(p.dest, Kind::kData, p.context, static_cast<uint32_t>(id), std::move(p.data),
           std::move(p.on_done));
}

void Mpi::OnRendezvousData(int source, uint32_t tag, std::vector<uint8_t> data) {
  Request r = rendezvous_.TakeAwaitingData(source, uint64_t{tag});
  if (r == nullptr) return;
  if (PushPull(source)) {
    // The rest of a push-pull message (nothing if the pushes held it all).
    if (r->gathering) Gather(r, source, r->pulled_from, data.data(), data.size());
    return;
  }
  Landed(r, source, std::move(data));
}

void Mpi::OnAnnounced(uint32_t src, uint32_t wire_context, uint32_t tag, uint64_t total,
                      uint32_t seq) {
  const uint32_t context = wire_context & kContextMask;
  const int source = static_cast<int>(src);
  const int mpi_tag = static_cast<int>(tag);
  if (Request r = matcher_.TakePosted(context, source, mpi_tag)) {
    r->status.source = r->group->RankOf(source);
    r->status.tag = mpi_tag;
    AcceptAnnounced(source, seq, total, r);
    return;
  }
  UnexpectedMessage u{context, source, mpi_tag, Kind::kRts, {}, seq, total};
  u.announced = true;
  KeepUnexpected(std::move(u));
}

void Mpi::AcceptAnnounced(int source_world, uint32_t seq, uint64_t bytes, const Request& r) {
  // Into the program's own AllocMem buffer, the data lands in place (no copy by the CPU).
  uint64_t in_place = 0;
  if (r->type.dense() && bytes > 0 && bytes <= r->count * r->type.size()) {
    if (std::optional<uint64_t> own = TaskAddress(r->buf, bytes)) {
      r->in_place_bytes = bytes;
      in_place = *own;
    }
  }
  rendezvous_.AwaitAccepted(source_world, seq, r);
  transport_.Accept(static_cast<uint32_t>(source_world), seq, in_place);
}

void Mpi::Landed(const Request& r, int source_world, std::vector<uint8_t> data) {
  if (r->in_place_bytes > 0 && data.empty()) {
    // Landed in the program's buffer already.
    ++stats_.zero_copy_receives;
    r->status.source = r->group->RankOf(source_world);
    r->status.bytes = r->in_place_bytes;
    r->status.truncated = false;
    r->done = true;
    return;
  }
  Deliver(*r, source_world, r->status.tag, data.data(), data.size());
  AfterCopies([r] { r->done = true; });
}

std::optional<Status> Mpi::Iprobe(int source, int tag, const Comm& comm) const {
  RequestState probe;
  probe.source = source;
  probe.tag = tag;
  probe.context = comm.context;
  probe.group = comm.group;
  const UnexpectedMessage* u = matcher_.PeekUnexpected(probe);
  if (u == nullptr) return std::nullopt;
  Status s;
  s.source = comm.group->RankOf(u->source);
  s.tag = u->tag;
  s.bytes = u->kind == Kind::kEager ? u->data.size() : u->bytes;
  return s;
}

Status Mpi::Probe(int source, int tag, const Comm& comm) {
  std::optional<Status> found;
  blocker_.BlockUntil([&] {
    found = Iprobe(source, tag, comm);
    return found.has_value();
  });
  return *found;
}

}  // namespace nicsim::mpi
