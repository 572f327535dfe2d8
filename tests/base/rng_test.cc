// SPDX-License-Identifier: Apache-2.0
#include "base/rng.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace nicsim {
namespace {

TEST(RngDrawsTest, AtGivesTheDrawOfThatIndexInAnyOrder) {
  Rng rng(42, "stream");
  std::vector<uint64_t> draws(300);
  for (uint64_t& d : draws) d = rng.Next();
  RngDraws at(42, "stream");
  // Forward with gaps, the same index twice, then back (a restart), then forward again.
  for (uint64_t i : {0, 5, 5, 64, 128, 129, 3, 0, 299, 200}) EXPECT_EQ(at.At(i), draws[i]) << i;
  EXPECT_NE(RngDraws(43, "stream").At(0), draws[0]);
  EXPECT_NE(RngDraws(42, "other").At(0), draws[0]);
}

}  // namespace
}  // namespace nicsim
