// SPDX-License-Identifier: Apache-2.0
// The stand-in when nicsim is built without MPI: a split run is refused as bad input.
#include "sim/distrib/mpi_world.h"

namespace nicsim::sim::distrib {

bool MpiWorld::Available() { return false; }

Result<std::unique_ptr<MpiWorld>> MpiWorld::Init(double) {
  return Status::Error(
      "this nicsim was built without MPI (WITH_MPI=OFF or libopenmpi-dev "
      "missing): it cannot split a run over mpirun's processes");
}

MpiWorld::~MpiWorld() = default;
std::vector<std::vector<uint8_t>> MpiWorld::Exchange(const std::vector<std::vector<uint8_t>>&) {
  return {};
}
uint64_t MpiWorld::Min(uint64_t v) { return v; }
uint64_t MpiWorld::Sum(uint64_t v) { return v; }
std::vector<std::string> MpiWorld::GatherToRoot(const std::string& text) { return {text}; }

}  // namespace nicsim::sim::distrib
