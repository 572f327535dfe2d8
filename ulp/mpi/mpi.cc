// SPDX-License-Identifier: Apache-2.0
// The MPI layer of one rank: its memory, its host copies and the completion of its requests.
#include "ulp/mpi/mpi.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"

namespace nicsim::mpi {

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
    Request r = rendezvous_.TakeAccepted(static_cast<int>(src), seq);
    if (r == nullptr) return;  // its receive was abandoned
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
  matcher_.ForgetPosted();
  rendezvous_.ForgetReceives();
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
