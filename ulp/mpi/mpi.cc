// SPDX-License-Identifier: Apache-2.0
// Point-to-point: matching, the unexpected queue, eager and rendezvous.
#include "ulp/mpi/mpi.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"

namespace nicsim::mpi {
namespace {

constexpr uint32_t kKindShift = 30;
constexpr uint32_t kContextMask = (1u << kKindShift) - 1;

uint32_t Wire(uint32_t kind, uint32_t context) {
  return (kind << kKindShift) | (context & kContextMask);
}

struct RtsPayload {
  uint64_t bytes;
  uint64_t rdv_id;
};

}  // namespace

Mpi::Mpi(int world_rank, int world_size, ulp::Transport& transport, hal::TaskHost& host,
         Blocker& blocker, const MpiConfig& config)
    : world_rank_(world_rank),
      transport_(transport),
      host_(host),
      blocker_(blocker),
      config_(config),
      staging_(host, 4096, &transport.registrations()),
      mcast_(transport.multicast(), blocker, config.mcast_slot_bytes,
             config.bcast == CollectiveTransport::kChained ? config.chain_radix : 0),
      half_rdma_(host, transport.fifo_reduction(), blocker, world_rank),
      copies_(config.copy_ps_per_byte),
      timers_(host) {
  world_.context = 0;
  world_.rank = world_rank;
  world_.group = Group::Identity(world_size);
  transport_.OnDeliver(
      [this](uint32_t src, uint32_t context, uint32_t tag, std::vector<uint8_t> data) {
        OnMessage(src, context, tag, std::move(data));
      });
  transport_.OnAnnounce([this](uint32_t src, uint32_t context, uint32_t tag, uint64_t total,
                               uint32_t seq) { OnAnnounced(src, context, tag, total, seq); });
  transport_.OnAccepted([this](uint32_t src, uint32_t seq, std::vector<uint8_t> data) {
    auto it = accepted_.find({static_cast<int>(src), seq});
    if (it == accepted_.end()) return;  // its receive was abandoned
    Request r = std::move(it->second);
    accepted_.erase(it);
    Landed(r, static_cast<int>(src), std::move(data));
  });
}

Mpi::~Mpi() {
  transport_.OnDeliver(nullptr);
  transport_.OnAnnounce(nullptr);
  transport_.OnAccepted(nullptr);
  if (intranode_ != nullptr) intranode_->OnDeliver(nullptr);
}

void Mpi::UseIntranodePath(IntranodePath* path) {
  if (intranode_ != nullptr) intranode_->OnDeliver(nullptr);
  intranode_ = path;
  if (path == nullptr) return;
  path->OnDeliver([this](uint32_t src, uint32_t wire, uint32_t tag, std::vector<uint8_t> data) {
    OnMessage(src, wire, tag, std::move(data));
  });
}

void* Mpi::AllocMem(size_t bytes) {
  Result<uint64_t> vaddr = host_.MapContiguous(std::max<size_t>(bytes, 1));
  if (!vaddr.ok()) return nullptr;
  uint8_t* at = host_.Contiguous(*vaddr, std::max<size_t>(bytes, 1));
  if (at == nullptr) return nullptr;
  areas_[reinterpret_cast<uintptr_t>(at)] = {*vaddr, bytes};
  return at;
}

std::optional<uint64_t> Mpi::TaskAddress(const void* buf, size_t bytes) const {
  const auto p = reinterpret_cast<uintptr_t>(buf);
  auto it = areas_.upper_bound(p);
  if (it == areas_.begin()) return std::nullopt;
  --it;
  const uintptr_t start = it->first;
  const auto [vaddr, len] = it->second;
  if (p - start > len || bytes > len - (p - start)) return std::nullopt;
  return vaddr + (p - start);
}

void Mpi::AbandonRequests() {
  posted_.clear();
  pending_recvs_.clear();
  accepted_.clear();
  transport_.multicast().AbandonReceives();
}

void Mpi::AfterCopies(std::function<void()> fn) {
  const uint64_t now = host_.NowPs();
  const uint64_t done = copies_.DoneAtPs(now);
  if (done == now && waiting_for_copies_ == 0) {
    fn();
    return;
  }
  // Timers due at the same time run in the order they were set: what waits keeps its order.
  ++waiting_for_copies_;
  timers_.After(done - now, [this, fn = std::move(fn)] {
    --waiting_for_copies_;
    fn();
  });
}

void Mpi::SpendCopyTime() {
  const uint64_t now = host_.NowPs();
  const uint64_t done = copies_.DoneAtPs(now);
  if (done > now) blocker_.Spend(done - now);
}

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
  const uint64_t id = next_rdv_++;
  const RtsPayload rts{o.bytes.size(), id};
  pending_sends_[id] = PendingSend{std::move(o.on_done), o.dest_world, o.context,
                                   static_cast<int>(o.tag), std::move(o.bytes)};
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

// ---- Sending ---------------------------------------------------------------------------------

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
  if (eager) {
    ++stats_.eager_sends;
    // The data is copied out: the send is complete for the caller once the copies are.
    r->done = true;
    Transmit(dest_world, Kind::kEager, context, static_cast<uint32_t>(tag), std::move(bytes),
             nullptr);
    SpendCopyTime();
    return r;
  }
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
  const uint64_t id = next_rdv_++;
  RtsPayload rts{own ? total : bytes.size(), id};
  std::vector<uint8_t> envelope(sizeof(rts));
  std::memcpy(envelope.data(), &rts, sizeof(rts));
  pending_sends_[id] = PendingSend{[r] { r->done = true; }, dest_world,      context,        tag,
                                   std::move(bytes),        own.value_or(0), own ? total : 0};
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

// ---- Receiving -------------------------------------------------------------------------------

bool Mpi::Matches(const RequestState& r, uint32_t context, int source_world, int tag) const {
  if (r.context != context) return false;
  if (r.tag != kAnyTag && r.tag != tag) return false;
  if (r.source == kAnySource) return r.group->RankOf(source_world) >= 0;
  return r.group->World(r.source) == source_world;
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
  pending_recvs_[{source_world, rdv_id}] = r;
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
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (!Matches(*r, it->context, it->source, it->tag)) continue;
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
    unexpected_.erase(it);
    // The program's call made the copy: it returns when the copy is done.
    SpendCopyTime();
    return r;
  }
  posted_.push_back(r);
  return r;
}

