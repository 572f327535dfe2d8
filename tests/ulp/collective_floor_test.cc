// SPDX-License-Identifier: Apache-2.0
// The link-rate floor of each collective, worked out by hand for 4 ranks on 2 nodes (ranks 0
// and 2 on node 0, 1 and 3 on node 1), 1 ps per byte and 100 ps per fabric crossing.
#include "ulp/mpi/collective_floor.h"

#include <gtest/gtest.h>

namespace nicsim::mpi {
namespace {

LinkModel TwoNodes() {
  LinkModel link;
  link.ps_per_byte = 1.0;
  link.crossing_ps = 100;
  link.nodes = 2;
  link.adapters_per_node = 1;
  return link;
}

uint64_t FloorOf(CollectiveKind kind, size_t bytes) {
  return CollectiveFloorPs(kind, bytes, 4, TwoNodes(), MpiConfig{}).value();
}

TEST(CollectiveFloorTest, BarrierPaysOneCrossingPerStepThatLeavesANode) {
  // Step 1 (rank + 1) crosses; step 2 (rank + 2) stays on each node.
  EXPECT_EQ(FloorOf(CollectiveKind::kBarrier, 0), 100u);
}

TEST(CollectiveFloorTest, EveryStepThatCrossesPaysOneMessagesSoftwareTime) {
  LinkModel link = TwoNodes();
  link.message_ps = 1000;
  EXPECT_EQ(CollectiveFloorPs(CollectiveKind::kBarrier, 0, 4, link, MpiConfig{}).value(), 1100u);
  EXPECT_EQ(CollectiveFloorPs(CollectiveKind::kBcast, 1000, 4, link, MpiConfig{}).value(), 2100u);
}

TEST(CollectiveFloorTest, AlltoallIsOneStepBoundByANodesOutgoingBytes) {
  // Node 0 sends 0->1, 0->3, 2->1, 2->3.
  EXPECT_EQ(FloorOf(CollectiveKind::kAlltoall, 1000), 4000u + 100u);
}

TEST(CollectiveFloorTest, EveryStepPaysTheAdaptersFixedCosts) {
  LinkModel link = TwoNodes();
  link.adapter_ps = 500;
  // Barrier: the crossing step only; the other stays on each node (shared memory, free).
  EXPECT_EQ(CollectiveFloorPs(CollectiveKind::kBarrier, 0, 4, link, MpiConfig{}).value(), 600u);
}

TEST(CollectiveFloorTest, AStepLoopedBackByTheAdapterCostsItsFixedCostsAndItsDma) {
  LinkModel link = TwoNodes();
  link.adapter_ps = 500;
  link.message_ps = 1000;
  link.intranode_through_adapter = true;
  // Barrier step 2 (rank + 2) loops back on each node: no crossing, the rest as step 1.
  EXPECT_EQ(CollectiveFloorPs(CollectiveKind::kBarrier, 0, 4, link, MpiConfig{}).value(),
            1600u + 1500u);
  // Bcast of 1,000 bytes: 0->1 crosses; then 0->2 and 1->3 loop back, each node's DMA engine
  // reading and writing 1,000 bytes at 0.5 ps per byte.
  link.dma_ps_per_byte = 0.5;
  EXPECT_EQ(CollectiveFloorPs(CollectiveKind::kBcast, 1000, 4, link, MpiConfig{}).value(),
            (1000u + 100u + 1500u) + (1000u + 1500u));
}

TEST(CollectiveFloorTest, AlltoallOfRendezvousBlocksGoesPairwise) {
  // Blocks above the eager limit: step k sends rank -> rank + k. Steps 1 and 3 send two blocks
  // out of each node (0->1 and 2->3 from node 0); step 2 stays on each node.
  const uint64_t block = MpiConfig{}.eager_limit + 1;
  EXPECT_EQ(FloorOf(CollectiveKind::kAlltoall, block), 2u * (2u * block + 100u));
}

TEST(CollectiveFloorTest, ShortCollectivesFollowTheTrees) {
  // Bcast: 0->1, then 0->2 and 1->3 on their own nodes.
  EXPECT_EQ(FloorOf(CollectiveKind::kBcast, 1000), 1100u);
  // Reduce: 1->0 and 3->2 into node 0, then 2->0 on it; then the broadcast.
  EXPECT_EQ(FloorOf(CollectiveKind::kAllreduce, 1000), 2100u + 1100u);
  // Gather: 1->0 and 3->0 into node 0; then a broadcast of 4,000 bytes.
  EXPECT_EQ(FloorOf(CollectiveKind::kAllgather, 1000), 2100u + 4100u);
}

TEST(CollectiveFloorTest, LongCollectivesGoAroundTheRing) {
  // Allgather of 200 KiB blocks (800 KiB in all): 3 steps, node 0 sending 0->1 and 2->3.
  EXPECT_EQ(FloorOf(CollectiveKind::kAllgather, 204800), 3u * (2u * 204800u + 100u));
  // Allreduce of 1 MiB: 6 ring steps of quarter pieces.
  EXPECT_EQ(FloorOf(CollectiveKind::kAllreduce, 1u << 20), 6u * (2u * 262144u + 100u));
  // Bcast of 1 MiB: the scatter (0->1 and 0->3 leave node 0), then 3 ring steps.
  EXPECT_EQ(FloorOf(CollectiveKind::kBcast, 1u << 20), 4u * (2u * 262144u + 100u));
}

TEST(CollectiveFloorTest, AdaptersShareANodesBytes) {
  LinkModel link = TwoNodes();
  link.adapters_per_node = 2;
  EXPECT_EQ(CollectiveFloorPs(CollectiveKind::kAlltoall, 1000, 4, link, MpiConfig{}).value(),
            2000u + 100u);
}

TEST(CollectiveFloorTest, AStepThatSendsAndReceivesIsBoundByTheDmaEngineWhenThatIsSlower) {
  // The long allgather's step: node 0 sends 2 x 204,800 bytes and receives as many. At 0.75
  // ps per byte the one DMA engine takes 1.5 x 409,600 ps, more than the link's 409,600.
  LinkModel link = TwoNodes();
  link.dma_ps_per_byte = 0.75;
  EXPECT_EQ(CollectiveFloorPs(CollectiveKind::kAllgather, 204800, 4, link, MpiConfig{}).value(),
            3u * (614400u + 100u));
  // At 0.25 ps per byte the link is the bound again.
  link.dma_ps_per_byte = 0.25;
  EXPECT_EQ(CollectiveFloorPs(CollectiveKind::kAllgather, 204800, 4, link, MpiConfig{}).value(),
            3u * (409600u + 100u));
}

TEST(CollectiveFloorTest, NoFloorWhenTheCollectivesDoNotGoPointToPoint) {
  MpiConfig multicast;
  multicast.bcast = CollectiveTransport::kMulticast;
  EXPECT_FALSE(CollectiveFloorPs(CollectiveKind::kBcast, 1000, 4, TwoNodes(), multicast));
  MpiConfig half;
  half.reduce = ReduceTransport::kHalfRdma;
  EXPECT_FALSE(CollectiveFloorPs(CollectiveKind::kAllreduce, 1000, 4, TwoNodes(), half));
}

}  // namespace
}  // namespace nicsim::mpi
