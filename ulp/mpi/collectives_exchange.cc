// SPDX-License-Identifier: Apache-2.0
// The complete exchange (alltoall, alltoallv): blocks the eager protocol carries all leave at
// once; rendezvous blocks go pairwise, in step k to rank + k and from rank - k, so each step
// is a permutation: every node's link carries one stream out and one in.
#include <algorithm>

#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {

void Mpi::CompleteExchange(const std::function<SourceBlock(int rank)>& send,
                           const std::function<Block(int rank)>& recv, int tag, const Comm& comm) {
  const int n = comm.size();
  const uint32_t ctx = CollectiveContext(comm);
  size_t largest = 0;
  for (int r = 0; r < n; ++r) {
    if (r == comm.rank) continue;
    const SourceBlock out = send(r);
    const Block in = recv(r);
    largest = std::max({largest, out.count * out.type->size(), in.count * in.type->size()});
  }
  // Each rank decides alone: a pair exchanges one message each way per call, so a rank
  // posting all at once and its partner going step by step still match.
  if (PairwiseExchangeFor(largest, config_)) {
    for (int k = 1; k < n; ++k) {
      const int to = (comm.rank + k) % n, from = (comm.rank - k + n) % n;
      const Block in = recv(from);
      const SourceBlock out = send(to);
      Request r = StartRecv(in.at, in.count, *in.type, from, tag, ctx, comm);
      Request s = StartSend(out.at, out.count, *out.type, to, tag, ctx, comm);
      Waitall({r, s});
    }
    return;
  }
  std::vector<Request> all;
  for (int r = 0; r < n; ++r) {
    if (r == comm.rank) continue;
    const Block in = recv(r);
    all.push_back(StartRecv(in.at, in.count, *in.type, r, tag, ctx, comm));
  }
  for (int k = 1; k < n; ++k) {
    const int r = (comm.rank + k) % n;
    const SourceBlock out = send(r);
    all.push_back(StartSend(out.at, out.count, *out.type, r, tag, ctx, comm));
  }
  Waitall(all);
}

}  // namespace nicsim::mpi
