// SPDX-License-Identifier: Apache-2.0
#include "sim/mpirun/shared_cpu.h"

#include <time.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace nicsim::sim {
namespace {

/** How long the CPUs' idle time is looked at before one is chosen. */
constexpr long kLookNs = 10'000'000;

/** Idle (and waiting-for-I/O) time of each CPU so far, in clock ticks, by CPU number. */
std::vector<uint64_t> IdleTicks() {
  std::vector<uint64_t> idle;
  std::ifstream stat("/proc/stat");
  for (std::string line; std::getline(stat, line);) {
    // "cpuN user nice system idle iowait ..."; the first line ("cpu ") is the total.
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    size_t n = 0;
    uint64_t user = 0, nice = 0, system = 0, idle_ticks = 0, iowait = 0;
    if (!(fields >> n >> user >> nice >> system >> idle_ticks >> iowait)) continue;
    if (idle.size() <= n) idle.resize(n + 1, 0);
    idle[n] = idle_ticks + iowait;
  }
  return idle;
}

/** The least busy of the CPUs in `allowed`, over a look at their idle time. */
std::optional<int> LeastBusy(const cpu_set_t& allowed) {
  const std::vector<uint64_t> before = IdleTicks();
  const timespec look{0, kLookNs};
  nanosleep(&look, nullptr);
  const std::vector<uint64_t> after = IdleTicks();
  std::optional<int> best;
  uint64_t most_idle = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &allowed)) continue;
    const size_t i = static_cast<size_t>(c);
    const uint64_t idle = i < before.size() && i < after.size() ? after[i] - before[i] : 0;
    if (!best || idle > most_idle) {
      best = c;
      most_idle = idle;
    }
  }
  return best;
}

/** The `n`th (modulo their number) of the CPUs in `allowed`. */
std::optional<int> InTurn(const cpu_set_t& allowed, uint32_t n) {
  const int count = CPU_COUNT(&allowed);
  if (count == 0) return std::nullopt;
  int left = static_cast<int>(n % static_cast<uint32_t>(count));
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed) && left-- == 0) return c;
  }
  return std::nullopt;
}

}  // namespace

SharedCpu::SharedCpu(std::optional<uint32_t> partition) {
  CPU_ZERO(&previous_);
  if (sched_getaffinity(0, sizeof(previous_), &previous_) != 0) return;
  const std::optional<int> best = partition ? InTurn(previous_, *partition) : LeastBusy(previous_);
  if (!best) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(*best, &one);
  if (sched_setaffinity(0, sizeof(one), &one) == 0) cpu_ = best;
}

SharedCpu::~SharedCpu() {
  if (cpu_) sched_setaffinity(0, sizeof(previous_), &previous_);
}

}  // namespace nicsim::sim
