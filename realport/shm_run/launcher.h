// SPDX-License-Identifier: Apache-2.0
// `nicsim shm-run`: starts N processes of one program on this machine, talking through
// shared-memory postboxes (ulp/shm/shm_api.h); watches them, reports and cleans up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace nicsim::sim {

/** The flags of `nicsim shm-run -n N [--prefix P] [--timeout S] PROGRAM [ARGS...]`. */
struct ShmRunOptions {
  /** -n: processes to start (ranks 0 .. N-1 of one node). */
  int64_t processes = 0;
  /**
   * --prefix: names the run's segments, /dev/shm/<prefix>-*; letters, digits, '.', '_', '-'.
   * Empty: "nicsim-run-<launcher pid>".
   */
  std::string prefix;
  /** --timeout: seconds before the run's processes are killed; 0 waits for ever. */
  double timeout_s = 0;
  /** --protocol: what the C API talks, "postbox" or "pushpull" (NICSIM_SHM_PROTOCOL). */
  std::string protocol = "postbox";
  /** PROGRAM (resolved to a path by ValidateShmRunOptions) and its arguments. */
  std::vector<std::string> program;
};

/**
 * Checks the options and resolves the program (a path with '/', else found in PATH) to an
 * executable file. An error names the flag or the program at fault (exit code 2).
 */
Status ValidateShmRunOptions(ShmRunOptions* options);

/**
 * Runs validated options: creates the control segment, starts the processes with their
 * rank, size and segment prefix in the environment, reaps them (marking one that ended
 * without finalizing dead, so its peers get an error instead of a hang), forwards SIGINT,
 * SIGTERM and SIGHUP, kills all on --timeout, then unlinks every segment of the run and says what
 * it reclaimed. Returns 0 if every process finalized and exited with status 0, else 1.
 */
int ShmRunCommand(const ShmRunOptions& options);

}  // namespace nicsim::sim
