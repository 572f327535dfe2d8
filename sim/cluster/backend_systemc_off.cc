// SPDX-License-Identifier: Apache-2.0
// Stands in for the SystemC backend in builds without SystemC: says so, and how to get it.
#include "sim/cluster/backend.h"

namespace nicsim::sim {

Result<std::unique_ptr<Backend>> MakeSystemcBackend(const ClusterConfig&, bool rtl) {
  return Status::Error(std::string("backend: '") + (rtl ? "rtl" : "systemc") +
                       "' is not built (configure with WITH_SYSTEMC=ON and libsystemc-dev)");
}

}  // namespace nicsim::sim
