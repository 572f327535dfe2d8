// SPDX-License-Identifier: Apache-2.0
// What an MPI job's transports, shared-memory engines and MPI layers counted, summed over its
// ranks (and a split run's processes) for stats.json, and the end-of-workload check that every
// message a transport accepted was delivered once.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "sim/cluster/mpi_job.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

/**
 * At the end of an MPI workload, once the cluster is quiet: every message a transport accepted
 * must have been delivered exactly once (an error is added otherwise); a workload whose
 * messages are the MPI layer's own counts the transports' messages as its own
 * (`count_messages`). Returns the transports' summed counters for stats.json.
 */
nlohmann::json SettleTransports(MpiJob& job, WorkloadResult& out, bool count_messages);

/** The postbox paths' counters summed over the ranks (null when mpi.intranode=adapter). */
nlohmann::json PostboxTotals(const MpiJob& job);

/** The push-pull paths' counters summed over the ranks (null unless mpi.intranode=pushpull). */
nlohmann::json PushPullTotals(const MpiJob& job);

/** The MPI layer's counters summed over the ranks (host copies, zero-copy messages, ...),
 *  with the postbox paths' under "postbox" and the push-pull paths' under "pushpull". In a
 *  split run, over this process's ranks. */
nlohmann::json MpiLayerTotals(MpiJob& job);

/**
 * The MPI layer's counters (MpiLayerTotals). In a run split over processes, first makes this
 * process's verdict figures in `out` the job's (on every process, MergeResults) and returns
 * the counters summed over every process's ranks on rank 0 (elsewhere its own); call it
 * before SettleTransports.
 */
nlohmann::json MergePartitions(MpiJob& job, WorkloadResult& out);

/** In a split run: `bytes` (each process's ranks') summed over every process, and `seconds`
 *  (measured by rank 0, 0 elsewhere) made rank 0's on every process. */
void MergeBytesAndTime(MpiJob& job, uint64_t* bytes, double* seconds);

/** In a split run: `value`, set by a rank of one process (0 on the others), bit for bit on
 *  every process. Otherwise `value`. */
double FromMeasuringProcess(MpiJob& job, double value);

}  // namespace nicsim::sim
