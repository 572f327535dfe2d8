// SPDX-License-Identifier: Apache-2.0
// dlm_blocks: a lock-manager style block service whose blocks move by third-party RDMA
// (ulp::BlockServiceNode): its parameters, its run and the host memory it needs.
#pragma once

#include <cstdint>

#include "sim/workloads/workload.h"
#include "ulp/dlm/block_service.h"

namespace nicsim::sim {

/** The block service's shape and load (ulp::BlockServiceConfig plus the requests). */
struct DlmBlocksConfig {
  ulp::BlockTransfer transfer = ulp::BlockTransfer::kThirdParty;
  uint32_t blocks = 64;
  uint64_t block_size = 64 << 10;
  uint64_t requests = 200;
  uint32_t slots = 2;
  uint64_t timeout_ps = 1'000'000'000;
  uint32_t max_tries = 64;
};

/**
 * Window 0 of the first adapter of every node runs one service node. Request i asks for a
 * seeded random block on a seeded random node that neither manages nor owns it; each block
 * that arrives is checked byte for byte against the pattern its owner wrote.
 */
Result<WorkloadResult> RunDlmBlocks(Cluster& cluster, const DlmBlocksConfig& config);
/** Host memory per node the service's blocks and landing slots need. */
uint64_t DlmBlocksHostBytes(const DlmBlocksConfig& config, uint32_t nodes);

}  // namespace nicsim::sim
