// SPDX-License-Identifier: Apache-2.0
// What the MPI C program tests share: the suite's programs and their rank counts, running a
// program under `nicsim mpirun` or Open MPI's `mpirun`, and the lines the ranks printed.
#pragma once

#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace nicsim::testing {

struct MpiCProgram {
  std::string name;
  int ranks = 0;
};

/** gtest names a test by it; this prints it readably too. */
inline void PrintTo(const MpiCProgram& p, std::ostream* os) {
  *os << p.name << " on " << p.ranks << " ranks";
}

/** programs/programs.txt: "name ranks" per line. */
inline std::vector<MpiCProgram> SuitePrograms() {
  std::vector<MpiCProgram> programs;
  std::ifstream in(std::string(NICSIM_MPI_C_SOURCE) + "/programs/programs.txt");
  MpiCProgram p;
  while (in >> p.name >> p.ranks) programs.push_back(p);
  return programs;
}

inline std::string NicsimBuild(const std::string& name) {
  return std::string(NICSIM_MPI_C_BIN) + "/nicsim_" + name;
}

/** `nicsim mpirun -n ranks --out DIR [extra...] PROGRAM` with its stats in `scratch`. */
inline CommandResult NicsimMpirun(const std::string& program, int ranks,
                                  const std::filesystem::path& scratch,
                                  const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {
      NICSIM_BINARY, "mpirun", "-n", std::to_string(ranks), "--quiet", "--out", scratch.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(program);
  return RunCommand(argv, scratch);
}

/**
 * The lines ranks printed ("[1,R]<stdout>:..."), each rank's in its own order, ranks in order:
 * what two MPIs must agree on (how ranks' lines interleave is timing).
 */
inline std::string RankLines(const std::string& out) {
  std::vector<std::pair<int, std::string>> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("[1,", 0) != 0) continue;
    lines.emplace_back(std::atoi(line.c_str() + 3), line);
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string text;
  for (const auto& [rank, line] : lines) text += line + "\n";
  return text;
}

}  // namespace nicsim::testing
