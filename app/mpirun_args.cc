// SPDX-License-Identifier: Apache-2.0
#include "app/mpirun_args.h"

#include <filesystem>
#include <map>

#include "base/text.h"
#include "sim/config/builtin_scenarios.h"
#include "sim/mpirun/mpi_program.h"

namespace nicsim::sim {
namespace {

bool NamesScenario(const std::string& word) {
  if (BuiltinScenarioText(word).has_value()) return true;
  std::error_code ec;
  return word.size() > 5 && word.compare(word.size() - 5, 5, ".toml") == 0 &&
         std::filesystem::is_regular_file(word, ec);
}

}  // namespace

const char* MpirunUsage() {
  return "usage: nicsim mpirun [-n N] [--set KEY=VALUE]... [--out DIR] [--trace FILE]\n"
         "                     [--timeline FILE] [--pcap FILE] [--quiet] [SCENARIO] PROGRAM [ARGS...]\n"
         "Runs an MPI program built with nicsim-mpicc on the simulated cluster of SCENARIO\n"
         "(default: the embedded default), one process per rank; stats.json as nicsim run.\n";
}

Result<MpirunArgs> ParseMpirunArgs(int argc, char** argv, int first) {
  MpirunArgs a;
  std::string ranks;
  // Options that take a value, and where it goes.
  const std::map<std::string, std::string*> valued = {
      {"-n", &ranks},
      {"-np", &ranks},
      {"--np", &ranks},
      {"--out", &a.out_dir},
      {"--trace", &a.trace_path},
      {"--trace-filter", &a.trace_filter},
      {"--timeline", &a.timeline_path},
      {"--pcap", &a.pcap_path},
      {"--trace-window", &a.trace_window},
      {"--trace-adapters", &a.trace_adapters},
      {"--sample", &a.trace_sample},
  };
  int i = first;
  for (; i < argc; ++i) {
    std::string word = argv[i];
    if (word.empty() || word[0] != '-') break;
    if (word == "--quiet") {
      a.quiet = true;
      continue;
    }
    std::string value;
    bool inline_value = false;
    if (const size_t eq = word.find('='); eq != std::string::npos && word.rfind("--", 0) == 0) {
      value = word.substr(eq + 1);
      word = word.substr(0, eq);
      inline_value = true;
    }
    if (word == "--set") {
      if (!inline_value && ++i >= argc) return Status::Error("mpirun: --set needs KEY=VALUE");
      a.sets.push_back(inline_value ? value : argv[i]);
      continue;
    }
    const auto it = valued.find(word);
    if (it == valued.end()) {
      return Status::Error("mpirun: unknown option " + word + "\n" + MpirunUsage());
    }
    if (!inline_value && ++i >= argc) return Status::Error("mpirun: " + word + " needs a value");
    *it->second = inline_value ? value : argv[i];
  }
  std::vector<std::string> rest(argv + i, argv + argc);
  if (rest.size() >= 2 && NamesScenario(rest[0])) {
    a.scenario = rest[0];
    rest.erase(rest.begin());
  }
  if (rest.empty()) return Status::Error(std::string("mpirun: a PROGRAM is required\n") + MpirunUsage());
  Result<std::string> program = ResolveProgram(rest[0]);
  if (!program.ok()) return Status::Error("mpirun: " + program.status().message());
  rest[0] = *program;
  a.program = std::move(rest);
  if (!ranks.empty()) {
    const std::optional<int64_t> n = ParseInt64(ranks);
    if (!n || *n < 1) return Status::Error("mpirun: -n: expected a number of ranks, got '" + ranks + "'");
    a.sets.push_back("mpi.ranks=" + ranks);
  }
  a.sets.push_back("workload=mpi_program");
  return a;
}

}  // namespace nicsim::sim
