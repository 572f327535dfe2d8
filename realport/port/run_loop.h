// SPDX-License-Identifier: Apache-2.0
// The run loop every `nicsim port` mode shares: turn the node until the mode is done and has
// lingered, or until the deadline; count the run's errors and keep a few for the summary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "realport/port/clock.h"
#include "realport/port/node.h"

namespace nicsim::sim {

/** How long a mode's run may take, and how long it goes on once done: each mode its own. */
struct RunLimits {
  /** From the start of the run to its deadline (--timeout, TimeLimit). */
  PortClock::duration time_limit;
  /**
   * Once done() holds, the run keeps turning this long, so that the peer still hears from this
   * side (a lost report, a resent ping) and a late duplicate is caught.
   */
  PortClock::duration linger;
};

/**
 * One run of a mode on an opened node: Run turns the node, with the mode's wall-clock work
 * (HELLOs, resends, new sends, timers) before each turn, until done() has held for the linger
 * or the deadline passes. An idle turn is not a stall: the peer may still be starting. The
 * mode reports its errors here while it runs (AddError); the summary shows their count and the
 * first kErrorSamples.
 */
class RunLoop {
 public:
  /** Error messages kept for the summary (the count covers them all). */
  static constexpr size_t kErrorSamples = 10;

  RunLoop(WireNode& node, const PolledPort& polled, RunLimits limits);
  RunLoop(const RunLoop&) = delete;
  RunLoop& operator=(const RunLoop&) = delete;

  /** Counts an error of the run; the first kErrorSamples messages are kept. */
  void AddError(std::string message);
  uint64_t error_count() const { return error_count_; }
  /**
   * The checks every mode makes of message `seq` from adapter `sender` as it arrives: within
   * --messages (arrived.size()), `len` bytes of its pattern where `expected_len` were sent,
   * and not seen before. A failure is an error of the run; true (and marked in `arrived`) if
   * the message is new and intact.
   */
  bool AcceptMessage(uint16_t sender, uint64_t seq, const uint8_t* data, uint64_t len,
                     uint64_t expected_len, std::vector<bool>& arrived);
  /** Writes "errors" (the count) and, if any were kept, "error_samples" into `summary`. */
  void ReportErrors(nlohmann::json* summary) const;

  /**
   * Runs to completion on this thread (simulated events and port polls, or, with the adapter
   * on a core of its own, the host's side): the deadline is the limits' time_limit from now.
   * Each iteration: done() is checked, then pump(now), then one node.Turn.
   */
  void Run(const std::function<bool()>& done,
           const std::function<void(PortClock::time_point now)>& pump);

  /** The deadline passed before done() had held for the linger. */
  bool timed_out() const { return timed_out_; }
  /** Wall-clock seconds from the start of Run to now. */
  double wall_s() const;
  /** The run passed: it did not time out, had no error, and the mode is `done`. */
  bool Passed(bool done) const { return !timed_out_ && error_count_ == 0 && done; }

 private:
  WireNode& node_;
  const std::vector<PolledPort> ports_;
  const RunLimits limits_;
  PortClock::time_point start_{};
  bool timed_out_ = false;
  uint64_t error_count_ = 0;
  std::vector<std::string> errors_;
};

}  // namespace nicsim::sim
