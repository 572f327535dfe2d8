// SPDX-License-Identifier: Apache-2.0
// The workload of `nicsim mpirun`: every rank of the job runs the user's MPI program as a
// process of its own (so each has its own globals), and the rank's context in the simulator
// serves that process's MPI calls. Only one of them runs at a time (the simulator waits for
// the program's next call, the program for the reply), so a run is deterministic for a seed
// as long as the program is (and mpi.compute=ignore).
#pragma once

#include <string>

#include "base/status.h"
#include "sim/cluster/mpi_job.h"
#include "sim/mpirun/mpi_program_config.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

Result<WorkloadResult> RunMpiProgram(MpiJob& job, const MpiProgramConfig& config);

}  // namespace nicsim::sim
