// SPDX-License-Identifier: Apache-2.0
// Checks of the workload parameters that depend on other parameters (a payload against the
// largest single-packet payload of the cache line, ranks against what an MPI workload needs),
// made before a run starts so that errors can say where the value was written.
#pragma once

#include "base/status.h"
#include "sim/config/scenario.h"

namespace nicsim::sim {

/**
 * Checks the parameters of the workload the scenario selects (only that one's), as the
 * workload itself would once running. Every message starts with the parameter at fault (of
 * two whose product is too large, the one the scenario set), so LocateParamError can put where
 * it was written in front: "exchange.max_size: 65535 exceeds the largest single-packet payload
 * 2032". The workloads keep their own checks.
 */
Status CheckWorkloadParams(const Scenario& scenario);

}  // namespace nicsim::sim
