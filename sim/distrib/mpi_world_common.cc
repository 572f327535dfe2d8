// SPDX-License-Identifier: Apache-2.0
// What both builds share: how a split run is detected (Open MPI's environment), without
// touching MPI, so an ordinary run never initialises it.
#include <cstdlib>

#include "sim/distrib/mpi_world.h"

namespace nicsim::sim::distrib {

uint32_t MpiWorld::RequestedSize() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size == nullptr) return 1;
  const long k = std::strtol(size, nullptr, 10);
  return k > 1 ? static_cast<uint32_t>(k) : 1;
}

double MpiWorld::TimeoutSeconds() {
  const char* seconds = std::getenv("NICSIM_SPLIT_TIMEOUT_S");
  const double s = seconds == nullptr ? 0 : std::strtod(seconds, nullptr);
  return s > 0 ? s : 120;
}

}  // namespace nicsim::sim::distrib
