// SPDX-License-Identifier: Apache-2.0
// The command line of `nicsim mpirun [-n N] [options] [SCENARIO] PROGRAM [ARGS...]`: nicsim's
// options come first; the first word that is not one is the scenario if it names one (a
// built-in or a .toml file) and a program follows, else the program. Everything after the
// program is the program's, flags included.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/run_args.h"
#include "base/status.h"

namespace nicsim::sim {

struct MpirunArgs {
  std::string scenario;
  /** As `nicsim run`'s; the sets end with the ones -n and the program imply (mpi.ranks,
   *  workload). */
  RunArgs run;
  /** -n as given (checked by FinishMpirunArgs). */
  std::string ranks;
  /** [SCENARIO] PROGRAM [ARGS...] as given; then the program (argv[0] resolved to a path)
   *  and its arguments. */
  std::vector<std::string> program;
};

/** Declares mpirun's options and its trailing words on `command`, written into `args`. */
void AddMpirunOptions(CLI::App& command, MpirunArgs* args);

/** Checks -n, takes the scenario off the words and resolves the program; an error names the
 *  option at fault. */
Status FinishMpirunArgs(MpirunArgs* args);

}  // namespace nicsim::sim
