// SPDX-License-Identifier: Apache-2.0
// The MPI layer of one rank: its point-to-point calls, handed to its PointToPoint, and the
// completion of its requests.
#include "ulp/mpi/mpi.h"

#include <algorithm>

#include "base/check.h"

namespace nicsim::mpi {

Mpi::Mpi(int world_rank, int world_size, ulp::Transport& transport, hal::TaskHost& host,
         Blocker& blocker, const MpiConfig& config)
    : transport_(transport),
      blocker_(blocker),
      config_(config),
      p2p_(transport, host, blocker, config_, stats_),
      one_sided_(p2p_.services()),
      mcast_(transport.multicast(), blocker, config.mcast_slot_bytes,
             config.bcast == CollectiveTransport::kChained ? config.chain_radix : 0),
      half_rdma_(host, transport.fifo_reduction(), blocker, world_rank) {
  world_.context = 0;
  world_.rank = world_rank;
  world_.group = Group::Identity(world_size);
  p2p_.UseWindows(&one_sided_);
}

Mpi::~Mpi() { p2p_.UseWindows(nullptr); }

void Mpi::AbandonRequests() {
  p2p_.ForgetReceives();
  transport_.multicast().AbandonReceives();
}

Mpi::Request Mpi::StartSend(const void* buf, size_t count, const Datatype& type, int dest, int tag,
                            uint32_t context, const Comm& comm, bool synchronous) {
  NICSIM_CHECK(dest >= 0 && dest < comm.size(), "MPI send to rank %d of %d", dest, comm.size());
  return p2p_.Send(buf, count, type, comm.group->World(dest), tag, context, synchronous);
}

Mpi::Request Mpi::StartRecv(void* buf, size_t count, const Datatype& type, int source, int tag,
                            uint32_t context, const Comm& comm) {
  NICSIM_CHECK(source == kAnySource || (source >= 0 && source < comm.size()),
               "MPI receive from rank %d of %d", source, comm.size());
  return p2p_.Recv(buf, count, type, source, tag, context, comm);
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

Mpi::Request Mpi::Irecv(void* buf, size_t count, const Datatype& type, int source, int tag,
                        const Comm& comm) {
  return StartRecv(buf, count, type, source, tag, comm.context, comm);
}

Status Mpi::Recv(void* buf, size_t count, const Datatype& type, int source, int tag,
                 const Comm& comm) {
  return Wait(Irecv(buf, count, type, source, tag, comm));
}

bool Mpi::CancelRecv(const Request& r) { return p2p_.CancelRecv(r); }

std::optional<Status> Mpi::Iprobe(int source, int tag, const Comm& comm) const {
  return p2p_.Iprobe(source, tag, comm);
}

Status Mpi::Probe(int source, int tag, const Comm& comm) {
  std::optional<Status> found;
  blocker_.BlockUntil([&] {
    found = Iprobe(source, tag, comm);
    return found.has_value();
  });
  return *found;
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
