// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/p2p_services.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace nicsim::mpi {

void P2pServices::KeepUnexpected(UnexpectedMessage u) {
  const size_t queued = matcher.KeepUnexpected(std::move(u));
  ++stats.unexpected;
  stats.unexpected_peak = std::max<uint64_t>(stats.unexpected_peak, queued);
}

void P2pServices::Deliver(RequestState& r, int source_world, int tag, const uint8_t* data,
                          size_t bytes) {
  const size_t room = r.count * r.type.size();
  Matched(r, source_world, tag);
  r.status.truncated = bytes > room;
  r.status.bytes = std::min(bytes, room);
  Unpack(data, r.status.bytes, r.buf, r.count, r.type);
  cpu.Count(r.status.bytes);
  // Every message of a collective has the length its receiver's call expects, unless the
  // ranks passed different counts: noted for the call, and what did not arrive is zeroed
  // (the buffer may be scratch memory nothing else wrote).
  if (IsCollectiveContext(r.context) && bytes != room) {
    if (!count_mismatch) count_mismatch = CountMismatch{bytes, room};
    if (bytes < room && r.type.dense()) {
      std::memset(static_cast<uint8_t*>(r.buf) + bytes, 0, room - bytes);
    }
  }
}

void P2pServices::ClearToSend(int source_world, uint64_t rdv_id, const Request& r) {
  rendezvous.AwaitData(source_world, rdv_id, r);
  std::vector<uint8_t> id(sizeof(rdv_id));
  std::memcpy(id.data(), &rdv_id, sizeof(rdv_id));
  outbox.Send(source_world, MessageKind::kCts, r->context, 0, std::move(id), nullptr);
}

}  // namespace nicsim::mpi
