// SPDX-License-Identifier: Apache-2.0
// The wall clock of `nicsim port`: the peer is another process, so a run's limits are real time.
#pragma once

#include <chrono>

#include "realport/port/command.h"

namespace nicsim::sim {

using PortClock = std::chrono::steady_clock;

/** --timeout as a PortClock duration: a run's deadline is its start plus this. */
inline PortClock::duration TimeLimit(const PortCommandOptions& options) {
  return std::chrono::duration_cast<PortClock::duration>(
      std::chrono::duration<double>(options.timeout_s));
}

}  // namespace nicsim::sim
