// SPDX-License-Identifier: Apache-2.0
// Replays every seed (tests/fuzz/corpus/<target>/) and every saved crash
// (tests/fuzz/crashes/<target>/) through its fuzz target: a crash found once never comes back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"

namespace nicsim::fuzz {
namespace {

namespace fs = std::filesystem;

/** Files directly under `dir`, sorted (none if it does not exist). */
std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

/** Test names and ctest entries show the target's name, not the bytes of the struct. */
void PrintTo(const FuzzTarget& target, std::ostream* os) { *os << target.name; }

namespace {

class FuzzRegressionTest : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzRegressionTest, ReplaysCorpusAndSavedCrashes) {
  const FuzzTarget& target = GetParam();
  const fs::path root = fs::path(NICSIM_SOURCE_DIR) / "tests" / "fuzz";
  const std::vector<fs::path> seeds = FilesIn(root / "corpus" / target.name);
  EXPECT_FALSE(seeds.empty()) << "no seeds in " << (root / "corpus" / target.name);
  std::vector<fs::path> inputs = seeds;
  for (const fs::path& crash : FilesIn(root / "crashes" / target.name)) inputs.push_back(crash);
  for (const fs::path& input : inputs) {
    // A crash ends the process: the last line printed names the input that caused it.
    std::fprintf(stderr, "replaying %s\n", input.string().c_str());
    const std::vector<uint8_t> bytes = ReadFile(input);
    EXPECT_EQ(target.fn(bytes.data(), bytes.size()), 0) << input;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegressionTest, ::testing::ValuesIn(kFuzzTargets),
                         [](const ::testing::TestParamInfo<FuzzTarget>& param) {
                           return std::string(param.param.name);
                         });

}  // namespace
}  // namespace nicsim::fuzz
