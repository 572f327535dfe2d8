// SPDX-License-Identifier: Apache-2.0
// The mpi_collectives workload's values made a row at a time: the same values as one division
// each, the same sums as a serial int64 sum, and every wrong value counted.
#include "sim/workloads/collective_values.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace nicsim::sim {
namespace {

TEST(CollectiveValuesTest, ARowMatchesTheValueOfEachIndexAcrossTheModulus) {
  // 10,000 values step 31 apart wrap past 100003 three times; ranks up to 4,095.
  for (int rank : {0, 1, 12, 1023, 4095}) {
    std::vector<int32_t> row(10'000);
    FillCollectiveRow(rank, row.data(), row.size());
    for (size_t j = 0; j < row.size(); ++j) {
      ASSERT_EQ(row[j], CollectiveValue(rank, j)) << "rank " << rank << " index " << j;
    }
  }
  EXPECT_EQ(CollectiveValue(0, 0), 1);
  EXPECT_EQ(CollectiveValue(3, 5), (3 * 7919 + 5 * 31 + 1) % 100003);
}

TEST(CollectiveValuesTest, SumsMatchASerialSumOverTheRanks) {
  const int n = 300;
  const size_t count = 4'000;
  const std::vector<int32_t> sums = CollectiveSums(n, count);
  ASSERT_EQ(sums.size(), count);
  for (size_t j = 0; j < count; ++j) {
    int64_t sum = 0;
    for (int r = 0; r < n; ++r) sum += CollectiveValue(r, j);
    ASSERT_EQ(sums[j], static_cast<int32_t>(sum)) << "index " << j;
  }
}

TEST(CollectiveValuesTest, MismatchesCountEveryWrongValueAndNoRightOne) {
  std::vector<int32_t> row(5'000);
  FillCollectiveRow(7, row.data(), row.size());
  EXPECT_EQ(CollectiveRowMismatches(7, row.data(), row.size()), 0u);
  row[0] += 1;
  row[1'438] = -1;  // the first index where rank 7's values wrap past the modulus
  row[4'999] = 0;
  EXPECT_EQ(CollectiveRowMismatches(7, row.data(), row.size()), 3u);
  // Another rank's row differs everywhere.
  EXPECT_EQ(CollectiveRowMismatches(8, row.data(), row.size()), row.size());
}

}  // namespace
}  // namespace nicsim::sim
