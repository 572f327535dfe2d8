// SPDX-License-Identifier: Apache-2.0
// Conditional RDMA on an event at the data sink: an armed landing rCxt (SlotType::kRcxtArm)
// bumps its queue when a transfer lands, so a write parked on that queue forwards what landed
// without the host. Which transfer counts (the tid floor), what happens when the landing
// comes before the arming, what was parked for an earlier transfer, and that the forwarded
// bytes are exactly those that landed.
#include <gtest/gtest.h>

#include "tests/e2e/rdma_harness.h"

namespace nicsim::sim {
namespace {

using abi::SlotType;

constexpr uint32_t kQueue = 5;
constexpr uint32_t kLen = 6000;  // three packets, the last one short

ClusterConfig Nodes(uint32_t nodes) {
  ClusterConfig c;
  c.backend = BackendKind::kFunc;
  c.nodes = nodes;
  return c;
}

/** Node 0 sends to node 1's landing buffer; node 1 forwards it to node 2 when it lands. */
struct Chain {
  explicit Chain(RdmaHarness& harness)
      : h(harness),
        src(h.Alloc(0, kLen)),
        mid(h.Alloc(1, kLen)),
        sink(h.Alloc(2, kLen)),
        landing(h.Rcxt(1)),
        forward(h.Rcxt(1)),
        sink_rcxt(h.Rcxt(2)) {}

  void Arm(uint32_t tid) {
    abi::RdmaRequest a{};
    a.local_rcxt = landing;
    a.tid = tid;
    a.cond_queue = kQueue;
    h.Post(1, 0, SlotType::kRcxtArm, 1, 0, a);
  }
  void ParkForward(uint32_t tid) {
    abi::RdmaRequest f =
        Request(forward, sink_rcxt, tid, mid.pvo(), sink.pvo(), kLen, abi::kReqNotifyTarget);
    f.cond_queue = kQueue;
    f.count = 1;
    f.parked_type = static_cast<uint8_t>(SlotType::kRdmaWrite);
    h.Post(1, 0, SlotType::kConditional, 2, 0, f);
  }
  void Send(uint32_t tid, uint64_t seed) {
    h.Write(src, 0, RdmaHarness::Pattern(kLen, seed));
    h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
           Request(h.Rcxt(0), landing, tid, src.pvo(), mid.pvo(), kLen, abi::kReqNotifyTarget));
  }
  uint32_t counter() { return h.cluster().adapter(1).microcode().conditional_counter(kQueue); }

  RdmaHarness& h;
  RdmaBuffer src, mid, sink;
  uint32_t landing, forward, sink_rcxt;
};

TEST(RdmaChainTest, ALandingOnAnArmedRcxtFiresTheForwardParkedOnIt) {
  RdmaHarness h(Nodes(3));
  Chain c(h);
  c.Arm(256);
  c.ParkForward(256);
  h.Run();
  EXPECT_EQ(c.counter(), 0u);
  EXPECT_TRUE(h.Completions(2).empty());  // parked: nothing has landed on node 1
  c.Send(256, 7);
  h.Run();
  EXPECT_EQ(c.counter(), 1u);
  EXPECT_EQ(h.fw(1).rdma_conditional_fired, 1u);
  EXPECT_EQ(h.Read(c.sink, 0, kLen), RdmaHarness::Pattern(kLen, 7));
  // Node 1's host still hears of the landing; node 2 of the forward.
  ASSERT_EQ(h.Completions(1).size(), 1u);
  EXPECT_EQ(h.Completions(1)[0].tid, 256u);
  ASSERT_EQ(h.Completions(2).size(), 1u);
  EXPECT_EQ(h.Completions(2)[0].tid, 256u);
  EXPECT_TRUE(h.CanariesIntact());
}

TEST(RdmaChainTest, ArmingAfterTheLandingFiresAtOnce) {
  RdmaHarness h(Nodes(3));
  Chain c(h);
  c.Send(512, 8);
  h.Run();
  EXPECT_EQ(c.counter(), 0u);  // not armed yet: nothing counted
  c.Arm(512);
  c.ParkForward(512);
  h.Run();
  EXPECT_EQ(c.counter(), 1u);
  EXPECT_EQ(h.fw(1).rdma_conditional_fired, 1u);
  EXPECT_EQ(h.Read(c.sink, 0, kLen), RdmaHarness::Pattern(kLen, 8));
}

TEST(RdmaChainTest, ATransferOlderThanTheArmedTidIsStaleAndFiresNothing) {
  RdmaHarness h(Nodes(3));
  Chain c(h);
  c.Arm(1024);
  c.ParkForward(1024);
  c.Send(1000, 9);  // a late retry of an earlier message
  h.Run();
  EXPECT_EQ(c.counter(), 0u);
  EXPECT_EQ(h.fw(1).rdma_conditional_fired, 0u);
  EXPECT_GT(h.Drops(1, fw::DropReason::kRdmaStaleTid), 0u);
  EXPECT_EQ(h.Read(c.sink, 0, kLen), std::vector<uint8_t>(kLen, 0));
  c.Send(1025, 10);  // a retry of the awaited message (newer attempt): it counts
  h.Run();
  EXPECT_EQ(c.counter(), 1u);
  EXPECT_EQ(h.Read(c.sink, 0, kLen), RdmaHarness::Pattern(kLen, 10));
}

TEST(RdmaChainTest, TheArmingLastsAndEachLandingCountsOnce) {
  RdmaHarness h(Nodes(3));
  Chain c(h);
  c.Arm(256);
  c.Send(256, 11);
  h.Run();
  EXPECT_EQ(c.counter(), 1u);
  c.Send(257, 12);  // a second transfer on the same armed rCxt
  h.Run();
  EXPECT_EQ(c.counter(), 2u);
  // Arming for a tid that has landed says so: the counter restarts at 1.
  c.Arm(257);
  h.Run();
  EXPECT_EQ(c.counter(), 1u);
}

TEST(RdmaChainTest, ArmingForANewTransferDiscardsWhatWasParkedForTheOldOne) {
  RdmaHarness h(Nodes(3));
  Chain c(h);
  c.Arm(256);
  c.ParkForward(256);  // the transfer it waits for never lands here
  h.Run();
  c.Arm(512);
  h.Run();
  EXPECT_EQ(h.fw(1).rdma_conditional_discarded, 1u);
  c.Send(512, 13);
  h.Run();
  EXPECT_EQ(c.counter(), 1u);
  EXPECT_EQ(h.fw(1).rdma_conditional_fired, 0u);  // the old forward did not go with new bytes
  EXPECT_TRUE(h.Completions(2).empty());
}

TEST(RdmaChainTest, ArmingARcxtThatIsNotTheWindowsIsRejected) {
  RdmaHarness h(Nodes(3));
  Chain c(h);
  abi::RdmaRequest a{};
  a.local_rcxt = h.Rcxt(1, 1);  // window 1's
  a.tid = 256;
  a.cond_queue = kQueue;
  h.Post(1, 0, SlotType::kRcxtArm, 1, 0, a);
  a.local_rcxt = c.landing;
  a.cond_queue = abi::kConditionalQueues;
  h.Post(1, 0, SlotType::kRcxtArm, 1, 0, a);
  h.Run();
  EXPECT_EQ(h.Drops(1, fw::DropReason::kRdmaBadRcxt), 1u);
  EXPECT_EQ(h.Drops(1, fw::DropReason::kRdmaBadRequest), 1u);
}

}  // namespace
}  // namespace nicsim::sim
