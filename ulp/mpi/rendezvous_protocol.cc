// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/rendezvous_protocol.h"

#include <cstring>
#include <optional>
#include <utility>

#include "base/check.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {

void RendezvousProtocol::Send(const SendCall& call, const Request& r) {
  const size_t total = call.bytes();
  // A large message from the program's own AllocMem buffer is read from there by RDMA.
  std::optional<uint64_t> own;
  if (call.type->dense() && total > s_.config.eager_limit) {
    own = s_.areas.TaskAddress(call.buf, total);
  }
  // The program's bytes are copied out of its buffer once: packed straight into the staging
  // area the transport reads (counted there, Outbox), or into the intranode path's memory
  // (counted by the path); none when the adapter reads its AllocMem buffer in place.
  std::vector<uint8_t> bytes;
  if (!own) bytes = Pack(call.buf, call.count, *call.type);
  ++s_.stats.rendezvous_sends;
  const uint32_t tag = static_cast<uint32_t>(call.tag);
  if (!s_.outbox.Intranode(call.dest_world)) {
    // One handshake: the transport announces the message with its registered buffer, the
    // receiver pulls it once a receive matches, and says done.
    auto done = [r] { r->done = true; };
    if (own) {
      // From the program's own buffer: the transport reads it there, nothing is staged.
      ++s_.stats.zero_copy_sends;
      s_.transport.Announce(static_cast<uint32_t>(call.dest_world),
                            Wire(static_cast<uint32_t>(MessageKind::kRts), call.context), tag, *own,
                            total, done);
    } else {
      s_.outbox.SendAnnounced(call.dest_world, call.context, tag, std::move(bytes), done);
    }
    s_.cpu.Spend();
    return;
  }
  const uint64_t id = s_.rendezvous.NewId();
  RtsPayload rts{own ? total : bytes.size(), id};
  std::vector<uint8_t> envelope(sizeof(rts));
  std::memcpy(envelope.data(), &rts, sizeof(rts));
  s_.rendezvous.AwaitClearToSend(
      id, PendingSend{[r] { r->done = true; }, call.dest_world, call.context, call.tag,
                      std::move(bytes), own.value_or(0), own ? total : 0});
  s_.outbox.Send(call.dest_world, MessageKind::kRts, call.context, tag, std::move(envelope),
                 nullptr);
  s_.cpu.Spend();
}

void RendezvousProtocol::OnArrival(uint32_t context, int source_world, int tag,
                                   std::vector<uint8_t> data) {
  RtsPayload rts;
  std::memcpy(&rts, data.data(), sizeof(rts));
  if (Request r = s_.matcher.TakePosted(context, source_world, tag)) {
    P2pServices::Matched(*r, source_world, tag);
    s_.ClearToSend(source_world, rts.rdv_id, r);
    return;
  }
  s_.KeepUnexpected(
      UnexpectedMessage{context, source_world, tag, MessageKind::kRts, {}, rts.rdv_id, rts.bytes});
}

void RendezvousProtocol::Receive(UnexpectedMessage& u, const Request& r) {
  P2pServices::Matched(*r, u.source, u.tag);
  if (u.announced) {
    AcceptAnnounced(u.source, static_cast<uint32_t>(u.rdv_id), u.bytes, r);
  } else {
    s_.ClearToSend(u.source, u.rdv_id, r);
  }
}

void RendezvousProtocol::OnClearToSend(uint64_t id, PendingSend p) {
  if (p.len > 0 && s_.outbox.Intranode(p.dest)) {
    // The path copies from the program's AllocMem buffer into shared memory itself.
    const uint8_t* at = s_.host.Contiguous(p.vaddr, p.len);
    NICSIM_CHECK(at != nullptr, "AllocMem area at %llx", static_cast<unsigned long long>(p.vaddr));
    p.data.assign(at, at + p.len);
  }
  s_.outbox.Send(p.dest, MessageKind::kData, p.context, static_cast<uint32_t>(id),
                 std::move(p.data), std::move(p.on_done));
}

void RendezvousProtocol::OnData(const Request& r, int source_world, std::vector<uint8_t> data) {
  Landed(r, source_world, std::move(data));
}

void RendezvousProtocol::OnAnnounced(int source_world, uint32_t wire_context, uint32_t tag,
                                     uint64_t total, uint32_t seq) {
  const uint32_t context = wire_context & kContextMask;
  const int mpi_tag = static_cast<int>(tag);
  if (Request r = s_.matcher.TakePosted(context, source_world, mpi_tag)) {
    P2pServices::Matched(*r, source_world, mpi_tag);
    AcceptAnnounced(source_world, seq, total, r);
    return;
  }
  UnexpectedMessage u{context, source_world, mpi_tag, MessageKind::kRts, {}, seq, total};
  u.announced = true;
  s_.KeepUnexpected(std::move(u));
}

void RendezvousProtocol::OnAccepted(int source_world, uint32_t seq, std::vector<uint8_t> data) {
  Request r = s_.rendezvous.TakeAccepted(source_world, seq);
  if (r == nullptr) return;  // its receive was abandoned
  Landed(r, source_world, std::move(data));
}

void RendezvousProtocol::AcceptAnnounced(int source_world, uint32_t seq, uint64_t bytes,
                                         const Request& r) {
  // Into the program's own AllocMem buffer, the data lands in place (no copy by the CPU).
  uint64_t in_place = 0;
  if (r->type.dense() && bytes > 0 && bytes <= r->count * r->type.size()) {
    if (std::optional<uint64_t> own = s_.areas.TaskAddress(r->buf, bytes)) {
      r->in_place_bytes = bytes;
      in_place = *own;
    }
  }
  s_.rendezvous.AwaitAccepted(source_world, seq, r);
  s_.transport.Accept(static_cast<uint32_t>(source_world), seq, in_place);
}

void RendezvousProtocol::Landed(const Request& r, int source_world, std::vector<uint8_t> data) {
  if (r->in_place_bytes > 0 && data.empty()) {
    // Landed in the program's buffer already.
    ++s_.stats.zero_copy_receives;
    r->status.source = r->group->RankOf(source_world);
    r->status.bytes = r->in_place_bytes;
    r->status.truncated = false;
    r->done = true;
    return;
  }
  s_.Deliver(*r, source_world, r->status.tag, data.data(), data.size());
  s_.cpu.After([r] { r->done = true; });
}

}  // namespace nicsim::mpi
