// SPDX-License-Identifier: Apache-2.0
// ip_exchange: every node runs an IP interface (ulp/ip/) on window 0 of its first adapter and
// sends seeded random datagrams: small and large unicast, and broadcasts.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "sim/cluster/cluster.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

struct IpExchangeConfig {
  /** Datagrams sent in total (spread over the nodes). */
  uint64_t datagrams = 2000;
  /** Largest datagram payload in bytes. */
  uint64_t max_size = 16384;
  /** Share of the datagrams sent to the broadcast address, in percent. */
  uint32_t broadcast_percent = 10;
  /** ip.reassembly_timeout. */
  uint64_t reassembly_timeout_ps = 10'000'000'000;
  /** Unicast datagrams with more payload than this go by RDMA (65515: none). */
  uint64_t rdma_threshold = 8192;
  /** RDMA source and landing slots per interface. */
  uint32_t rdma_slots = 16;
};

/** Host memory per node the run needs (ClusterConfig::rdma_host_bytes: each node's task has an
 *  address space, for its timers and later RDMA buffers). */
inline uint64_t IpExchangeHostBytes() { return uint64_t{64} << 20; }

/**
 * Runs the exchange. Every datagram's bytes are checked at every receiver. With no fabric
 * fault configured, each must arrive exactly once at each of its receivers; with faults
 * (fabric.loss, fabric.corrupt, fault rules, planes down) a datagram may be missing (counted
 * as lost to faults), but a wrong or second copy always fails the run.
 */
Result<WorkloadResult> RunIpExchange(Cluster& cluster, const IpExchangeConfig& config);

}  // namespace nicsim::sim
