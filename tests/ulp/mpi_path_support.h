// SPDX-License-Identifier: Apache-2.0
// Shared by the tests of MPI's intranode paths (mpi_postbox_test.cc,
// mpi_pushpull_path_test.cc): message patterns, settling the cluster, transport counts.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim::testing_paths {

/** Bytes of message `index` from `from`: differ in every byte position, message and sender. */
inline std::vector<uint8_t> Pattern(size_t size, int from, int index) {
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i) {
    v[i] = static_cast<uint8_t>(i * 131 + static_cast<size_t>(from) * 17 +
                                static_cast<size_t>(index) * 7 + 1);
  }
  return v;
}

/** Runs what the ranks left behind (the last wake-ups) until nothing is left. */
inline void Settle(MpiJob& job) {
  job.cluster().events().RunWhile([] { return true; });
}

/** Messages the ranks' transports accepted (none, for messages that stayed on a node). */
inline uint64_t TransportMessages(MpiJob& job) {
  uint64_t sent = 0;
  for (uint32_t r = 0; r < job.ranks(); ++r) sent += job.transport(r).stats().messages_sent;
  return sent;
}

}  // namespace nicsim::sim::testing_paths
