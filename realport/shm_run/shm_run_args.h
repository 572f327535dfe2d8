// SPDX-License-Identifier: Apache-2.0
// The command line of `nicsim shm-run -n N [--prefix P] [--timeout S] [--] PROGRAM [ARGS...]`:
// shm-run's flags come first; the first word that is not one (or the one after `--`) is the
// program, and everything after it is the program's, flags included.
#pragma once

#include "base/status.h"
#include "realport/shm_run/launcher.h"

namespace nicsim::sim {

/** Parses argv[first..argc) into options (not yet validated); an error names the flag. */
Result<ShmRunOptions> ParseShmRunArgs(int argc, char** argv, int first);

/** The usage text of `nicsim shm-run`. */
const char* ShmRunUsage();

}  // namespace nicsim::sim
