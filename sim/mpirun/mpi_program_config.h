// SPDX-License-Identifier: Apache-2.0
// What `nicsim mpirun` runs: the program and how its computing between calls counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nicsim::sim {

/** How a rank's computing between two MPI calls passes in simulated time (mpi.compute). */
enum class ComputeMode {
  /** It takes no simulated time: only communication does (deterministic). */
  kIgnore,
  /** The host CPU time it took, times mpi.compute_scale (as SMPI's host speed). */
  kMeasured,
};

struct MpiProgramConfig {
  /** The program and its arguments (argv[0] a path). */
  std::vector<std::string> argv;
  ComputeMode compute = ComputeMode::kIgnore;
  /** Simulated time per host CPU time, in percent (kMeasured). */
  uint32_t compute_scale_percent = 100;
  /** Wall-clock time a program run may take, in picoseconds (0: no limit; then
   *  MPIEXEC_TIMEOUT, in seconds, if set). */
  uint64_t wall_limit_ps = 0;
  /** nicsim and the rank processes share one CPU (mpi.cpu=shared), else the scheduler places
   *  them and each end of a rank's channel spins a while before it sleeps (mpi.cpu=any). */
  bool share_cpu = true;
};

}  // namespace nicsim::sim