bool Mpi::CancelRecv(const Request& r) {
  const auto it = std::find(posted_.begin(), posted_.end(), r);
  if (it == posted_.end()) return false;
  posted_.erase(it);
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
    case Kind::kRts: {
      const int mpi_tag = static_cast<int>(tag);
      if (kind == Kind::kRts && PushPull(source)) {
        OnPush(source, context, mpi_tag, data);
        return;
      }
      if (Request r = TakePosted(context, source, mpi_tag)) {
        if (kind == Kind::kEager) {
          Deliver(*r, source, mpi_tag, data.data(), data.size());
          AfterCopies([r] { r->done = true; });
        } else {
          RtsPayload rts;
          std::memcpy(&rts, data.data(), sizeof(rts));
          r->status.source = r->group->RankOf(source);
          r->status.tag = mpi_tag;
          ClearToSend(source, rts.rdv_id, r);
        }
        return;
      }
      Unexpected u{context, source, mpi_tag, kind, {}, 0, 0};
      if (kind == Kind::kEager) {
        u.data = std::move(data);
      } else {
        RtsPayload rts;
        std::memcpy(&rts, data.data(), sizeof(rts));
        u.rdv_id = rts.rdv_id;
        u.bytes = rts.bytes;
      }
      unexpected_.push_back(std::move(u));
      ++stats_.unexpected;
      stats_.unexpected_peak = std::max<uint64_t>(stats_.unexpected_peak, unexpected_.size());
      return;
    }
    case Kind::kCts: {
      uint64_t id;
      std::memcpy(&id, data.data(), sizeof(id));
      auto it = pending_sends_.find(id);
      if (it == pending_sends_.end()) return;
      PendingSend p = std::move(it->second);
      pending_sends_.erase(it);
      if (p.pushpull) {
        // Push-pull: the acknowledgement asks for what the pushes did not carry.
        const uint64_t rest = (p.len > 0 ? p.len : p.data.size()) - p.pushed;
        stats_.pushpull_pulled_bytes += rest;
        if (p.len > 0) {
          ++stats_.zero_copy_sends;
          transport_.Send(
              static_cast<uint32_t>(p.dest), Wire(static_cast<uint32_t>(Kind::kData), p.context),
              static_cast<uint32_t>(id), p.vaddr + p.pushed, rest, std::move(p.on_done));
          return;
        }
        p.data.erase(p.data.begin(), p.data.begin() + static_cast<std::ptrdiff_t>(p.pushed));
      } else if (p.len > 0 && Intranode(p.dest)) {
        // The path copies from the program's AllocMem buffer into shared memory itself.
        const uint8_t* at = host_.Contiguous(p.vaddr, p.len);
        NICSIM_CHECK(at != nullptr, "AllocMem area at %llx",
                     static_cast<unsigned long long>(p.vaddr));
        p.data.assign(at, at + p.len);
      }
      Transmit(p.dest, Kind::kData, p.context, static_cast<uint32_t>(id), std::move(p.data),
               std::move(p.on_done));
      return;
    }
    case Kind::kData: {
      auto it = pending_recvs_.find({source, uint64_t{tag}});
      if (it == pending_recvs_.end()) return;
      Request r = it->second;
      pending_recvs_.erase(it);
      if (PushPull(source)) {
        // The rest of a push-pull message (nothing if the pushes held it all).
        if (r->gathering) Gather(r, source, r->pulled_from, data.data(), data.size());
        return;
      }
      Landed(r, source, std::move(data));
      return;
    }
  }
}

