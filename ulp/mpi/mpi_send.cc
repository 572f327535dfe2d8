// SPDX-License-Identifier: Apache-2.0
// Point-to-point sending: staging, eager and rendezvous sends, the queue of messages waiting
// for staging memory, push-pull's announcements.
#include "ulp/mpi/mpi.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {

void Mpi::Transmit(int dest_world, Kind kind, uint32_t context, uint32_t tag,
                   std::vector<uint8_t> bytes, std::function<void()> on_done) {
  outgoing_.push_back(
      Outgoing{dest_world, kind, context, tag, std::move(bytes), std::move(on_done)});
  DrainOutgoing();
}

void Mpi::TransmitAnnounced(int dest_world, uint32_t context, uint32_t tag,
                            std::vector<uint8_t> bytes, std::function<void()> on_done) {
  outgoing_.push_back(Outgoing{dest_world, Kind::kRts, context, tag, std::move(bytes),
                               std::move(on_done), /*announce=*/true});
  DrainOutgoing();
}

void Mpi::DrainOutgoing() {
  while (!outgoing_.empty()) {
    Outgoing& o = outgoing_.front();
    if (Intranode(o.dest_world)) {
      // The path copies the bytes into memory the receiver reads (its own copy, on this
      // CPU, after the ones before it): no staging area.
      ++stats_.intranode_messages;
      const uint32_t dest = static_cast<uint32_t>(o.dest_world);
      const uint32_t wire = Wire(static_cast<uint32_t>(o.kind), o.context);
      AfterCopies([this, dest, wire, tag = o.tag, bytes = std::move(o.bytes),
                   on_done = std::move(o.on_done)]() mutable {
        intranode_->Send(dest, wire, tag, std::move(bytes), std::move(on_done));
      });
      outgoing_.pop_front();
      continue;
    }
    const uint64_t need = std::max<uint64_t>(o.bytes.size(), 1);
    const uint64_t area = staging_.AreaBytes(need);
    // An announced message holds its area until a receive matches it, which may wait for a
    // message queued behind it: past its share of staging memory it waits in this layer
    // instead, offered by a request to send, and takes staging once cleared to send.
    if (o.announce && announced_staging_ + area > config_.announced_staging_bytes) {
      AskToSend(o);
      continue;
    }
    Result<uint64_t> staging = staging_.Take(need);
    if (!staging.ok() && o.announce) {
      AskToSend(o);
      continue;
    }
    // Out of staging memory: a send in flight gives its area back when it completes.
    if (!staging.ok()) {
      ++stats_.staging_waits;
      staging_wait_bytes_ = area;
      return;
    }
    staging_wait_bytes_ = 0;
    Outgoing sent = std::move(o);
    outgoing_.pop_front();
    if (sent.announce) {
      announced_staging_ += area;
      sent.on_done = [this, area, on_done = std::move(sent.on_done)] {
        announced_staging_ -= area;
        if (on_done) on_done();
      };
    }
    SendStaged(*staging, sent.dest_world, sent.kind, sent.context, sent.tag, sent.bytes.data(),
               sent.bytes.size(), std::move(sent.on_done), sent.announce);
  }
}

void Mpi::AskToSend(Outgoing& o) {
  ++stats_.rendezvous_by_request;
  const uint64_t id = rendezvous_.NewId();
  const RtsPayload rts{o.bytes.size(), id};
  rendezvous_.AwaitClearToSend(id, PendingSend{std::move(o.on_done), o.dest_world, o.context,
                                               static_cast<int>(o.tag), std::move(o.bytes)});
  o.announce = false;
  o.bytes.resize(sizeof(rts));
  std::memcpy(o.bytes.data(), &rts, sizeof(rts));
  o.on_done = nullptr;
}

bool Mpi::TransmitNow(int dest_world, Kind kind, uint32_t context, uint32_t tag,
                      const uint8_t* data, size_t len) {
  // Only when nothing waits (messages keep their order) and staging memory is there now;
  // otherwise the caller packs the bytes and queues them (Transmit), which counts the wait.
  if (!outgoing_.empty() || Intranode(dest_world)) return false;
  Result<uint64_t> staging = staging_.Take(std::max<uint64_t>(len, 1));
  if (!staging.ok()) return false;
  SendStaged(*staging, dest_world, kind, context, tag, data, len, nullptr);
  return true;
}

void Mpi::SendStaged(uint64_t vaddr, int dest_world, Kind kind, uint32_t context, uint32_t tag,
                     const uint8_t* data, size_t len, std::function<void()> on_done,
                     bool announce) {
  if (len > 0) host_.Write(vaddr, data, len);
  if (announce || kind == Kind::kEager || kind == Kind::kData) CountCopy(len);
  const uint32_t dest = static_cast<uint32_t>(dest_world);
  const uint32_t wire = Wire(static_cast<uint32_t>(kind), context);
  // The transport reads the staging area once the CPU has written it.
  AfterCopies([this, dest, wire, tag, vaddr, len = uint64_t{len}, on_done = std::move(on_done),
               announce]() mutable {
    auto sent = [this, vaddr, on_done = std::move(on_done)] {
      staging_.Give(vaddr);
      if (on_done) on_done();
      DrainOutgoing();
    };
    if (announce) {
      transport_.Announce(dest, wire, tag, vaddr, len, std::move(sent));
    } else {
      transport_.Send(dest, wire, tag, vaddr, len, std::move(sent));
    }
  });
}

