// SPDX-License-Identifier: Apache-2.0
// Reduce and Allreduce with mpi.reduce=half_rdma: the binomial tree of Mpi::ReduceBytes, each
// child's contribution moved by half RDMA into its parent's receive FIFO and combined there
// packet by packet (ulp/transport/fifo_reduction.h). The accumulator lives in task memory the
// adapter reads, so a child's contribution leaves without a CPU copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "hal/task_host.h"
#include "ulp/mpi/blocker.h"
#include "ulp/mpi/datatype.h"
#include "ulp/mpi/group.h"
#include "ulp/transport/fifo_reduction.h"

namespace nicsim::mpi {

class HalfRdmaReduce {
 public:
  /** The accumulator's size: the most bytes one reduction may have. */
  static constexpr size_t kMostBytes = size_t{16} << 20;

  HalfRdmaReduce(hal::TaskHost& host, ulp::FifoReduction& fifo, Blocker& blocker, int world_rank)
      : host_(host), fifo_(fifo), blocker_(blocker), world_rank_(world_rank) {}

  /**
   * True if a reduction of `bytes` with `combine` can go by half RDMA: contributions from every
   * child are combined in the order their packets come, so the op must commute, and its
   * element size says where a packet may split an element. The same on every rank.
   */
  static bool Suits(size_t bytes, const Combiner& combine, uint64_t min_bytes) {
    return combine.commutative && combine.element_bytes > 0 && bytes > 0 && bytes >= min_bytes &&
           bytes <= kMostBytes;
  }

  /**
   * Reduces `bytes` of `in` from every rank of a communicator (`group`, this task being
   * `rank`, collective context `ctx`) to `out` at `root`, over the binomial tree.
   */
  void Run(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine, int root,
           const Group& group, int rank, uint32_t ctx);

 private:
  hal::TaskHost& host_;
  ulp::FifoReduction& fifo_;
  Blocker& blocker_;
  int world_rank_;
  /** Per communicator (collective context): the number of its next reduction (every member
   *  counts the same), which names the contributions. */
  std::map<uint32_t, uint32_t> seq_;
  /** The accumulator: one contiguous area of task memory the adapter reads a contribution
   *  from (mapped on first use; 0: not yet). */
  uint64_t area_ = 0;
  uint8_t* at_ = nullptr;
};

}  // namespace nicsim::mpi
