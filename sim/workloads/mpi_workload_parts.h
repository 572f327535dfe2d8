// SPDX-License-Identifier: Apache-2.0
// What the MPI workloads share: the byte datatype, the rank-count check, and counting a
// message sent or received (its bytes checked against the pattern of its key).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "sim/cluster/mpi_job.h"
#include "sim/workloads/workload.h"
#include "ulp/mpi/datatype.h"

namespace nicsim::sim::mpi_workload {

using mpi::Base;
using mpi::Datatype;

inline Status NeedRanks(MpiJob& job, uint32_t n, const char* what) {
  if (job.ranks() < n) {
    return Status::Error(
        fmt::format("{} needs at least {} ranks, the job has {}", what, n, job.ranks()));
  }
  return Status();
}

/**
 * `per_rank` bytes of buffers held by each of `ranks` ranks at once, plus `shared`, in the
 * simulator's own memory: saturating at UINT64_MAX.
 */
inline uint64_t BufferPlanBytes(uint64_t ranks, uint64_t per_rank, uint64_t shared = 0) {
  uint64_t total = 0;
  if (__builtin_mul_overflow(ranks, per_rank, &total) ||
      __builtin_add_overflow(total, shared, &total)) {
    return UINT64_MAX;
  }
  return total;
}

/**
 * A workload's own buffers (its ranks' send and receive buffers) count against
 * host.touched_limit as the simulated memory does: a plan that would pass it stops the run
 * before it starts (the workload stalls with this error: exit 1, stats.json written), rather
 * than growing until the machine kills it.
 */
inline Status CheckBufferPlan(MpiJob& job, uint64_t bytes, const std::string& what) {
  const uint64_t limit = job.cluster().config().touched_limit_bytes;
  if (bytes <= limit) return Status();
  return Status::Error(fmt::format(
      "{} would hold {} bytes of buffers in its ranks at once, more than host.touched_limit "
      "({} bytes): fewer ranks or smaller messages, or a larger limit",
      what, bytes, limit));
}

/** One message a rank sent, counted where it is sent. */
inline void CountSent(WorkloadResult& out) { ++out.messages_sent; }

/**
 * One message received: delivered if its `len` bytes hold the pattern of `key`, else damaged
 * (`what()` names it). Ranks run one at a time, so they share `out` without a lock.
 */
template <typename What>
void CheckReceived(WorkloadResult& out, const uint8_t* data, size_t len, uint64_t key,
                   What&& what) {
  if (CheckPattern(data, static_cast<uint32_t>(len), key)) {
    ++out.messages_delivered;
    out.bytes_delivered += len;
    return;
  }
  ++out.messages_damaged;
  out.AddError(what() + " arrived damaged");
}

/** The value element j of rank `from`'s block for rank `to` holds in the collectives' checks. */
inline int32_t AlltoallValue(int from, int to, size_t j) {
  return static_cast<int32_t>(
      ((static_cast<uint64_t>(from) << 40) ^ (static_cast<uint64_t>(to) << 20) ^ j) % 2147483647);
}

}  // namespace nicsim::sim::mpi_workload
