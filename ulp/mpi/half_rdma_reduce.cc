// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/half_rdma_reduce.h"

#include <cstring>
#include <memory>

#include "base/check.h"

namespace nicsim::mpi {

void HalfRdmaReduce::Run(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine,
                         int root, const Group& group, int rank, uint32_t ctx) {
  const int n = group.size();
  const uint32_t seq = seq_[ctx]++;
  if (area_ == 0) {
    Result<uint64_t> area = host_.MapContiguous(kMostBytes);
    NICSIM_CHECK(area.ok(), "mpi.reduce=half_rdma: rank %d cannot map its accumulator: %s",
                 world_rank_, area.status().message().c_str());
    area_ = *area;
    at_ = host_.Contiguous(*area, kMostBytes);
    NICSIM_CHECK(at_ != nullptr, "mpi.reduce=half_rdma: accumulator not contiguous");
  }
  // The accumulator starts as this rank's own contribution, as in ReduceBytes.
  uint8_t* acc = at_;
  std::memcpy(acc, in, bytes);
  // Every child at once: their clear-to-sends go out now, whether or not the child has its
  // subtree's result yet, and packets are combined as they come, whichever child sent them.
  // The state the callbacks touch is shared: they may outlive an abandoned program's frame.
  auto pending = std::make_shared<size_t>(0);
  const int vr = (rank - root + n) % n;
  int parent = -1;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((vr & mask) != 0) {
      parent = ((vr & ~mask) + root) % n;
      break;
    }
    const int child = vr | mask;
    if (child >= n) continue;
    ++*pending;
    fifo_.Expect(
        static_cast<uint32_t>(group.World((child + root) % n)), ctx, seq, bytes,
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
    fifo_.Contribute(static_cast<uint32_t>(group.World(parent)), ctx, seq, area_, bytes,
                     [sent] { *sent = true; });
    blocker_.BlockUntil([sent] { return *sent; });
  }
  if (rank == root) std::memcpy(out, acc, bytes);
}

}  // namespace nicsim::mpi
