// SPDX-License-Identifier: Apache-2.0
// How the MPI layer waits: a rank's calls block while the rest of the simulation runs.
#pragma once

#include <cstdint>
#include <functional>

namespace nicsim::mpi {

/** Waits for a condition while the rest of the simulation runs. */
class Blocker {
 public:
  virtual ~Blocker() = default;
  virtual void BlockUntil(const std::function<bool()>& ready) = 0;
  /** Simulated time now, in picoseconds. */
  virtual uint64_t NowPs() = 0;
  /** The calling rank's program spends `ps` of its CPU's time (the rest of the simulation
   *  runs meanwhile); from the program's own calls only. */
  virtual void Spend(uint64_t ps) = 0;
};

}  // namespace nicsim::mpi
