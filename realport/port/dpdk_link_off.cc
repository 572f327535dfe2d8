// SPDX-License-Identifier: Apache-2.0
// `nicsim port --eal` in a build without the DPDK backend: says so (exit 2, as for bad input).
// The real link is realport/port/dpdk_link.cc, chosen by CMake when DPDK is found.
#include "realport/port/link.h"

namespace nicsim::sim {

Result<std::unique_ptr<CommandLink>> OpenDpdkLink(const PortCommandOptions& /*options*/) {
  return Status::Error(
      "--eal: this nicsim was built without the DPDK backend (apt-get install libdpdk-dev, then "
      "reconfigure)");
}

}  // namespace nicsim::sim