Mpi::Request Mpi::SendEager(Request r, int dest_world, uint32_t context, int tag,
                            std::vector<uint8_t> bytes) {
  ++stats_.eager_sends;
  // The data is copied out: the send is complete for the caller once the copies are.
  r->done = true;
  Transmit(dest_world, Kind::kEager, context, static_cast<uint32_t>(tag), std::move(bytes),
           nullptr);
  SpendCopyTime();
  return r;
}

Mpi::Request Mpi::StartSend(const void* buf, size_t count, const Datatype& type, int dest, int tag,
                            uint32_t context, const Comm& comm, bool synchronous) {
  NICSIM_CHECK(dest >= 0 && dest < comm.size(), "MPI send to rank %d of %d", dest, comm.size());
  auto r = std::make_shared<RequestState>();
  const int dest_world = comm.group->World(dest);
  if (PushPull(dest_world)) {
    return StartPushPullSend(buf, count, type, dest_world, tag, context, r, synchronous);
  }
  const size_t total = count * type.size();
  // A large message from the program's own AllocMem buffer is read from there by RDMA.
  const std::optional<uint64_t> own =
      type.dense() && total > config_.eager_limit ? TaskAddress(buf, total) : std::nullopt;
  // The program's bytes are copied out of its buffer once: packed straight into the staging
  // area the transport reads (counted there, SendStaged), or into the intranode path's
  // memory (counted by the path); none when the adapter reads its AllocMem buffer in place.
  // A synchronous send always goes by rendezvous: it completes only once a receive matched it.
  const bool eager = !own && !synchronous && total <= config_.eager_limit;
  // A dense eager message goes straight into staging memory when that is there now (no
  // packed copy in between).
  if (eager && type.dense() &&
      TransmitNow(dest_world, Kind::kEager, context, static_cast<uint32_t>(tag),
                  static_cast<const uint8_t*>(buf), total)) {
    ++stats_.eager_sends;
    r->done = true;
    SpendCopyTime();
    return r;
  }
  std::vector<uint8_t> bytes;
  if (!own) bytes = Pack(buf, count, type);
  if (eager) return SendEager(std::move(r), dest_world, context, tag, std::move(bytes));
  ++stats_.rendezvous_sends;
  if (!Intranode(dest_world)) {
    // One handshake: the transport announces the message with its registered buffer, the
    // receiver pulls it once a receive matches, and says done.
    auto done = [r] { r->done = true; };
    if (own) {
      // From the program's own buffer: the transport reads it there, nothing is staged.
      ++stats_.zero_copy_sends;
      transport_.Announce(static_cast<uint32_t>(dest_world),
                          Wire(static_cast<uint32_t>(Kind::kRts), context),
                          static_cast<uint32_t>(tag), *own, total, done);
    } else {
      TransmitAnnounced(dest_world, context, static_cast<uint32_t>(tag), std::move(bytes), done);
    }
    SpendCopyTime();
    return r;
  }
  const uint64_t id = rendezvous_.NewId();
  RtsPayload rts{own ? total : bytes.size(), id};
  std::vector<uint8_t> envelope(sizeof(rts));
  std::memcpy(envelope.data(), &rts, sizeof(rts));
  rendezvous_.AwaitClearToSend(id, PendingSend{[r] { r->done = true; }, dest_world, context, tag,
                                               std::move(bytes), own.value_or(0), own ? total : 0});
  Transmit(dest_world, Kind::kRts, context, static_cast<uint32_t>(tag), std::move(envelope),
           nullptr);
  SpendCopyTime();
  return r;
}

Mpi::Request Mpi::Isend(const void* buf, size_t count, const Datatype& type, int dest, int tag,
                        const Comm& comm) {
  NICSIM_CHECK(tag >= 0 && tag <= kTagUb, "MPI tag %d", tag);
  return StartSend(buf, count, type, dest, tag, comm.context, comm);
}

Mpi::Request Mpi::Issend(const void* buf, size_t count, const Datatype& type, int dest, int tag,
                         const Comm& comm) {
  NICSIM_CHECK(tag >= 0 && tag <= kTagUb, "MPI tag %d", tag);
  return StartSend(buf, count, type, dest, tag, comm.context, comm, /*synchronous=*/true);
}

void Mpi::Send(const void* buf, size_t count, const Datatype& type, int dest, int tag,
               const Comm& comm) {
  Wait(Isend(buf, count, type, dest, tag, comm));
}

}  // namespace nicsim::mpi
