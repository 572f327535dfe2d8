// SPDX-License-Identifier: Apache-2.0
// The command line of `nicsim mpirun [-n N] [options] [SCENARIO] PROGRAM [ARGS...]`: nicsim's
// options come first; the first word that is not one is the scenario if it names one (a
// built-in or a .toml file) and a program follows, else the program. Everything after the
// program is the program's.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace nicsim::sim {

struct MpirunArgs {
  std::string scenario;
  /** --set values, then the ones -n and the program imply (mpi.ranks, workload). */
  std::vector<std::string> sets;
  std::string out_dir = ".";
  std::string trace_path, trace_filter, timeline_path, pcap_path;
  std::string trace_window, trace_adapters, trace_sample;
  bool quiet = false;
  /** The program (argv[0] resolved to a path) and its arguments. */
  std::vector<std::string> program;
};

/** Parses argv[first..argc); an error names the flag at fault. */
Result<MpirunArgs> ParseMpirunArgs(int argc, char** argv, int first);

/** The usage text of `nicsim mpirun`. */
const char* MpirunUsage();

}  // namespace nicsim::sim
