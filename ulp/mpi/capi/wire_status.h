// SPDX-License-Identifier: Apache-2.0
// Statuses of the C binding's operations as the simulator reports them, and the request ids
// that stand for "nothing to wait for" and "inactive": shared by the point-to-point calls and
// the completion calls.
#pragma once

#include <cstdint>

#include "ulp/mpi/capi/client.h"
#include "ulp/mpi/capi/wire.h"

namespace nicsim::mpi::capi {

/** A server request id that stands for "nothing to wait for" (a request with MPI_PROC_NULL). */
inline constexpr uint64_t kDone = 0;
/** An inactive entry (MPI_REQUEST_NULL) in a list of requests. */
inline constexpr uint64_t kInactive = ~uint64_t{0};

/** A completed operation's status as the binding keeps it. */
struct WireStatus {
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  uint64_t bytes = 0;
  bool truncated = false;
  bool cancelled = false;
  /** A generalized request's query or free callback failed with this code. */
  int error = MPI_SUCCESS;
};

/** A status as the simulator's reply carries it. */
inline WireStatus ReadStatus(wire::Reader& r) {
  WireStatus s;
  s.source = r.Get<int32_t>();
  s.tag = r.Get<int32_t>();
  s.bytes = r.Get<uint64_t>();
  const auto flags = r.Get<uint8_t>();
  s.truncated = (flags & 1) != 0;
  s.cancelled = (flags & 2) != 0;
  return s;
}

/** The program's MPI_Status (none with MPI_STATUS_IGNORE) from `s`. */
inline void Fill(MPI_Status* status, const WireStatus& s) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = s.source;
  status->MPI_TAG = s.tag;
  status->MPI_ERROR = s.truncated ? MPI_ERR_TRUNCATE : s.error;
  status->nicsim_cancelled = s.cancelled;
  status->nicsim_bytes = static_cast<long long>(s.bytes);
}

/** The status of a receive from MPI_PROC_NULL, or of an inactive request. */
inline WireStatus Empty(int source) { return WireStatus{source, MPI_ANY_TAG, 0, false, false}; }

}  // namespace nicsim::mpi::capi
