// SPDX-License-Identifier: Apache-2.0
// The one place that knows every component with parameters: it gathers their declarations
// for the parameter table (CatalogParams(), declared in sim/config/param_table.h).
#include "sim/config/param_table.h"

#include "sim/cluster/cluster_params.h"
#include "sim/cluster/mpi_job_params.h"
#include "sim/config/run_params.h"
#include "sim/mpirun/mpi_program_params.h"
#include "realport/port/command_params.h"
#include "sim/workloads/workload_params.h"

namespace nicsim::sim {

std::vector<ParamSpec> CatalogParams() {
  std::vector<ParamSpec> table;
  auto add = [&table](std::vector<ParamSpec> specs) {
    for (ParamSpec& spec : specs) table.push_back(std::move(spec));
  };
  add(RunChoiceParams().Specs());
  add(ClusterParams().Specs());
  add(PingPongParams().Specs());
  add(StreamParams().Specs());
  add(ExchangeParams().Specs());
  add(LifecycleParams().Specs());
  add(MpiJobParams().Specs());
  add(MpiPingPongParams().Specs());
  add(MpiCollectivesParams().Specs());
  add(MpiAlltoallParams().Specs());
  add(MpiProgramParams().Specs());
  add(RdmaSweepParams().Specs());
  add(DlmBlocksParams().Specs());
  add(IpExchangeParams().Specs());
  add(PortParams().Specs());
  return table;
}

}  // namespace nicsim::sim
