// SPDX-License-Identifier: Apache-2.0
// What a split run (mpirun -n K, K > 1) can run so far, checked before anything is built.
#pragma once

#include "base/status.h"
#include "sim/config/param_table.h"

namespace nicsim::sim::distrib {

/**
 * An error naming what is not split-ready yet, or ok: a split run supports the workloads
 * random_exchange and mpi_alltoall on the func backend, without ulp.eager_rdma (with
 * --trace, --timeline and --pcap).
 */
Status CheckSplitSupported(const ParamValues& params);

}  // namespace nicsim::sim::distrib
