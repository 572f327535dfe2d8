// SPDX-License-Identifier: Apache-2.0
// What a rank's MPI layer counts (stats.json's workload.mpi, summed over ranks).
#pragma once

#include <cstdint>

namespace nicsim::mpi {

struct MpiStats {
  uint64_t eager_sends = 0;
  uint64_t rendezvous_sends = 0;
  /** Rendezvous sends to other nodes that waited in this layer for a clear to send (past
   *  announced_staging_bytes, or no staging memory), instead of being announced. */
  uint64_t rendezvous_by_request = 0;
  uint64_t unexpected = 0;
  uint64_t unexpected_peak = 0;
  /** Times a message had to wait for staging memory. */
  uint64_t staging_waits = 0;
  /** CPU copies of message data this layer made (packing, staging, unpacking), and bytes. */
  uint64_t host_copies = 0;
  uint64_t host_copy_bytes = 0;
  /** Rendezvous messages sent from, or landed in, the program's own buffer (no copy). */
  uint64_t zero_copy_sends = 0;
  uint64_t zero_copy_receives = 0;
  /** Broadcasts and barriers that went by multicast, and groups formed for them. */
  uint64_t multicast_bcasts = 0;
  uint64_t multicast_barriers = 0;
  uint64_t multicast_groups = 0;
  /** Reduce and Allreduce calls whose contributions moved by half RDMA (mpi.reduce). */
  uint64_t half_rdma_reductions = 0;
  /** Messages (eager, requests and clears to send, rendezvous data) sent through the
   *  intranode path rather than the transport. */
  uint64_t intranode_messages = 0;
  /** Push-pull (mpi.internode=pushpull): push messages sent (first and second), bytes
   *  pushed, bytes sent after the acknowledgement (pulled), second pushes (sent before the
   *  ack could come back), and receives matched at the first push (early) or after it (late). */
  uint64_t pushpull_pushes = 0;
  uint64_t pushpull_pushed_bytes = 0;
  uint64_t pushpull_pulled_bytes = 0;
  uint64_t pushpull_second_pushes = 0;
  uint64_t pushpull_early_receivers = 0;
  uint64_t pushpull_late_receivers = 0;
  /** One-sided: puts, gets and accumulates started; transfers that moved by RDMA between the
   *  origin's buffer and the window with no CPU copy; operations outside their window
   *  (nothing written). */
  uint64_t rma_puts = 0;
  uint64_t rma_gets = 0;
  uint64_t rma_accumulates = 0;
  uint64_t rma_in_place = 0;
  uint64_t rma_refused = 0;
};

}  // namespace nicsim::mpi
