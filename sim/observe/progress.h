// SPDX-License-Identifier: Apache-2.0
// A progress line on stderr for long runs: simulated time, wall time and events per second.
// Only on a terminal, and only once a run has taken a couple of wall seconds.
#pragma once

#include <cstdint>

namespace nicsim::sim {

/** Process-wide progress reporting. */
class Progress {
 public:
  /** Turns reporting on (when stderr is a terminal) or off. */
  static void Enable(bool on);
  /** Called from run loops every so many events; prints at most a few times a second. */
  static void Tick(uint64_t sim_ps, uint64_t events);
  /** Ends the progress line, if one was printed. */
  static void Finish();
};

}  // namespace nicsim::sim
