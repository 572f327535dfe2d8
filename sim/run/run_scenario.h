// SPDX-License-Identifier: Apache-2.0
// Running a scenario: build the cluster from its parameters, run its workload, print the
// summary and write stats.json.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cluster/mpi_job.h"

#include "base/status.h"
#include "sim/cluster/cluster.h"
#include "sim/config/scenario.h"
#include "sim/distrib/collectives.h"
#include "sim/observe/trace_selection.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

/** Maps scenario parameters onto a cluster configuration; errors name the parameter. */
Result<ClusterConfig> ClusterConfigFromParams(const ParamValues& params);
/** An MPI job's configuration (cluster, ranks, transport, MPI) from validated parameters. */
Result<MpiJobConfig> MpiJobConfigFromParams(const ParamValues& params);

/** What a run produced. */
struct RunOutcome {
  WorkloadResult workload;
  nlohmann::json stats;
  /** False on the processes of a split run other than rank 0: rank 0 writes and prints. */
  bool writes_outputs = true;
  /** A split run's synchronisation figures (processes, windows, frames between partitions). */
  std::string split_summary;
};
/** Options that are not scenario parameters. */
struct RunOptions {
  /** Write every firmware trace event to this file (empty: no trace). */
  std::string trace_path;
  /** Create trace_path as a new file, never following a symlink (TraceWriter::Open::kCreateNew). */
  bool trace_create_new = false;
  /** Which events the --trace file keeps ("adapter=1,window=0,kind=rx|tx"; empty: all). */
  std::string trace_filter;
  /** Write a Chrome trace-event JSON timeline (ui.perfetto.dev) to this file (empty: none). */
  std::string timeline_path;
  /** Write a pcapng capture of every frame the fabric delivers to this file (empty: none). */
  std::string pcap_path;
  /**
   * What the timeline and the capture keep (--trace-window, --trace-adapters, --sample); an
   * adapter listed beyond the cluster's is an error.
   */
  TraceSelection selection;
  /** The program workload mpi_program runs on every rank, and its arguments (nicsim mpirun). */
  std::vector<std::string> program;
  /**
   * The processes of a split run (`mpirun -n K nicsim run`, K > 1): this process runs
   * partition world->rank() of the nodes. nullptr: an ordinary run. Not owned.
   */
  distrib::Collectives* world = nullptr;
  /**
   * After a successful run, leave the cluster (and the MPI job) for the process's exit
   * instead of destroying them: `nicsim run` ends right after, and tearing down a large
   * cluster object by object takes a tenth of its run. Never under a leak checker; func
   * backend only (the SystemC backends close their waveform files on destruction).
   */
  bool leave_model_to_exit = false;
};
/** Runs the scenario's workload on a fresh cluster. */
Result<RunOutcome> RunScenario(const Scenario& scenario, const RunOptions& options = {});

/** Builds stats.json: the DESIGN.md contract fields plus counters and the params echo. */
/** What one process of a split run counts in its stats (StatsScope{} : everything). */
struct StatsScope {
  /** Count only the adapters and host memory of these nodes (one byte per node); nullptr: all. */
  const std::vector<uint8_t>* local_nodes = nullptr;
  /** The run's simulated end time, if not this process's queue's (a split run's latest). */
  uint64_t now_ps = UINT64_MAX;
};

nlohmann::json BuildStats(Cluster& cluster, const Scenario& scenario, const WorkloadResult& result,
                          double wall_time_s, const StatsScope& scope = {});

}  // namespace nicsim::sim
