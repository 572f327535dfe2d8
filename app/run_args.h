// SPDX-License-Identifier: Apache-2.0
// The options `nicsim run` and `nicsim mpirun` share: parameter overrides, where the results
// go, and what is recorded (traces, timelines, captures, the part of the run they keep).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/status.h"
#include "sim/run/run_scenario.h"

namespace nicsim::sim {

struct RunArgs {
  /** --set KEY=VALUE, in order. */
  std::vector<std::string> sets;
  std::string out_dir = ".";
  std::string trace_path, trace_filter, timeline_path, pcap_path;
  std::string trace_window, trace_adapters, trace_sample;
  bool quiet = false;
};

/** Declares the shared options on `command`, written into `args`. */
void AddRunOptions(CLI::App& command, RunArgs* args);

/** What to record, from the options (a bad --trace-window, --trace-adapters or --sample is an
 *  error naming it). */
Result<RunOptions> RecordingOf(const RunArgs& args);

}  // namespace nicsim::sim
