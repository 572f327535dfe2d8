// SPDX-License-Identifier: Apache-2.0
#include "sim/workloads/collective_values.h"

namespace nicsim::sim {

void FillCollectiveRow(int rank, int32_t* out, size_t count) {
  CollectiveRow row(rank);
  for (size_t j = 0; j < count; ++j) out[j] = row.Next();
}

size_t CollectiveRowMismatches(int rank, const int32_t* got, size_t count) {
  CollectiveRow row(rank);
  size_t wrong = 0;
  for (size_t j = 0; j < count; ++j) wrong += got[j] != row.Next();
  return wrong;
}

std::vector<int32_t> CollectiveSums(int n, size_t count) {
  std::vector<uint32_t> sums(count, 0);
  for (int r = 0; r < n; ++r) {
    CollectiveRow row(r);
    for (size_t j = 0; j < count; ++j) sums[j] += static_cast<uint32_t>(row.Next());
  }
  return std::vector<int32_t>(sums.begin(), sums.end());
}

}  // namespace nicsim::sim
