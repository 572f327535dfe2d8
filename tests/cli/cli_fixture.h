// SPDX-License-Identifier: Apache-2.0
// What the tests of the nicsim binary share: a scratch directory, nicsim run as a subprocess,
// and the expectations of a bad-input run and of a run's stats.json.
#pragma once

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.h"

#ifndef NICSIM_BINARY
#error "NICSIM_BINARY must name the nicsim executable"
#endif

namespace nicsim::cli_test {

namespace fs = std::filesystem;

/** What one nicsim invocation did. */
using Outcome = nicsim::testing::CommandResult;
using nicsim::testing::ReadFile;

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::string FirstWord(const std::string& line) { return line.substr(0, line.find(' ')); }

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.empty()) << std::strerror(errno); }

  /** Writes a scenario file into the temp dir and returns its path. */
  std::string WriteScenario(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  Outcome Nicsim(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {NICSIM_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return nicsim::testing::RunCommand(argv, dir_);
  }

  /**
   * Runs `nicsim run ARGS --out DIR` and expects bad input: exit 2, exactly `stderr_text` on
   * stderr, nothing on stdout and no stats.json.
   */
  void ExpectBadRun(std::vector<std::string> args, const std::string& stderr_text) {
    const fs::path out_dir = dir_ / "bad_out";
    args.insert(args.begin(), "run");
    args.push_back("--out");
    args.push_back(out_dir.string());
    const Outcome o = Nicsim(args);
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_EQ(o.err, stderr_text);
    EXPECT_EQ(o.out, "");
    EXPECT_FALSE(fs::exists(out_dir / "stats.json"));
  }

  /** Runs a scenario quietly into `out_dir` and returns its parsed stats.json. */
  nlohmann::json RunForStats(std::vector<std::string> args, const std::string& out_dir) {
    args.insert(args.begin(), "run");
    args.push_back("--quiet");
    args.push_back("--out");
    args.push_back((dir_ / out_dir).string());
    const Outcome o = Nicsim(args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(o.out, "");
    return nlohmann::json::parse(ReadFile(dir_ / out_dir / "stats.json"), nullptr, false);
  }

  nicsim::testing::ScratchDir scratch_{"nicsim_cli"};
  const fs::path dir_ = scratch_.path();
};

}  // namespace nicsim::cli_test
