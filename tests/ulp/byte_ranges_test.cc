// SPDX-License-Identifier: Apache-2.0
// ByteRanges: which bytes of a transfer arrived, whatever order and overlap they came in.
#include "ulp/byte_ranges.h"

#include <gtest/gtest.h>

namespace nicsim::ulp {
namespace {

using Range = ByteRanges::Range;

TEST(ByteRanges, BytesInOrderExtendOneRange) {
  ByteRanges r;
  EXPECT_EQ(r.Add(0, 100), (Range{0, 100}));
  EXPECT_EQ(r.Add(100, 250), (Range{0, 250}));
  EXPECT_EQ(r.Add(250, 251), (Range{0, 251}));
  EXPECT_EQ(r.bytes(), 251u);
  EXPECT_TRUE(r.Contains(0, 251));
  EXPECT_FALSE(r.Contains(0, 252));
  EXPECT_EQ(r.Missing(0, 300), (std::vector<Range>{{251, 300}}));
}

TEST(ByteRanges, AGapIsFilledAndTheNeighboursJoin) {
  ByteRanges r;
  r.Add(200, 300);
  r.Add(0, 100);
  EXPECT_FALSE(r.Contains(50, 150));
  EXPECT_TRUE(r.Contains(200, 300));
  EXPECT_FALSE(r.Contains(100, 101));
  EXPECT_EQ(r.Missing(0, 300), (std::vector<Range>{{100, 200}}));
  EXPECT_EQ(r.Add(100, 200), (Range{0, 300}));
  EXPECT_EQ(r.bytes(), 300u);
  EXPECT_TRUE(r.Contains(0, 300));
}

TEST(ByteRanges, OverlapsCountOnlyTheNewBytes) {
  ByteRanges r;
  r.Add(0, 100);
  r.Add(50, 150);  // 50 of these are new
  EXPECT_EQ(r.bytes(), 150u);
  r.Add(0, 150);  // none are
  EXPECT_EQ(r.bytes(), 150u);
  EXPECT_TRUE(r.Overlaps(140, 160));
  EXPECT_FALSE(r.Overlaps(150, 160));
}

TEST(ByteRanges, AnEmptyRangeAddsNothingAndIsContained) {
  ByteRanges r;
  EXPECT_EQ(r.Add(5, 5), (Range{5, 5}));
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.bytes(), 0u);
  EXPECT_TRUE(r.Contains(7, 7));
  EXPECT_FALSE(r.Contains(7, 8));
}

}  // namespace
}  // namespace nicsim::ulp
