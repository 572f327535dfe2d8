// SPDX-License-Identifier: Apache-2.0
// Keys nested without end: refused with their position before the TOML parser (which
// recurses per part) or the scenario walker sees them; dots in strings, comments and numbers
// do not count.
#include "sim/config/toml_key_depth.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/sim/scenario_errors.h"

namespace nicsim::sim {
namespace {

/** `parts` parts named "a", joined by dots. */
std::string DottedKey(size_t parts) {
  std::string key = "a";
  for (size_t i = 1; i < parts; ++i) key += ".a";
  return key;
}

TEST(TomlKeyDepthTest, ATableHeaderThirtyThousandPartsDeepIsRefusedWhereItBegins) {
  EXPECT_EQ(ParseError("[" + DottedKey(30000) + "]\nx = 1\n"),
            "t.toml:1:2: a key of more than 256 dotted parts");
  EXPECT_EQ(ParseError("seed = 3\n[[" + DottedKey(30000) + "]]\n"),
            "t.toml:2:3: a key of more than 256 dotted parts");
}

TEST(TomlKeyDepthTest, ADottedKeyIsRefusedOnItsOwnLineAndInsideAnInlineTable) {
  EXPECT_EQ(ParseError("seed = 3\n  " + DottedKey(300000) + " = 1\n"),
            "t.toml:2:3: a key of more than 256 dotted parts");
  EXPECT_EQ(ParseError("x = {b = 1, " + DottedKey(1000) + " = 1}\n"),
            "t.toml:1:13: a key of more than 256 dotted parts");
}

TEST(TomlKeyDepthTest, TwoHundredFiftySixPartsPassTheGuardAndTheWalkerReportsTheUnknownKey) {
  EXPECT_EQ(FindTooDeepKey(DottedKey(256) + " = 1\n"), std::nullopt);
  EXPECT_EQ(FindTooDeepKey(DottedKey(257) + " = 1\n"), "1:1: a key of more than 256 dotted parts");
  // No parameter is nested that deep: the walker stops at the depth parameters have.
  EXPECT_EQ(ParseError("[" + DottedKey(256) + "]\nx = 1\n"), "t.toml:1:4: unknown key 'a.a'");
}

TEST(TomlKeyDepthTest, DotsInStringsCommentsAndNumbersDoNotCount) {
  const std::string dots(1000, '.');
  const std::string text = "name = \"" + dots + "\\\"" + dots + "\"\n" +         // escaped quote
                           "description = '" + dots + "'\n" +                    // literal
                           "# " + dots + "\n" +                                  // comment
                           "x = \"\"\"\n" + dots + "\\\n" + dots + "\"\"\"\n" +  // multi-line
                           "y = '''\n" + dots + "'''\n" + "z = [1.5, 2.5, 3.5]\n";
  EXPECT_EQ(FindTooDeepKey(text), std::nullopt);
  // The lines are counted through all of them: the deep key is on line 10.
  EXPECT_EQ(FindTooDeepKey(text + DottedKey(300) + " = 1\n"),
            "10:1: a key of more than 256 dotted parts");
}

}  // namespace
}  // namespace nicsim::sim
