// SPDX-License-Identifier: Apache-2.0
// Reduce and Allreduce with mpi.reduce=half_rdma: the binomial tree of ReduceBytes, each
// child's contribution moved by half RDMA into its parent's receive FIFO and combined there
// packet by packet (ulp/transport/fifo_reduction.h). The accumulator lives in task memory the
// adapter reads, so a child's contribution leaves without a CPU copy.
#include <cstring>
#include <memory>

#include "base/check.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {

bool Mpi::UseHalfRdma(size_t bytes, const Combiner& combine) const {
  // Contributions from every child are combined in the order their packets come, so the op
  // must commute; its element size says where a packet may split an element.
  return config_.reduce == ReduceTransport::kHalfRdma && combine.commutative &&
         combine.element_bytes > 0 && bytes > 0 && bytes >= config_.half_rdma_min_bytes &&
         bytes <= kAllocMemMaxBytes;
}

void Mpi::HalfRdmaReduceBytes(const uint8_t* in, uint8_t* out, size_t bytes,
                              const Combiner& combine, int root, const Comm& comm) {
  const int n = comm.size();
  const uint32_t ctx = CollContext(comm);
  const uint32_t seq = reduce_seq_[ctx]++;
  if (reduce_area_ == 0) {
    Result<uint64_t> area = host_.MapContiguous(kAllocMemMaxBytes);
    NICSIM_CHECK(area.ok(), "mpi.reduce=half_rdma: rank %d cannot map its accumulator: %s",
                 world_rank_, area.status().message().c_str());
    reduce_area_ = *area;
    reduce_at_ = host_.Contiguous(*area, kAllocMemMaxBytes);
    NICSIM_CHECK(reduce_at_ != nullptr, "mpi.reduce=half_rdma: accumulator not contiguous");
  }
  ++stats_.half_rdma_reductions;
  // The accumulator starts as this rank's own contribution, as in ReduceBytes.
  uint8_t* acc = reduce_at_;
  std::memcpy(acc, in, bytes);
  ulp::FifoReduction& fifo = transport_.fifo_reduction();
  // Every child at once: their clear-to-sends go out now, whether or not the child has its
  // subtree's result yet, and packets are combined as they come, whichever child sent them.
  // The state the callbacks touch is shared: they may outlive an abandoned program's frame.
  auto pending = std::make_shared<size_t>(0);
  const int vr = (comm.rank - root + n) % n;
  int parent = -1;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((vr & mask) != 0) {
      parent = ((vr & ~mask) + root) % n;
      break;
    }
    const int child = vr | mask;
    if (child >= n) continue;
    ++*pending;
    fifo.Expect(
        static_cast<uint32_t>(comm.group->World((child + root) % n)), ctx, seq, bytes,
        static_cast<uint32_t>(combine.element_bytes),
        [acc, apply = combine.apply](uint64_t offset, const uint8_t* data, uint64_t len) {
          apply(acc + offset, data, len);
        },
        [pending] { --*pending; });
  }
  blocker_.BlockUntil([pending] { return *pending == 0; });
  if (parent >= 0) {
    // The adapter reads the accumulator itself; it must stay as it is until the parent has
    // every byte (a retry reads it again).
    auto sent = std::make_shared<bool>(false);
    fifo.Contribute(static_cast<uint32_t>(comm.group->World(parent)), ctx, seq, reduce_area_, bytes,
                    [sent] { *sent = true; });
    blocker_.BlockUntil([sent] { return *sent; });
  }
  if (comm.rank == root) std::memcpy(out, acc, bytes);
}

}  // namespace nicsim::mpi
