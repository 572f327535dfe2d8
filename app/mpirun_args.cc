// SPDX-License-Identifier: Apache-2.0
#include "app/mpirun_args.h"

#include <filesystem>

#include "base/child_process.h"
#include "base/text.h"
#include "sim/config/builtin_scenarios.h"

namespace nicsim::sim {
namespace {

bool NamesScenario(const std::string& word) {
  if (BuiltinScenarioText(word).has_value()) return true;
  std::error_code ec;
  return word.size() > 5 && word.compare(word.size() - 5, 5, ".toml") == 0 &&
         std::filesystem::is_regular_file(word, ec);
}

}  // namespace

void AddMpirunOptions(CLI::App& command, MpirunArgs* args) {
  command.add_option("-n,--np", args->ranks, "Ranks, one process each (default: mpi.ranks)");
  AddRunOptions(command, &args->run);
  command
      .add_option("words", args->program,
                  "[SCENARIO] PROGRAM [ARGS...]: a built-in scenario or a .toml file (default: "
                  "the embedded default), then the program and its arguments")
      ->take_all();
  // The first word that is not an option starts the program's part: after it nothing is
  // nicsim's, `-n` and `--set` included.
  command.positionals_at_end();
}

Status FinishMpirunArgs(MpirunArgs* args) {
  std::vector<std::string>& words = args->program;
  if (words.size() >= 2 && NamesScenario(words[0])) {
    args->scenario = words[0];
    words.erase(words.begin());
  }
  if (words.empty()) return Status::Error("mpirun: a PROGRAM is required (nicsim mpirun --help)");
  Result<std::string> program = FindProgram(words[0]);
  if (!program.ok()) return Status::Error("mpirun: " + program.status().message());
  words[0] = *program;
  if (!args->ranks.empty()) {
    const std::optional<int64_t> n = ParseInt64(args->ranks);
    if (!n || *n < 1) {
      return Status::Error("mpirun: -n: expected a number of ranks, got '" + args->ranks + "'");
    }
    args->run.sets.push_back("mpi.ranks=" + args->ranks);
  }
  args->run.sets.push_back("workload=mpi_program");
  return Status();
}

}  // namespace nicsim::sim
