// SPDX-License-Identifier: Apache-2.0
#include "base/whole_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/process.h"

namespace nicsim {
namespace {

std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WholeFileTest, ReplacesTheFileWholeAndLeavesNothingElse) {
  testing::ScratchDir dir("whole_file");
  const std::filesystem::path path = dir.path() / "stats.json";
  ASSERT_TRUE(WriteWholeFile(path.string(), "first\n").ok());
  ASSERT_TRUE(WriteWholeFile(path.string(), "second, longer\n").ok());
  EXPECT_EQ(Read(path), "second, longer\n");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);  // no temporary left behind
}

TEST(WholeFileTest, AFailureNamesThePathAndTheReasonAndWritesNothing) {
  testing::ScratchDir dir("whole_file");
  const std::filesystem::path path = dir.path() / "missing" / "stats.json";
  const Status s = WriteWholeFile(path.string(), "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot write " + path.string() + " (open: No such file or directory)");
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace nicsim
