// SPDX-License-Identifier: Apache-2.0
// Push-pull between nodes (reference 003, mpi.internode=pushpull): a message pushes its first
// BTP1 bytes with the request and its next BTP2 bytes right behind, without waiting; the
// receiver acknowledges (a clear to send) as soon as the first push meets its receive, and the
// rest follows the acknowledgement, pulled by the receiver's adapter (the transport's RDMA read
// of a large message). Pushed bytes of a receiver that is late wait in the unexpected queue.
#include <algorithm>
#include <cstring>

#include "base/check.h"
#include "ulp/mpi/mpi.h"

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

void Mpi::SendPush(int dest_world, uint32_t context, int tag, uint64_t id, uint64_t total,
                   uint64_t pushed, uint64_t offset, const uint8_t* data, uint64_t len) {
  const PushHeader h{total, id, offset, pushed};
  std::vector<uint8_t> wire(sizeof(h) + len);
  std::memcpy(wire.data(), &h, sizeof(h));
  if (len > 0) std::memcpy(wire.data() + sizeof(h), data, len);
  ++stats_.pushpull_pushes;
  stats_.pushpull_pushed_bytes += len;
  Transmit(dest_world, Kind::kRts, context, static_cast<uint32_t>(tag), std::move(wire), nullptr);
}

Mpi::Request Mpi::StartPushPullSend(const void* buf, size_t count, const Datatype& type,
                                    int dest_world, int tag, uint32_t context, Request r,
                                    bool synchronous) {
  const size_t total = count * type.size();
  const ulp::pushpull::Params& pp = config_.pushpull;
  // A synchronous send pushes nothing: its acknowledgement is what says the receive matched.
  const uint64_t pushed = synchronous ? 0 : pp.PushedBytesOf(total);
  if (pushed == total && !synchronous) {
    // Everything is pushed: the message is an eager one, complete once copied out.
    // Copied out once, into the staging area (counted there).
    return SendEager(std::move(r), dest_world, context, tag, Pack(buf, count, type));
  }
  ++stats_.rendezvous_sends;
  // The rest goes from the program's AllocMem buffer if it lies in one (read there by RDMA).
  const std::optional<uint64_t> own = type.dense() ? TaskAddress(buf, total) : std::nullopt;
  std::vector<uint8_t> bytes;
  if (own) {
    const auto* at = static_cast<const uint8_t*>(buf);
    bytes.assign(at, at + pushed);
  } else {
    bytes = Pack(buf, count, type);
  }
  CountCopy(bytes.size());
  const uint64_t id = rendezvous_.NewId();
  const uint64_t first =
      pp.mode == ulp::pushpull::Mode::kPushPull ? std::min<uint64_t>(pp.btp1_bytes, pushed) : 0;
  SendPush(dest_world, context, tag, id, total, pushed, 0, bytes.data(), first);
  if (pushed > first) {
    // The second push leaves now, not after the acknowledgement: it keeps the link busy
    // while the first push is matched and acknowledged.
    ++stats_.pushpull_second_pushes;
    SendPush(dest_world, context, tag, id, total, pushed, first, bytes.data() + first,
             pushed - first);
  }
  PendingSend p{[r] { r->done = true; }, dest_world,     context, tag, {},
                own.value_or(0),         own ? total : 0};
  if (!own) p.data = std::move(bytes);
  p.pushpull = true;
  p.pushed = pushed;
  rendezvous_.AwaitClearToSend(id, std::move(p));
  SpendCopyTime();
  return r;
}

void Mpi::BeginGather(RequestState& r, uint64_t total, uint64_t pushed) {
  r.gathering = true;
  r.gathered.assign(total, 0);
  r.gathered_bytes = 0;
  r.pulled_from = pushed;
}

void Mpi::Gather(const Request& r, int source, uint64_t offset, const uint8_t* data, size_t len) {
  NICSIM_CHECK(r->gathering && offset + len <= r->gathered.size(),
               "push-pull bytes [%llu, +%zu) of a %zu-byte message",
               static_cast<unsigned long long>(offset), len, r->gathered.size());
  if (len > 0) std::memcpy(r->gathered.data() + offset, data, len);
  r->gathered_bytes += len;
  if (r->gathered_bytes < r->gathered.size()) return;
  Deliver(*r, source, r->status.tag, r->gathered.data(), r->gathered.size());
  r->gathered = {};
  r->gathering = false;
  AfterCopies([r] { r->done = true; });
}

void Mpi::OnPush(int source, uint32_t context, int tag, const std::vector<uint8_t>& data) {
  NICSIM_CHECK(data.size() >= sizeof(PushHeader), "push of %zu bytes", data.size());
  PushHeader h;
  std::memcpy(&h, data.data(), sizeof(h));
  const uint8_t* bytes = data.data() + sizeof(h);
  const size_t len = data.size() - sizeof(h);
  if (h.offset > 0) {
    // A second push: its first came before it (the transport keeps a source's order).
    if (const Request r = rendezvous_.AwaitingData(source, h.rdv_id)) {
      Gather(r, source, h.offset, bytes, len);
      return;
    }
    if (UnexpectedMessage* u = matcher_.FindRendezvous(source, h.rdv_id)) {
      u->data.insert(u->data.end(), bytes, bytes + len);
      return;
    }
    NICSIM_CHECK(false, "second push of message %llu from rank %d with no first",
                 static_cast<unsigned long long>(h.rdv_id), source);
  }
  if (Request r = matcher_.TakePosted(context, source, tag)) {
    ++stats_.pushpull_early_receivers;
    r->status.source = r->group->RankOf(source);
    r->status.tag = tag;
    BeginGather(*r, h.total, h.pushed);
    Gather(r, source, 0, bytes, len);
    ClearToSend(source, h.rdv_id, r);
    return;
  }
  KeepUnexpected(UnexpectedMessage{context, source, tag, Kind::kRts,
                                   std::vector<uint8_t>(bytes, bytes + len), h.rdv_id, h.total,
                                   h.pushed});
}

}  // namespace nicsim::mpi
