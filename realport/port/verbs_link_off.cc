// SPDX-License-Identifier: Apache-2.0
// `nicsim port --verbs` in a build without the verbs backend: says so (exit 2, as for bad
// input). The real link is realport/port/verbs_link.cc, chosen by CMake when libibverbs is found.
#include "realport/port/link.h"

namespace nicsim::sim {

Result<std::unique_ptr<CommandLink>> OpenVerbsLink(const PortCommandOptions& /*options*/,
                                                   PortClock::time_point /*deadline*/) {
  return Status::Error(
      "--verbs: this nicsim was built without the verbs backend (apt-get install "
      "libibverbs-dev, then reconfigure)");
}

}  // namespace nicsim::sim
