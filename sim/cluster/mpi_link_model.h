// SPDX-License-Identifier: Apache-2.0
// What an MPI job's messages cost on its cluster, as the collective floors and the first
// retransmit timeout read it (ulp/mpi/collective_floor.h).
#pragma once

#include <cstdint>

#include "sim/cluster/mpi_job.h"
#include "ulp/mpi/collective_floor.h"

namespace nicsim::sim {

/** The link, adapter, fabric and host costs of `job` on its cluster. */
mpi::LinkModel LinkModelOf(const MpiJobConfig& job);

/**
 * The retransmit timeout of a rank's first packet, before any round trip is measured: what a
 * first sample of the idle round trip of a full packet (`packet_bytes`) and its
 * acknowledgement would give (three times it: the mean and four half-mean deviations), at
 * least the transport's rto_min_ps.
 */
uint64_t FirstTimeoutPs(const MpiJobConfig& job, uint32_t packet_bytes);

}  // namespace nicsim::sim
