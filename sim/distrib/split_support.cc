// SPDX-License-Identifier: Apache-2.0
// The list of what a split run supports, in one place, with a message naming the rest.
#include "sim/distrib/split_support.h"

namespace nicsim::sim::distrib {

Status CheckSplitSupported(const ParamValues& params) {
  const std::string& workload = params.String("workload");
  // Other workloads still have global drivers, or stop on a global test after every event
  // (docs/architecture.md, "Event order").
  if (workload != "random_exchange" && workload != "stream" && workload != "mpi_alltoall" &&
      workload != "mpi_collectives" && workload != "mpi_pingpong" && workload != "mpi_program") {
    return Status::Error("workload '" + workload +
                         "' cannot be split over processes yet (mpirun -n K, K > 1): only "
                         "random_exchange, stream, mpi_alltoall, mpi_collectives, mpi_pingpong "
                         "and mpi_program (nicsim mpirun) can; run it without mpirun");
  }
  // func, systemc and rtl: each process's SystemC kernel steps its own adapters' modules,
  // whose work runs in events of their nodes (hw/systemc). The DPDK backend has real ports.
  const std::string& backend = params.String("backend");
  if (backend != "func" && backend != "systemc" && backend != "rtl") {
    return Status::Error("backend '" + backend +
                         "' cannot be split over processes (mpirun -n K, K > 1): only func, "
                         "systemc and rtl can; run it without mpirun");
  }
  return Status();
}

}  // namespace nicsim::sim::distrib
