// SPDX-License-Identifier: Apache-2.0
// How a failed MPI job's error names its failures and waiting ranks.
#include "sim/cluster/job_stop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nicsim::sim {
namespace {

TEST(JobStopTest, AShortListIsNamedWhole) {
  EXPECT_EQ(RankList({}), "");
  EXPECT_EQ(RankList({0, 3, 5}), "0, 3, 5");
  EXPECT_EQ(JoinAtMost({"a", "b"}, 2, "; ", "failures"), "a; b");
}

TEST(JobStopTest, ALongListNamesTheFirstAndCountsTheRest) {
  std::vector<uint32_t> ranks;
  for (uint32_t r = 0; r < 1024; ++r) ranks.push_back(r);
  EXPECT_EQ(RankList(ranks),
            "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, and 1008 more of 1024 ranks");
  std::vector<std::string> reasons;
  for (int i = 0; i < 9; ++i) reasons.push_back("rank " + std::to_string(i) + " failed");
  EXPECT_EQ(JoinAtMost(reasons, kListedFailures, "; ", "failures"),
            "rank 0 failed; rank 1 failed; rank 2 failed; rank 3 failed; rank 4 failed; "
            "rank 5 failed; rank 6 failed; rank 7 failed; and 1 more of 9 failures");
}

}  // namespace
}  // namespace nicsim::sim
