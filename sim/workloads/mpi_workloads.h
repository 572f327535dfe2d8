// SPDX-License-Identifier: Apache-2.0
// MPI workloads: ping-pong latency with one-way and bidirectional bandwidth per size,
// collective timings, and random all-to-all traffic with every byte checked.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cluster/mpi_job.h"
#include "sim/workloads/collective_selection.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

struct MpiPingPongConfig {
  std::vector<int64_t> sizes = {0, 8, 1024, 65536, 1048576, 4194304};
  /** Timed round trips per size (after a few untimed warm-up ones). */
  uint32_t iterations = 50;
  /** Bandwidth: messages per size, `window` of them in flight at once. */
  uint32_t bandwidth_messages = 16;
  uint32_t window = 8;
  /** Buffers from Mpi::AllocMem: large messages go from and land in them without copies. */
  bool zero_copy = false;
  /**
   * Pairs of ranks (2k, 2k + 1) that run the ping-pong at the same time; the latency is their
   * mean, the bandwidth columns are pair 0's.
   */
  uint32_t pairs = 1;
  /**
   * Latency rounds: each receive is posted, then the rank computes this long (its CPU busy),
   * then waits for the message; 0: a plain blocking receive.
   */
  uint64_t compute_ps = 0;
};
/**
 * Ranks 0 and 1 (and further pairs): latency (half round trip), one-way and bidirectional
 * bandwidth per size.
 */
Result<WorkloadResult> RunMpiPingPong(MpiJob& job, const MpiPingPongConfig& config);

struct MpiCollectivesConfig {
  std::vector<int64_t> sizes;
  uint32_t iterations = 10;
  /** Which collectives are timed; the others are left out (a '-' in the table). */
  CollectiveSelection timed = {true, true, true, true, true};
};
/** Mean time per call of the timed collectives (barrier, bcast, allreduce, allgather,
 *  alltoall) per size. */
Result<WorkloadResult> RunMpiCollectives(MpiJob& job, const MpiCollectivesConfig& config);

struct MpiAlltoallConfig {
  /** Messages each rank sends, to random ranks, of random sizes up to max_size. */
  uint32_t messages_per_rank = 200;
  int64_t max_size = 1 << 20;
  /**
   * Above 0: a complete exchange instead (each rank sends one message to every other rank, in
   * pairwise steps: in step k rank r sends to (r + k) % n and receives from (r - k) % n); this
   * fraction of the rank pairs exchange max_size bytes both ways, the others small_size.
   */
  double large_pairs = 0;
  int64_t small_size = 256;
  /** Complete exchange: how many times every pair exchanges its messages (later rounds find
   *  the transport's connections made). */
  uint32_t rounds = 1;
  /** Complete exchange: steps of the pairwise schedule a rank has in flight (0: all). */
  uint32_t window = 0;
};
/** Random all-to-all traffic; every message's bytes are checked at the receiver. */
Result<WorkloadResult> RunMpiRandomAlltoall(MpiJob& job, const MpiAlltoallConfig& config);

struct MpiOneSidedConfig {
  /** Bytes each rank sends every other rank per exchange. */
  std::vector<int64_t> sizes;
  /** Exchanges timed per size, each way. */
  uint32_t rounds = 10;
};
/**
 * A complete exchange by one-sided puts (into every other rank's window, then a fence)
 * against the same exchange by Alltoall, and a ring halo exchange by puts and a fence against
 * Isend/Irecv, per size: the time of each and their ratios; every block checked.
 */
Result<WorkloadResult> RunMpiOneSided(MpiJob& job, const MpiOneSidedConfig& config);

}  // namespace nicsim::sim
