// SPDX-License-Identifier: Apache-2.0
// The output files of a run (--trace, --timeline, --pcap): opened before the model is built,
// written and closed after the clock stops.
#pragma once

#include <memory>

#include "base/status.h"
#include "sim/distrib/split_records.h"
#include "sim/distrib/split_run.h"
#include "sim/fabric/pcap_writer.h"
#include "sim/observe/timeline_writer.h"
#include "sim/observe/trace_writer.h"
#include "sim/run/run_scenario.h"

namespace nicsim::sim {

/**
 * The output files of a run (--trace, --timeline, --pcap). A split run's trace and capture
 * are kept by every process under event keys and written, merged, by rank 0 (the only
 * process that opens the files).
 */
struct RunOutputs {
  std::unique_ptr<TraceWriter> trace;
  std::unique_ptr<TimelineWriter> timeline;
  std::unique_ptr<PcapWriter> pcap;
  distrib::SplitRecorders split_records;
};

/** Opens the outputs `options` asks for; every process of a split run fails if rank 0 could
 *  not open one. */
Status OpenOutputs(const RunOptions& options, distrib::SplitRun* split, RunOutputs* out);
/** Merges a split run's records on rank 0 and writes and closes every output. */
Status CloseOutputs(const RunOptions& options, distrib::SplitRun* split, RunOutputs& out);

}  // namespace nicsim::sim
