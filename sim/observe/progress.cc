// SPDX-License-Identifier: Apache-2.0
// Progress line: rewritten in place with '\r'; silent for the first two wall seconds.
#include "sim/observe/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace nicsim::sim {
namespace {

using Clock = std::chrono::steady_clock;

struct State {
  bool enabled = false;
  bool printed = false;
  Clock::time_point start = Clock::now();
  Clock::time_point last_print = Clock::now();
};

/** Per thread: of a run split over threads, only thread 0 enables its line. */
State& GetState() {
  thread_local State s;
  return s;
}

}  // namespace

void Progress::Enable(bool on) {
  State& s = GetState();
  s.enabled = on && isatty(STDERR_FILENO) == 1;
  s.start = s.last_print = Clock::now();
}

void Progress::Tick(uint64_t sim_ps, uint64_t events) {
  State& s = GetState();
  if (!s.enabled) return;
  const Clock::time_point now = Clock::now();
  const double wall = std::chrono::duration<double>(now - s.start).count();
  if (wall < 2.0 || now - s.last_print < std::chrono::milliseconds(250)) return;
  s.last_print = now;
  s.printed = true;
  std::fprintf(stderr, "\r[nicsim] simulated %.3f ms | wall %.1f s | %.2f M events/s   ",
               static_cast<double>(sim_ps) * 1e-9, wall, static_cast<double>(events) / wall / 1e6);
  std::fflush(stderr);
}

void Progress::Finish() {
  State& s = GetState();
  if (s.printed) std::fprintf(stderr, "\n");
  s.printed = false;
}

}  // namespace nicsim::sim