Mpi::Request Mpi::TakePosted(uint32_t context, int source_world, int tag) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (!Matches(**it, context, source_world, tag)) continue;
    Request r = std::move(*it);
    posted_.erase(it);
    return r;
  }
  return nullptr;
}

void Mpi::OnAnnounced(uint32_t src, uint32_t wire_context, uint32_t tag, uint64_t total,
                      uint32_t seq) {
  const uint32_t context = wire_context & kContextMask;
  const int source = static_cast<int>(src);
  const int mpi_tag = static_cast<int>(tag);
  if (Request r = TakePosted(context, source, mpi_tag)) {
    r->status.source = r->group->RankOf(source);
    r->status.tag = mpi_tag;
    AcceptAnnounced(source, seq, total, r);
    return;
  }
  Unexpected u{context, source, mpi_tag, Kind::kRts, {}, seq, total};
  u.announced = true;
  unexpected_.push_back(std::move(u));
  ++stats_.unexpected;
  stats_.unexpected_peak = std::max<uint64_t>(stats_.unexpected_peak, unexpected_.size());
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
  accepted_[{source_world, seq}] = r;
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
  for (const Unexpected& u : unexpected_) {
    if (!Matches(probe, u.context, u.source, u.tag)) continue;
    Status s;
    s.source = comm.group->RankOf(u.source);
    s.tag = u.tag;
    s.bytes = u.kind == Kind::kEager ? u.data.size() : u.bytes;
    return s;
  }
  return std::nullopt;
}

Status Mpi::Probe(int source, int tag, const Comm& comm) {
  std::optional<Status> found;
  blocker_.BlockUntil([&] {
    found = Iprobe(source, tag, comm);
    return found.has_value();
  });
  return *found;
}

// ---- Completion ------------------------------------------------------------------------------

bool Mpi::Test(const Request& r) const { return r->done; }

Status Mpi::Wait(const Request& r) {
  if (!r->done) blocker_.BlockUntil([r] { return r->done; });
  return r->status;
}

void Mpi::Waitall(const std::vector<Request>& rs) {
  // A request never stops being done: each look resumes at the first one still pending, so a
  // rank looked at after every frame it receives does not walk all its requests every time.
  size_t first_pending = 0;
  blocker_.BlockUntil([&rs, &first_pending] {
    while (first_pending < rs.size() && rs[first_pending]->done) ++first_pending;
    return first_pending == rs.size();
  });
}

size_t Mpi::Waitany(const std::vector<Request>& rs) {
  auto first_done = [&rs] {
    return static_cast<size_t>(
        std::find_if(rs.begin(), rs.end(), [](const Request& r) { return r->done; }) - rs.begin());
  };
  blocker_.BlockUntil([&] { return first_done() < rs.size(); });
  return first_done();
}

Status Mpi::Sendrecv(const void* sbuf, size_t scount, const Datatype& stype, int dest, int stag,
                     void* rbuf, size_t rcount, const Datatype& rtype, int source, int rtag,
                     const Comm& comm) {
  Request r = Irecv(rbuf, rcount, rtype, source, rtag, comm);
  Request s = Isend(sbuf, scount, stype, dest, stag, comm);
  Waitall({r, s});
  return r->status;
}

}  // namespace nicsim::mpi
