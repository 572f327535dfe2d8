// SPDX-License-Identifier: Apache-2.0
// Collectives over point-to-point, in each communicator's collective context so they never
// match user messages: dissemination barrier, binomial-tree broadcast and reduction, linear
// gather and scatter, allreduce as reduce then broadcast, allgather as gather then broadcast,
// pairwise all-to-all; long broadcasts, allreduces and allgathers go around a ring instead
// (collectives_ring.cc).
// Bcast and Barrier go by multicast instead with mpi.bcast=multicast (collectives_multicast.cc).
#include <cstring>

#include "ulp/mpi/collective_tags.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {
namespace {

constexpr int kBarrier = kBarrierTag, kBcast = kBcastTag, kGather = kGatherTag,
              kScatter = kScatterTag, kAlltoall = kAlltoallTag;

}  // namespace

void Mpi::Barrier(const Comm& comm) {
  if (GroupCollectives() && MulticastGroup(comm)) {
    MulticastBarrier(comm);
    return;
  }
  const int n = comm.size();
  const uint32_t ctx = CollectiveContext(comm);
  for (int k = 1; k < n; k <<= 1) {
    const Datatype none = Datatype::Bytes(0);
    Request r = StartRecv(nullptr, 0, none, (comm.rank - k + n) % n, kBarrier, ctx, comm);
    Request s = StartSend(nullptr, 0, none, (comm.rank + k) % n, kBarrier, ctx, comm);
    Waitall({r, s});
  }
}

void Mpi::Bcast(void* buf, size_t count, const Datatype& type, int root, const Comm& comm) {
  if (GroupCollectives() && count * type.size() >= config_.mcast_min_bytes &&
      MulticastGroup(comm)) {
    std::vector<uint8_t> bytes =
        comm.rank == root ? Pack(buf, count, type) : std::vector<uint8_t>(count * type.size());
    if (comm.rank == root) {
      CountCopy(bytes.size());
      SpendCopyTime();
    }
    ++stats_.multicast_bcasts;
    MulticastBcast(bytes.data(), bytes.size(), root, comm);
    if (comm.rank != root) {
      Unpack(bytes.data(), bytes.size(), buf, count, type);
      CountCopy(bytes.size());
      SpendCopyTime();
    }
    return;
  }
  const size_t len = count * type.size();
  if (RingBcastFor(len, comm.size())) {
    // Around the ring on the packed bytes (in place when the buffer is dense).
    std::vector<uint8_t> packed;
    if (!type.dense()) {
      packed = comm.rank == root ? Pack(buf, count, type) : std::vector<uint8_t>(len);
    }
    uint8_t* bytes = type.dense() ? static_cast<uint8_t*>(buf) : packed.data();
    ScatterRingBcast(bytes, len, root, comm);
    if (!type.dense() && comm.rank != root) Unpack(packed.data(), len, buf, count, type);
    return;
  }
  TreeBcast(buf, count, type, root, comm);
}

