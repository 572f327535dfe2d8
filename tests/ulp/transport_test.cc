// SPDX-License-Identifier: Apache-2.0
// The reliable transport end to end on the functional cluster.
#include <gtest/gtest.h>

#include "tests/ulp/transport_harness.h"

namespace nicsim::sim {
namespace {

void ExpectAllDelivered(TransportHarness& h, const TransportCell& cell) {
  EXPECT_EQ(h.delivered(), cell.messages);
  EXPECT_EQ(h.done(), cell.messages);
  for (const std::string& e : h.errors()) ADD_FAILURE() << e;
  // The last acknowledgements (of done and fallback notices) drain, then nothing is left.
  h.cluster().events().RunWhile([] { return true; });
  for (uint32_t n = 0; n < cell.nodes; ++n) EXPECT_TRUE(h.transport(n).Idle()) << n;
}

TEST(TransportTest, DeliversEveryMessageOnceInOrderWithoutFaults) {
  TransportCell cell;
  cell.messages = 300;
  TransportHarness h(cell);
  h.Run();
  ExpectAllDelivered(h, cell);
  uint64_t rdma = 0;
  for (uint32_t n = 0; n < cell.nodes; ++n) rdma += h.transport(n).stats().rdma_messages;
  EXPECT_GT(rdma, 50u);
}

TEST(TransportTest, PacketModeOnlyWhenRdmaIsOff) {
  TransportCell cell;
  cell.messages = 100;
  cell.max_size = 256 * 1024;
  cell.rdma = false;
  TransportHarness h(cell);
  h.Run();
  ExpectAllDelivered(h, cell);
  for (uint32_t n = 0; n < cell.nodes; ++n) EXPECT_EQ(h.transport(n).stats().rdma_messages, 0u);
}

TEST(TransportTest, SurvivesLossDuplicationReorderingAndCorruption) {
  TransportCell cell;
  cell.messages = 200;
  cell.loss = 0.02;
  cell.duplicate = 0.05;
  cell.reorder = 0.1;
  cell.corrupt = 0.01;
  TransportHarness h(cell);
  h.Run();
  ExpectAllDelivered(h, cell);
}

}  // namespace
}  // namespace nicsim::sim
