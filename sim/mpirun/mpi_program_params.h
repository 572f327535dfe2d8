// SPDX-License-Identifier: Apache-2.0
// `nicsim mpirun`'s parameters: how a program's computing between calls counts.
#pragma once

#include "base/params.h"
#include "sim/mpirun/mpi_program_config.h"

namespace nicsim::sim {

inline const ParamDecls<MpiProgramConfig>& MpiProgramParams() {
  using C = MpiProgramConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Enum("mpi.compute", &C::compute,
                  {{ComputeMode::kIgnore, "ignore"}, {ComputeMode::kMeasured, "measured"}},
                  "nicsim mpirun: what a rank's computing between two MPI calls costs in simulated "
                  "time: ignore (nothing; deterministic) or measured (the host CPU time it took, "
                  "scaled by mpi.compute_scale; varies from run to run)")
           .Int("mpi.compute_scale", &C::compute_scale_percent, 1, 1000000,
                "nicsim mpirun, mpi.compute=measured: simulated time per host CPU time, in percent "
                "(200: the simulated CPU is half as fast as this host)")
           .Duration("mpi.wall_limit", &C::wall_limit_ps,
                     "nicsim mpirun: wall-clock time the program run may take (0: no limit, unless "
                     "MPIEXEC_TIMEOUT gives one in seconds); a rank still running then is killed "
                     "and the run fails naming it")
           .Enum("mpi.cpu", &C::share_cpu, {{true, "shared"}, {false, "any"}},
                 "nicsim mpirun: where nicsim and the rank processes run: shared (all on the "
                 "least busy CPU, as only one of them runs at a time: each hand-off is one "
                 "context switch) or any (the scheduler places them, and each end of a rank's "
                 "channel spins up to 20 us before it sleeps: for ranks that start threads)");
  return *decls;
}

}  // namespace nicsim::sim
