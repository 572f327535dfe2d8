// SPDX-License-Identifier: Apache-2.0
// The choices a run makes before any component is built: the machine preset and the workload.
#pragma once

#include <string>

#include "base/params.h"

namespace nicsim::sim {

/** What a scenario runs; the chosen workload's own parameters are declared with it. */
struct RunChoices {
  std::string preset = "hps";
  std::string workload = "pingpong_sweep";
};

inline const ParamDecls<RunChoices>& RunChoiceParams() {
  using C = RunChoices;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Enum("preset", &C::preset, {{"hps", "hps"}, {"pushpull-fe", "pushpull-fe"}},
                  "Machine to model; sets link, DMA, MMIO and host timing (keys set after it win): "
                  "hps = HPS-like adapter, pushpull-fe = Push-Pull's 100 Mb/s PC cluster")
           .Enum("workload", &C::workload,
                 {{"pingpong_sweep", "pingpong_sweep"},
                  {"stream", "stream"},
                  {"random_exchange", "random_exchange"},
                  {"rdma_sweep", "rdma_sweep"},
                  {"dlm_blocks", "dlm_blocks"},
                  {"ip_exchange", "ip_exchange"},
                  {"close_under_load", "close_under_load"},
                  {"recovery_under_load", "recovery_under_load"},
                  {"mpi_pingpong", "mpi_pingpong"},
                  {"mpi_collectives", "mpi_collectives"},
                  {"mpi_alltoall", "mpi_alltoall"},
                  {"mpi_one_sided", "mpi_one_sided"},
                  {"mpi_program", "mpi_program"}},
                 "Traffic to run: ping-pong latency sweep, one-way stream, random exchange, RDMA "
                 "sweep, a block service moving blocks by third-party RDMA, IP datagrams over the "
                 "adapter (ip_exchange), a stream interrupted by a window close or an adapter "
                 "recovery, or an MPI "
                 "job (ping-pong latency and bandwidth, collective timings, random all-to-all, a "
                 "complete exchange by one-sided puts against alltoall and a ring halo exchange "
                 "by puts against sends and receives, or a program of the user's: nicsim "
                 "mpirun sets mpi_program)");
  return *decls;
}

}  // namespace nicsim::sim
