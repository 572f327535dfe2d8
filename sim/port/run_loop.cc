// SPDX-License-Identifier: Apache-2.0
// The shared run loop of `nicsim port`'s modes.
#include "sim/port/run_loop.h"

#include <chrono>
#include <optional>
#include <utility>

namespace nicsim::sim {

RunLoop::RunLoop(PortNode& node, const PolledPort& polled, RunLimits limits)
    : node_(node), ports_{polled}, limits_(limits) {}

void RunLoop::AddError(std::string message) {
  ++error_count_;
  if (errors_.size() < kErrorSamples) errors_.push_back(std::move(message));
}

void RunLoop::ReportErrors(nlohmann::json* summary) const {
  (*summary)["errors"] = error_count_;
  if (!errors_.empty()) (*summary)["error_samples"] = errors_;
}

void RunLoop::Run(const std::function<bool()>& done,
                  const std::function<void(PortClock::time_point now)>& pump) {
  start_ = PortClock::now();
  const PortClock::time_point deadline = start_ + limits_.time_limit;
  std::optional<PortClock::time_point> done_at;
  timed_out_ = false;
  while (true) {
    const PortClock::time_point now = PortClock::now();
    if (!done_at && done()) done_at = now;
    if (done_at && now - *done_at >= limits_.linger) break;
    if (now >= deadline) {
      timed_out_ = true;
      break;
    }
    pump(now);
    node_.Turn(ports_);
  }
}

double RunLoop::wall_s() const {
  return std::chrono::duration<double>(PortClock::now() - start_).count();
}

}  // namespace nicsim::sim
