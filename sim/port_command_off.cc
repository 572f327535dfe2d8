// SPDX-License-Identifier: Apache-2.0
// `nicsim port` in a build without the DPDK backend: says so and exits as for bad input.
// The real command is sim/port_command.cc, chosen by CMake when DPDK is found.
#include <cstdio>

#include "base/status.h"
#include "sim/port_command.h"

namespace nicsim::sim {

int PortCommand(const PortCommandOptions& /*options*/) {
  std::fprintf(stderr,
               "nicsim port: this nicsim was built without the DPDK backend "
               "(apt-get install libdpdk-dev, then reconfigure)\n");
  return Status::kBadInputExit;
}

}  // namespace nicsim::sim
