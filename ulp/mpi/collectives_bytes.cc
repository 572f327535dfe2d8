// SPDX-License-Identifier: Apache-2.0
// Collectives on packed bytes, for the C binding (which packs and places datatypes itself):
// binomial reduction (in rank order for an op that does not commute), linear gather and
// scatter with a block size per rank, pairwise all-to-all, and a linear prefix chain for scans.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>

#include "ulp/mpi/collective_tags.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {
namespace {

/** Where each rank's block starts when blocks of `counts` bytes lie back to back. */
std::vector<size_t> Offsets(const std::vector<size_t>& counts) {
  std::vector<size_t> at(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) at[i] = at[i - 1] + counts[i - 1];
  return at;
}

void CopyBytes(uint8_t* to, const uint8_t* from, size_t n) {
  if (n > 0 && to != from) std::memcpy(to, from, n);
}

}  // namespace

void Mpi::ReduceBytes(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine,
                      int root, const Comm& comm) {
  if (UseHalfRdma(bytes, combine)) {
    ++stats_.half_rdma_reductions;
    half_rdma_.Run(in, out, bytes, combine, root, *comm.group, comm.rank, CollectiveContext(comm));
    return;
  }
  const int n = comm.size();
  const uint32_t ctx = CollectiveContext(comm);
  if (!combine.commutative && root != 0) {
    // The binomial tree combines in rank order only when rooted at rank 0: reduce there, then
    // hand the result to the root.
    std::vector<uint8_t> at_zero(bytes);
    ReduceBytes(in, at_zero.data(), bytes, combine, 0, comm);
    if (comm.rank == 0) {
      Wait(StartSend(at_zero.data(), bytes, kByteType, root, kReduceToRootTag, ctx, comm));
    } else if (comm.rank == root) {
      Wait(StartRecv(out, bytes, kByteType, 0, kReduceToRootTag, ctx, comm));
    }
    return;
  }
  const int vr = (comm.rank - root + n) % n;
  // The partial result: `in` itself until a child's contribution is combined into a copy (a
  // leaf sends its input as it is). The receive buffer is overwritten whole: not zero-filled.
  std::unique_ptr<uint8_t[]> acc, part;
  const uint8_t* result = in;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((vr & mask) == 0) {
      const int child = vr | mask;
      if (child < n) {
        if (acc == nullptr) {
          acc.reset(new uint8_t[bytes]);
          part.reset(new uint8_t[bytes]);
          CopyBytes(acc.get(), in, bytes);
          result = acc.get();
        }
        // The child's subtree holds the ranks just above everything acc holds so far.
        Wait(StartRecv(part.get(), bytes, kByteType, (child + root) % n, kReduceTag, ctx, comm));
        combine.apply(acc.get(), part.get(), bytes);
      }
    } else {
      Wait(StartSend(result, bytes, kByteType, ((vr & ~mask) + root) % n, kReduceTag, ctx, comm));
      break;
    }
  }
  if (comm.rank == root) CopyBytes(out, result, bytes);
}

void Mpi::AllreduceBytes(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine,
                         const Comm& comm) {
  if (RingAllreduceFor(bytes, comm.size(), combine, config_)) {
    RingAllreduceBytes(in, out, bytes, combine, comm);
    return;
  }
  ReduceBytes(in, out, bytes, combine, 0, comm);
  Bcast(out, bytes, kByteType, 0, comm);
}

void Mpi::Gatherv(const uint8_t* in, size_t bytes, uint8_t* out, const std::vector<size_t>& counts,
                  int root, const Comm& comm) {
  const uint32_t ctx = CollectiveContext(comm);
  if (comm.rank != root) {
    Wait(StartSend(in, bytes, kByteType, root, kGathervTag, ctx, comm));
    return;
  }
  const std::vector<size_t> at = Offsets(counts);
  std::vector<Request> recvs;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == root) {
      CopyBytes(out + at[r], in, std::min(bytes, counts[r]));
    } else {
      recvs.push_back(StartRecv(out + at[r], counts[r], kByteType, r, kGathervTag, ctx, comm));
    }
  }
  Waitall(recvs);
}

void Mpi::Scatterv(const uint8_t* in, const std::vector<size_t>& counts, uint8_t* out, size_t bytes,
                   int root, const Comm& comm) {
  const uint32_t ctx = CollectiveContext(comm);
  if (comm.rank != root) {
    Wait(StartRecv(out, bytes, kByteType, root, kScattervTag, ctx, comm));
    return;
  }
  const std::vector<size_t> at = Offsets(counts);
  std::vector<Request> sends;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == root) {
      CopyBytes(out, in + at[r], std::min(bytes, counts[r]));
    } else {
      sends.push_back(StartSend(in + at[r], counts[r], kByteType, r, kScattervTag, ctx, comm));
    }
  }
  Waitall(sends);
}

void Mpi::Allgatherv(const uint8_t* in, size_t bytes, uint8_t* out,
                     const std::vector<size_t>& counts, const Comm& comm) {
  const size_t total = std::accumulate(counts.begin(), counts.end(), size_t{0});
  if (!RingAllgatherFor(total)) {
    Gatherv(in, bytes, out, counts, 0, comm);
    Bcast(out, total, kByteType, 0, comm);
    return;
  }
  const std::vector<size_t> at = Offsets(counts);
  CopyBytes(out + at[comm.rank], in, std::min(bytes, counts[comm.rank]));
  RingAllgather([&](int r) { return Block{out + at[r], counts[r], &kByteType}; }, comm);
}

void Mpi::Alltoallv(const uint8_t* in, const std::vector<size_t>& send_counts, uint8_t* out,
                    const std::vector<size_t>& recv_counts, const Comm& comm) {
  const std::vector<size_t> send_at = Offsets(send_counts), recv_at = Offsets(recv_counts);
  const int me = comm.rank;
  CopyBytes(out + recv_at[me], in + send_at[me], std::min(send_counts[me], recv_counts[me]));
  CompleteExchange(
      [&](int r) {
        return SourceBlock{in + send_at[r], send_counts[r], &kByteType};
      },
      [&](int r) {
        return Block{out + recv_at[r], recv_counts[r], &kByteType};
      },
      kAlltoallvTag, comm);
}

void Mpi::ReduceScatter(const uint8_t* in, uint8_t* out, const std::vector<size_t>& counts,
                        const Combiner& combine, const Comm& comm) {
  const size_t total = std::accumulate(counts.begin(), counts.end(), size_t{0});
  std::vector<uint8_t> all(total);
  ReduceBytes(in, all.data(), total, combine, 0, comm);
  Scatterv(all.data(), counts, out, counts[static_cast<size_t>(comm.rank)], 0, comm);
}

void Mpi::Scan(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine,
               bool exclusive, const Comm& comm) {
  const uint32_t ctx = CollectiveContext(comm);
  // through = in_0 op ... op in_rank, passed up the chain.
  std::vector<uint8_t> through(in, in + bytes);
  if (comm.rank > 0) {
    std::vector<uint8_t> prefix(bytes);
    Wait(StartRecv(prefix.data(), bytes, kByteType, comm.rank - 1, kScanTag, ctx, comm));
    if (exclusive) CopyBytes(out, prefix.data(), bytes);
    combine.apply(prefix.data(), in, bytes);
    through = std::move(prefix);
  }
  if (!exclusive) CopyBytes(out, through.data(), bytes);
  if (comm.rank + 1 < comm.size()) {
    Wait(StartSend(through.data(), bytes, kByteType, comm.rank + 1, kScanTag, ctx, comm));
  }
}

}  // namespace nicsim::mpi
