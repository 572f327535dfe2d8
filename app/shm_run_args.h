// SPDX-License-Identifier: Apache-2.0
// The command line of `nicsim shm-run -n N [--prefix P] [--timeout S] [--protocol P] [--]
// PROGRAM [ARGS...]`: shm-run's options come first; the first word that is not one (or the one
// after `--`) is the program, and everything after it is the program's, flags included.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "base/status.h"
#include "realport/shm_run/launcher.h"

namespace nicsim::sim {

/** shm-run's command line as given: the numbers still text, so a bad one is named. */
struct ShmRunArgs {
  std::string processes;
  std::string timeout;
  ShmRunOptions options;
};

/** Declares shm-run's options and the program's words on `command`, written into `args`. */
void AddShmRunOptions(CLI::App& command, ShmRunArgs* args);

/** The options the command line gives (not yet validated: ValidateShmRunOptions); an error
 *  names the option at fault. */
Result<ShmRunOptions> FinishShmRunArgs(const ShmRunArgs& args);

}  // namespace nicsim::sim
