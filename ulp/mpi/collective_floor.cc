// SPDX-License-Identifier: Apache-2.0
// Each collective's algorithm written out as steps of concurrent messages, and a step timed by
// its busiest node link.
#include "ulp/mpi/collective_floor.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace nicsim::mpi {
namespace {

struct Message {
  int from, to;
  uint64_t bytes;
};
using Step = std::vector<Message>;

class Floor {
 public:
  Floor(int ranks, const LinkModel& link) : ranks_(ranks), link_(link) {}

  /** Adds a step: its messages leave together; it ends when the busiest link has carried
   *  its bytes out of (or into) its node, or the busiest DMA engine has moved what its node
   *  sends and receives, and they have crossed the fabric and been sent and received. */
  void Add(const Step& step) {
    const uint32_t nodes = std::max<uint32_t>(link_.nodes, 1);
    std::vector<uint64_t> out(nodes, 0), in(nodes, 0), dma(nodes, 0);
    bool crosses = false, loops = false;
    for (const Message& m : step) {
      const uint32_t a = static_cast<uint32_t>(m.from) % nodes;
      const uint32_t b = static_cast<uint32_t>(m.to) % nodes;
      if (a == b) {
        // Looped back by the node's adapter (its DMA engine reads and writes the bytes), or
        // through shared memory, taken as free.
        if (link_.intranode_through_adapter) dma[a] += 2 * m.bytes;
        loops |= link_.intranode_through_adapter;
        continue;
      }
      crosses = true;
      out[a] += m.bytes;
      in[b] += m.bytes;
      dma[a] += m.bytes;
      dma[b] += m.bytes;
    }
    if (!crosses && !loops) return;
    const double adapters = std::max<uint32_t>(link_.adapters_per_node, 1);
    uint64_t busiest = 0, busiest_dma = 0;
    for (uint32_t node = 0; node < nodes; ++node) {
      busiest = std::max({busiest, out[node], in[node]});
      busiest_dma = std::max(busiest_dma, dma[node]);
    }
    const double link_ps = static_cast<double>(busiest) / adapters * link_.ps_per_byte;
    const double dma_ps = static_cast<double>(busiest_dma) / adapters * link_.dma_ps_per_byte;
    ps_ += static_cast<uint64_t>(std::ceil(std::max(link_ps, dma_ps))) +
           (crosses ? link_.crossing_ps : 0) + link_.adapter_ps + link_.message_ps;
  }

  void Barrier() {
    for (int k = 1; k < ranks_; k <<= 1) {
      Step s;
      for (int r = 0; r < ranks_; ++r) s.push_back({r, (r + k) % ranks_, 0});
      Add(s);
    }
  }
  /** Binomial tree from rank 0: in step j the ranks below 2^j send to rank + 2^j. */
  void TreeBcast(uint64_t bytes) {
    for (int mask = 1; mask < ranks_; mask <<= 1) {
      Step s;
      for (int r = 0; r < mask && r + mask < ranks_; ++r) s.push_back({r, r + mask, bytes});
      Add(s);
    }
  }
  /** Binomial reduction to rank 0: in step j the ranks whose lowest set bit is 2^j send. */
  void TreeReduce(uint64_t bytes) {
    for (int mask = 1; mask < ranks_; mask <<= 1) {
      Step s;
      for (int r = mask; r < ranks_; r += 2 * mask) s.push_back({r, r - mask, bytes});
      Add(s);
    }
  }
  /** `steps` steps of every rank sending `bytes` to the next. */
  void Ring(int steps, uint64_t bytes) {
    for (int k = 0; k < steps; ++k) {
      Step s;
      for (int r = 0; r < ranks_; ++r) s.push_back({r, (r + 1) % ranks_, bytes});
      Add(s);
    }
  }
  void Bcast(uint64_t bytes) {
    if (!Mpi::RingBcastFor(bytes, ranks_)) {
      TreeBcast(bytes);
      return;
    }
    const uint64_t piece = bytes / static_cast<uint64_t>(ranks_);
    Step scatter;
    for (int r = 1; r < ranks_; ++r) scatter.push_back({0, r, piece});
    Add(scatter);
    Ring(ranks_ - 1, piece);
  }
  void Allgather(uint64_t block) {
    if (Mpi::RingAllgatherFor(block * static_cast<uint64_t>(ranks_))) {
      Ring(ranks_ - 1, block);
      return;
    }
    Step gather;
    for (int r = 1; r < ranks_; ++r) gather.push_back({r, 0, block});
    Add(gather);
    Bcast(block * static_cast<uint64_t>(ranks_));
  }
  void Alltoall(uint64_t block, const MpiConfig& config) {
    if (Mpi::PairwiseExchangeFor(block, config)) {
      // In step k every rank sends to rank + k.
      for (int k = 1; k < ranks_; ++k) {
        Step s;
        for (int r = 0; r < ranks_; ++r) s.push_back({r, (r + k) % ranks_, block});
        Add(s);
      }
      return;
    }
    Step s;
    for (int r = 0; r < ranks_; ++r) {
      for (int d = 0; d < ranks_; ++d) {
        if (d != r) s.push_back({r, d, block});
      }
    }
    Add(s);
  }

  uint64_t ps() const { return ps_; }

 private:
  int ranks_;
  LinkModel link_;
  uint64_t ps_ = 0;
};

}  // namespace

std::optional<uint64_t> CollectiveFloorPs(CollectiveKind kind, size_t bytes, int ranks,
                                          const LinkModel& link, const MpiConfig& config) {
  if (config.bcast != CollectiveTransport::kPointToPoint ||
      config.reduce != ReduceTransport::kPointToPoint) {
    return std::nullopt;
  }
  Floor f(ranks, link);
  switch (kind) {
    case CollectiveKind::kBarrier:
      f.Barrier();
      break;
    case CollectiveKind::kBcast:
      f.Bcast(bytes);
      break;
    case CollectiveKind::kAllreduce:
      if (Mpi::RingAllreduceFor(bytes, ranks, Combiner::Of(Op::kSum, Base::kInt32), config)) {
        f.Ring(2 * (ranks - 1), bytes / static_cast<uint64_t>(ranks));
      } else {
        f.TreeReduce(bytes);
        f.Bcast(bytes);
      }
      break;
    case CollectiveKind::kAllgather:
      f.Allgather(bytes);
      break;
    case CollectiveKind::kAlltoall:
      f.Alltoall(bytes, config);
      break;
  }
  return f.ps();
}

uint64_t RoundTripFloorPs(const LinkModel& link, uint64_t bytes, uint64_t answer_bytes) {
  LinkModel two_nodes = link;
  two_nodes.nodes = 2;
  two_nodes.adapters_per_node = 1;
  Floor f(2, two_nodes);
  f.Add({{0, 1, bytes}});
  f.Add({{1, 0, answer_bytes}});
  return f.ps();
}

}  // namespace nicsim::mpi
