// SPDX-License-Identifier: Apache-2.0
// What a split run (mpirun -n K, K > 1) can run so far, checked before anything is built.
#pragma once

#include "base/status.h"
#include "sim/config/param_table.h"

namespace nicsim::sim::distrib {

/**
 * An error naming what is not split-ready yet, or ok: a split run supports the workload
 * random_exchange on the func backend, with --trace and --pcap but without --timeline
 * (`has_timeline`), whose per-process records are not merged yet.
 */
Status CheckSplitSupported(const ParamValues& params, bool has_timeline);

}  // namespace nicsim::sim::distrib
