// SPDX-License-Identifier: Apache-2.0
// The shared run loop of `nicsim port`'s modes.
#include "realport/port/run_loop.h"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <utility>

#include "realport/port/modes.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

RunLoop::RunLoop(WireNode& node, const PolledPort& polled, RunLimits limits)
    : node_(node), ports_{polled}, limits_(limits) {}

void RunLoop::AddError(std::string message) {
  ++error_count_;
  if (errors_.size() < kErrorSamples) errors_.push_back(std::move(message));
}

bool RunLoop::AcceptMessage(uint16_t sender, uint64_t seq, const uint8_t* data, uint64_t len,
                            uint64_t expected_len, std::vector<bool>& arrived) {
  if (seq >= arrived.size()) {
    AddError(fmt::format("message {} is beyond --messages {}", seq, arrived.size()));
    return false;
  }
  const uint64_t key = MessageKey(sender, static_cast<uint32_t>(seq));
  if (len != expected_len || !CheckPattern(data, static_cast<uint32_t>(len), key)) {
    AddError(fmt::format("message {} arrived with wrong bytes ({} of {})", seq, len, expected_len));
    return false;
  }
  if (arrived[seq]) {
    AddError(fmt::format("message {} delivered twice", seq));
    return false;
  }
  arrived[seq] = true;
  return true;
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
