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

inline const Datatype kByte = Datatype::Of(Base::kByte);

inline Status NeedRanks(MpiJob& job, uint32_t n, const char* what) {
  if (job.ranks() < n) {
    return Status::Error(
        fmt::format("{} needs at least {} ranks, the job has {}", what, n, job.ranks()));
  }
  return Status();
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
