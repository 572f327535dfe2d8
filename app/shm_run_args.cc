// SPDX-License-Identifier: Apache-2.0
#include "app/shm_run_args.h"

#include <optional>

#include "base/text.h"

namespace nicsim::sim {

void AddShmRunOptions(CLI::App& command, ShmRunArgs* args) {
  command.add_option("-n", args->processes, "Processes to start (1 to 256)");
  command.add_option("--prefix", args->options.prefix,
                     "Name of the run's segments, /dev/shm/P-* (default nicsim-run-<pid>)");
  command.add_option("--timeout", args->timeout,
                     "Seconds before the processes are killed and the run fails (default 0: none)");
  command.add_option("--protocol", args->options.protocol,
                     "postbox (reference 000, the default) or pushpull (reference 003: pushes, "
                     "then the rest pulled in one copy into the receiver)");
  command.add_option("program", args->options.program, "PROGRAM [ARGS...]")->take_all();
  // The first word that is not an option (or the one after `--`) starts the program's part.
  command.positionals_at_end();
  command.footer(
      "Ranks 0 .. N-1 talk through shared-memory postboxes (ulp/shm/shm_api.h). A rank that "
      "ends without nicsim_shm_finalize is marked dead: its peers get NICSIM_SHM_EPEERDEAD "
      "instead of hanging. At the end every segment of the run is unlinked. Exit 0 if every "
      "process finalized and exited with status 0, 1 if not (a line names each process that "
      "did not), 2 on bad flags. SIGINT, SIGTERM and SIGHUP are forwarded.");
}

Result<ShmRunOptions> FinishShmRunArgs(const ShmRunArgs& args) {
  ShmRunOptions options = args.options;
  if (args.processes.empty()) return Status::Error("shm-run: -n N is required");
  const std::optional<int64_t> n = ParseInt64(args.processes);
  if (!n) {
    return Status::Error("shm-run: -n: expected a number of processes, got '" + args.processes +
                         "'");
  }
  options.processes = *n;
  if (!args.timeout.empty()) {
    const std::optional<double> s = ParseDouble(args.timeout);
    if (!s) {
      return Status::Error("shm-run: --timeout: expected seconds, got '" + args.timeout + "'");
    }
    options.timeout_s = *s;
  }
  if (options.protocol != "postbox" && options.protocol != "pushpull") {
    return Status::Error("shm-run: --protocol: expected postbox or pushpull, got '" +
                         options.protocol + "'");
  }
  return options;
}

}  // namespace nicsim::sim
