// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/eager_protocol.h"

#include <utility>

#include "base/check.h"

namespace nicsim::mpi {

void EagerProtocol::Send(const SendCall& call, const Request& r) {
  // A dense message goes straight into staging memory when that is there now (no packed copy
  // in between).
  if (call.type->dense() &&
      s_.outbox.SendNow(call.dest_world, MessageKind::kEager, call.context,
                        static_cast<uint32_t>(call.tag), static_cast<const uint8_t*>(call.buf),
                        call.bytes())) {
    ++s_.stats.eager_sends;
    r->done = true;
    s_.cpu.Spend();
    return;
  }
  SendPacked(r, call.dest_world, call.context, call.tag, Pack(call.buf, call.count, *call.type));
}

void EagerProtocol::SendPacked(const Request& r, int dest_world, uint32_t context, int tag,
                               std::vector<uint8_t> bytes) {
  ++s_.stats.eager_sends;
  // The data is copied out: the send is complete for the caller once the copies are.
  r->done = true;
  s_.outbox.Send(dest_world, MessageKind::kEager, context, static_cast<uint32_t>(tag),
                 std::move(bytes), nullptr);
  s_.cpu.Spend();
}

void EagerProtocol::OnArrival(uint32_t context, int source_world, int tag,
                              std::vector<uint8_t> data) {
  if (Request r = s_.matcher.TakePosted(context, source_world, tag)) {
    s_.Deliver(*r, source_world, tag, data.data(), data.size());
    s_.cpu.After([r] { r->done = true; });
    return;
  }
  s_.KeepUnexpected(
      UnexpectedMessage{context, source_world, tag, MessageKind::kEager, std::move(data), 0, 0});
}

void EagerProtocol::Receive(UnexpectedMessage& u, const Request& r) {
  s_.Deliver(*r, u.source, u.tag, u.data.data(), u.data.size());
  r->done = true;
}

void EagerProtocol::OnClearToSend(uint64_t id, PendingSend) {
  NICSIM_CHECK(false, "a clear to send for eager message %llu",
               static_cast<unsigned long long>(id));
}

void EagerProtocol::OnData(const Request&, int source_world, std::vector<uint8_t>) {
  NICSIM_CHECK(false, "rendezvous data for an eager message from rank %d", source_world);
}

}  // namespace nicsim::mpi