void Mpi::TreeBcast(void* buf, size_t count, const Datatype& type, int root, const Comm& comm) {
  const int n = comm.size();
  const uint32_t ctx = CollectiveContext(comm);
  const int vr = (comm.rank - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      Wait(StartRecv(buf, count, type, (vr - mask + root) % n, kBcast, ctx, comm));
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  std::vector<Request> sends;
  for (; mask > 0; mask >>= 1) {
    if (vr + mask < n)
      sends.push_back(StartSend(buf, count, type, (vr + mask + root) % n, kBcast, ctx, comm));
  }
  Waitall(sends);
}

void Mpi::Reduce(const void* sbuf, void* rbuf, size_t count, const Datatype& type, Op op, int root,
                 const Comm& comm) {
  // A dense buffer is reduced where it is; only a strided one is packed first. Only the root
  // receives a result (ReduceBytes writes `out` at the root alone).
  const std::vector<uint8_t> packed =
      type.dense() ? std::vector<uint8_t>() : Pack(sbuf, count, type);
  const uint8_t* in = type.dense() ? static_cast<const uint8_t*>(sbuf) : packed.data();
  const size_t bytes = count * type.size();
  std::vector<uint8_t> acc(comm.rank == root ? bytes : 0);
  ReduceBytes(in, acc.data(), bytes, Combiner::Of(op, type.base), root, comm);
  if (comm.rank == root) Unpack(acc.data(), acc.size(), rbuf, count, type);
}

void Mpi::Allreduce(const void* sbuf, void* rbuf, size_t count, const Datatype& type, Op op,
                    const Comm& comm) {
  const size_t bytes = count * type.size();
  const Combiner combine = Combiner::Of(op, type.base);
  if (RingAllreduceFor(bytes, comm.size(), combine, config_)) {
    std::vector<uint8_t> packed_in, packed_out;
    if (!type.dense()) {
      packed_in = Pack(sbuf, count, type);
      packed_out.resize(bytes);
    }
    const uint8_t* in = type.dense() ? static_cast<const uint8_t*>(sbuf) : packed_in.data();
    uint8_t* out = type.dense() ? static_cast<uint8_t*>(rbuf) : packed_out.data();
    RingAllreduceBytes(in, out, bytes, combine, comm);
    if (!type.dense()) Unpack(out, bytes, rbuf, count, type);
    return;
  }
  Reduce(sbuf, rbuf, count, type, op, 0, comm);
  Bcast(rbuf, count, type, 0, comm);
}

void Mpi::Gather(const void* sbuf, size_t count, const Datatype& type, void* rbuf, int root,
                 const Comm& comm) {
  const uint32_t ctx = CollectiveContext(comm);
  if (comm.rank != root) {
    Wait(StartSend(sbuf, count, type, root, kGather, ctx, comm));
    return;
  }
  auto* out = static_cast<uint8_t*>(rbuf);
  const size_t block = count * type.extent();
  std::vector<Request> recvs;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == root) {
      const std::vector<uint8_t> mine = Pack(sbuf, count, type);
      Unpack(mine.data(), mine.size(), out + r * block, count, type);
    } else {
      recvs.push_back(StartRecv(out + r * block, count, type, r, kGather, ctx, comm));
    }
  }
  Waitall(recvs);
}

void Mpi::Scatter(const void* sbuf, size_t count, const Datatype& type, void* rbuf, int root,
                  const Comm& comm) {
  const uint32_t ctx = CollectiveContext(comm);
  if (comm.rank != root) {
    Wait(StartRecv(rbuf, count, type, root, kScatter, ctx, comm));
    return;
  }
  const auto* in = static_cast<const uint8_t*>(sbuf);
  const size_t block = count * type.extent();
  std::vector<Request> sends;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == root) {
      const std::vector<uint8_t> mine = Pack(in + r * block, count, type);
      Unpack(mine.data(), mine.size(), rbuf, count, type);
    } else {
      sends.push_back(StartSend(in + r * block, count, type, r, kScatter, ctx, comm));
    }
  }
  Waitall(sends);
}

void Mpi::Allgather(const void* sbuf, size_t count, const Datatype& type, void* rbuf,
                    const Comm& comm) {
  const size_t n = static_cast<size_t>(comm.size());
  if (!RingAllgatherFor(count * type.size() * n)) {
    Gather(sbuf, count, type, rbuf, 0, comm);
    Bcast(rbuf, count * n, type, 0, comm);
    return;
  }
  auto* out = static_cast<uint8_t*>(rbuf);
  const size_t block = count * type.extent();
  const std::vector<uint8_t> mine = Pack(sbuf, count, type);
  Unpack(mine.data(), mine.size(), out + static_cast<size_t>(comm.rank) * block, count, type);
  RingAllgather(
      [&](int r) {
        return Block{out + static_cast<size_t>(r) * block, count, &type};
      },
      comm);
}

void Mpi::Alltoall(const void* sbuf, size_t count, const Datatype& type, void* rbuf,
                   const Comm& comm) {
  const auto* in = static_cast<const uint8_t*>(sbuf);
  auto* out = static_cast<uint8_t*>(rbuf);
  const size_t block = count * type.extent();
  const auto at = [&](int r) { return static_cast<size_t>(r) * block; };
  const std::vector<uint8_t> mine = Pack(in + at(comm.rank), count, type);
  Unpack(mine.data(), mine.size(), out + at(comm.rank), count, type);
  CompleteExchange(
      [&](int r) {
        return SourceBlock{in + at(r), count, &type};
      },
      [&](int r) {
        return Block{out + at(r), count, &type};
      },
      kAlltoall, comm);
}

}  // namespace nicsim::mpi
