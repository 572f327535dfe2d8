// SPDX-License-Identifier: Apache-2.0
// Partition maps: contiguous blocks, round robin and explicit lists, and the errors for maps that
// would leave a process without a node.
#include "sim/distrib/partition_map.h"

#include <gtest/gtest.h>

namespace nicsim::sim::distrib {
namespace {

TEST(PartitionMapTest, ContiguousBlocksCoverEveryNodeOnceInOrder) {
  Result<PartitionMap> map = PartitionMap::Contiguous(10, 3);
  ASSERT_TRUE(map.ok());
  // p N / K: [0, 3), [3, 6), [6, 10).
  EXPECT_EQ(map->NodesOf(0), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(map->NodesOf(1), (std::vector<uint32_t>{3, 4, 5}));
  EXPECT_EQ(map->NodesOf(2), (std::vector<uint32_t>{6, 7, 8, 9}));
  EXPECT_EQ(map->PartOf(9), 2u);
}

TEST(PartitionMapTest, RoundRobinDealsNodesOutInTurn) {
  Result<PartitionMap> map = PartitionMap::RoundRobin(10, 3);
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->NodesOf(0), (std::vector<uint32_t>{0, 3, 6, 9}));
  EXPECT_EQ(map->NodesOf(1), (std::vector<uint32_t>{1, 4, 7}));
  EXPECT_EQ(map->NodesOf(2), (std::vector<uint32_t>{2, 5, 8}));
  Result<PartitionMap> too_many = PartitionMap::RoundRobin(2, 3);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("1 to 2 processes"), std::string::npos);
}

TEST(PartitionMapTest, OnePartitionHoldsEverything) {
  Result<PartitionMap> map = PartitionMap::Contiguous(4, 1);
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->NodesOf(0).size(), 4u);
}

TEST(PartitionMapTest, MoreProcessesThanNodesIsAnError) {
  Result<PartitionMap> map = PartitionMap::Contiguous(2, 3);
  ASSERT_FALSE(map.ok());
  EXPECT_NE(map.status().message().find("1 to 2 processes"), std::string::npos);
}

TEST(PartitionMapTest, ListNamesANodeOutOfRangeAndAnEmptyPartition) {
  Result<PartitionMap> bad = PartitionMap::FromList({0, 2}, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("node 1"), std::string::npos);
  Result<PartitionMap> empty = PartitionMap::FromList({0, 0, 2}, 3);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("partition 1 holds no node"), std::string::npos);
  Result<PartitionMap> striped = PartitionMap::FromList({0, 1, 0, 1}, 2);
  ASSERT_TRUE(striped.ok());
  EXPECT_EQ(striped->NodesOf(1), (std::vector<uint32_t>{1, 3}));
}

}  // namespace
}  // namespace nicsim::sim::distrib
