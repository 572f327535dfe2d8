// SPDX-License-Identifier: Apache-2.0
// The one CPU a program run shares (sim/mpirun/shared_cpu): the thread is pinned to one CPU of
// those it may use, a split run's partitions take them in turn, and the thread's own mask
// comes back at the end.
#include "sim/mpirun/shared_cpu.h"

#include <sched.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace nicsim::sim {
namespace {

cpu_set_t Mask() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  return mask;
}

std::vector<int> Cpus(const cpu_set_t& mask) {
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  }
  return cpus;
}

TEST(SharedCpu, PinsTheThreadToOneOfItsCpusAndGivesItsMaskBack) {
  const std::vector<int> before = Cpus(Mask());
  ASSERT_FALSE(before.empty());
  {
    const SharedCpu shared;
    ASSERT_TRUE(shared.cpu().has_value());
    EXPECT_EQ(Cpus(Mask()), std::vector<int>{*shared.cpu()});
    EXPECT_NE(std::find(before.begin(), before.end(), *shared.cpu()), before.end());
  }
  EXPECT_EQ(Cpus(Mask()), before);
}

TEST(SharedCpu, ASplitRunsPartitionsTakeTheCpusInTurn) {
  const std::vector<int> allowed = Cpus(Mask());
  for (uint32_t partition = 0; partition < 2 * allowed.size(); ++partition) {
    const SharedCpu shared(partition);
    ASSERT_TRUE(shared.cpu().has_value());
    EXPECT_EQ(*shared.cpu(), allowed[partition % allowed.size()]) << "partition " << partition;
  }
  EXPECT_EQ(Cpus(Mask()), allowed);
}

}  // namespace
}  // namespace nicsim::sim
