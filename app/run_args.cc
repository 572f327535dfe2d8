// SPDX-License-Identifier: Apache-2.0
#include "app/run_args.h"

#include "sim/observe/trace_selection.h"

namespace nicsim::sim {

void AddRunOptions(CLI::App& command, RunArgs* args) {
  command.add_option("--set", args->sets, "Override a parameter: key=value (repeatable)")
      ->allow_extra_args(false);
  command.add_option("--out", args->out_dir,
                     "Directory for stats.json (default: current directory)");
  command.add_option("--trace-filter", args->trace_filter,
                     "Keep only some trace events: adapter=N,window=N,kind=rx|tx|drop|...");
  command.add_option("--trace", args->trace_path,
                     "Write every firmware trace event (task states with task, window, CB, DTB)");
  command.add_option("--timeline", args->timeline_path,
                     "Write a timeline of the run for ui.perfetto.dev: Perfetto protobuf if FILE "
                     "ends in .perfetto-trace or .pftrace, else Chrome trace-event JSON");
  command.add_option("--pcap", args->pcap_path,
                     "Write a pcapng capture of every frame the fabric delivers "
                     "(tools/nicsim.lua)");
  command.add_option("--trace-window", args->trace_window,
                     "START:END of simulated time (10us:2ms, :1ms, 5ms:) the timeline and the "
                     "capture keep");
  command.add_option("--trace-adapters", args->trace_adapters,
                     "Adapters the timeline and the capture keep: ids and ranges, as in "
                     "0,3,10-20");
  command.add_option("--sample", args->trace_sample,
                     "Keep every Nth of the adapters (--trace-adapters' or all) in the timeline "
                     "and the capture");
  command.add_flag("--quiet", args->quiet, "Print nothing on success");
}

Result<RunOptions> RecordingOf(const RunArgs& args) {
  RunOptions options;
  options.trace_path = args.trace_path;
  options.trace_filter = args.trace_filter;
  options.timeline_path = args.timeline_path;
  options.pcap_path = args.pcap_path;
  Result<TraceSelection> selection =
      TraceSelection::Parse(args.trace_window, args.trace_adapters, args.trace_sample);
  if (!selection.ok()) return selection.status();
  options.selection = std::move(*selection);
  return options;
}

}  // namespace nicsim::sim
