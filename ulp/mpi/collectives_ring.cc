// SPDX-License-Identifier: Apache-2.0
// Long collectives around the ring of a communicator's ranks (each sends to rank + 1 and takes
// from rank - 1): allgather, broadcast as a scatter then an allgather, and allreduce as a
// reduce-scatter then an allgather. Each link carries each byte once or twice, where a tree
// sends the whole message once per level; they take n - 1 steps or twice that, so only long
// messages go this way (Mpi::kLongMessageBytes).
#include <algorithm>
#include <cstring>
#include <vector>

#include "ulp/mpi/collective_tags.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {
namespace {

/** Bytes [begin, end) of piece `k` when `len` bytes of `unit`-byte elements are cut into `n`
 *  pieces as even as whole elements allow. */
std::pair<size_t, size_t> Piece(size_t len, size_t unit, int n, int k) {
  const size_t elements = len / unit;
  const auto at = [&](int i) {
    return elements * static_cast<size_t>(i) / static_cast<size_t>(n) * unit;
  };
  return {at(k), k + 1 == n ? len : at(k + 1)};
}

}  // namespace

void Mpi::RingAllgather(const std::function<Block(int rank)>& block, const Comm& comm) {
  // Step s: pass on the block received in step s - 1 (first one's own) to the right, take the
  // next from the left. After n - 1 steps every block went around; each link carried each
  // block once.
  const int n = comm.size();
  const uint32_t ctx = CollectiveContext(comm);
  const int right = (comm.rank + 1) % n, left = (comm.rank - 1 + n) % n;
  for (int s = 0; s + 1 < n; ++s) {
    const Block out = block((comm.rank - s + n) % n);
    const Block in = block((comm.rank - s - 1 + n) % n);
    Request r = StartRecv(in.at, in.count, *in.type, left, kAllgatherRingTag, ctx, comm);
    Request w = StartSend(out.at, out.count, *out.type, right, kAllgatherRingTag, ctx, comm);
    Waitall({r, w});
  }
}

void Mpi::ScatterRingBcast(uint8_t* bytes, size_t len, int root, const Comm& comm) {
  const int n = comm.size();
  const uint32_t ctx = CollectiveContext(comm);
  // Piece k belongs to the rank k after the root.
  auto piece = [&](int rank) {
    const auto [begin, end] = Piece(len, 1, n, (rank - root + n) % n);
    return Block{bytes + begin, end - begin, &kByteType};
  };
  if (comm.rank == root) {
    std::vector<Request> sends;
    for (int r = 0; r < n; ++r) {
      if (r == root) continue;
      const Block p = piece(r);
      sends.push_back(StartSend(p.at, p.count, kByteType, r, kBcastScatterTag, ctx, comm));
    }
    Waitall(sends);
  } else {
    const Block p = piece(comm.rank);
    Wait(StartRecv(p.at, p.count, kByteType, root, kBcastScatterTag, ctx, comm));
  }
  RingAllgather(piece, comm);
}

void Mpi::RingAllreduceBytes(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine,
                             const Comm& comm) {
  const int n = comm.size();
  const uint32_t ctx = CollectiveContext(comm);
  const int right = (comm.rank + 1) % n, left = (comm.rank - 1 + n) % n;
  if (out != in) std::memcpy(out, in, bytes);
  auto piece = [&](int k) {
    const auto [begin, end] = Piece(bytes, combine.element_bytes, n, (k % n + n) % n);
    return Block{out + begin, end - begin, &kByteType};
  };
  // Reduce-scatter: in step s each rank passes on its partial piece rank - s and combines the
  // piece rank - s - 1 from the left into its own; after n - 1 steps rank r holds piece r + 1
  // reduced over every rank.
  size_t largest = 0;
  for (int k = 0; k < n; ++k) largest = std::max(largest, piece(k).count);
  std::vector<uint8_t> from_left(largest);
  for (int s = 0; s + 1 < n; ++s) {
    const Block send = piece(comm.rank - s);
    const Block take = piece(comm.rank - s - 1);
    Request r =
        StartRecv(from_left.data(), take.count, kByteType, left, kReduceScatterRingTag, ctx, comm);
    Request w = StartSend(send.at, send.count, kByteType, right, kReduceScatterRingTag, ctx, comm);
    Waitall({r, w});
    combine.apply(take.at, from_left.data(), take.count);
  }
  // Allgather: rank r's own block is piece r + 1.
  RingAllgather([&](int rank) { return piece(rank + 1); }, comm);
}

}  // namespace nicsim::mpi
