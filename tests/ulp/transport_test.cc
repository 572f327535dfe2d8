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

TEST(TransportTest, AnRdmaMessageIsOfferedPulledAndDeliveredThroughNamedStates) {
  using States = std::map<std::string, uint32_t>;
  TransportCell cell;
  cell.nodes = 2;
  cell.messages = 0;
  TransportHarness h(cell);
  ulp::Transport& tx = h.transport(0);
  ulp::Transport& rx = h.transport(1);
  std::vector<uint8_t> got;
  rx.OnDeliver(
      [&got](uint32_t, uint32_t, uint32_t, std::vector<uint8_t> d) { got = std::move(d); });
  bool done = false;
  tx.Send(1, 7, 0, h.source(0), 1 << 20, [&done] { done = true; });
  kernel::EventQueue& q = h.cluster().events();
  // The send starts after the (zero) software overhead: the RTS offers the buffer.
  q.RunWhile([&tx] { return tx.MessagesByState().count("out.offered") == 0; });
  EXPECT_EQ(tx.MessagesByState(), (States{{"out.offered", 1}}));
  EXPECT_EQ(rx.MessagesByState(), States{});
  // The RTS arrives: the receiver pulls.
  q.RunWhile([&rx] { return rx.MessagesByState().empty(); });
  EXPECT_EQ(rx.MessagesByState(), (States{{"in.pulling", 1}}));
  EXPECT_EQ(tx.MessagesByState(), (States{{"out.offered", 1}}));
  // The last chunk lands: delivered at once, and the sender is done when its word arrives.
  q.RunWhile([&done] { return !done; });
  EXPECT_EQ(rx.MessagesByState(), States{});
  EXPECT_EQ(tx.MessagesByState(), States{});
  ASSERT_EQ(got.size(), size_t{1} << 20);
  EXPECT_EQ(Crc32(0, got.data(), got.size()), Crc32(0, h.source_bytes(0).data(), got.size()));
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

/** Packet mode, messages up to 64 KiB, 20 us timeouts: bursts outlast a timeout. */
TransportCell ShortTimeoutPacketCell(uint32_t nodes, uint64_t messages) {
  TransportCell cell;
  cell.nodes = nodes;
  cell.messages = messages;
  cell.max_size = 64 * 1024;
  cell.rdma = false;
  cell.tune = [](ulp::TransportConfig& c) {
    c.rto_ps = 20'000'000;
    c.rto_min_ps = 20'000'000;
  };
  return cell;
}

/** Every task's transport counters added up. */
ulp::TransportStats JobTotals(TransportHarness& h, uint32_t nodes) {
  ulp::TransportStats sum;
  for (uint32_t n = 0; n < nodes; ++n) sum += h.transport(n).stats();
  return sum;
}

TEST(TransportTest, ATimeoutDoesNotResendAPacketStillWaitingInTheSendBacklog) {
  // Packet mode to three peers at once keeps more packets in flight (3 x 48) than the send
  // FIFO holds, so the rest wait in the user-side backlog for longer than a 20 us timeout.
  const TransportCell cell = ShortTimeoutPacketCell(4, 200);
  TransportHarness h(cell);
  h.Run();
  ExpectAllDelivered(h, cell);
  const ulp::TransportStats s = JobTotals(h, cell.nodes);
  // Resending those copies too sent about 50,000 packets, most of them retransmits.
  EXPECT_GT(s.retransmits_deferred, 0u);
  EXPECT_LT(s.packets_sent, 35'000u)
      << "retransmits " << s.retransmits << ", deferred " << s.retransmits_deferred;
  EXPECT_LE(s.retransmits, s.duplicates + s.packets_sent / 20);
}

TEST(TransportTest, ABurstQueuedInTheSendFifoTimesOutWithoutAProbeOrABackOff) {
  // Two nodes: each task's burst (48 packets in flight) waits in its send FIFO longer than a
  // timeout. Those timeouts send nothing; what is probed had left through the adapter.
  const TransportCell cell = ShortTimeoutPacketCell(2, 40);
  TransportHarness h(cell);
  h.Run();
  ExpectAllDelivered(h, cell);
  const ulp::TransportStats s = JobTotals(h, cell.nodes);
  EXPECT_GT(s.retransmits_deferred, 0u);
  EXPECT_EQ(s.retransmits, 0u);
  EXPECT_LT(s.probes, s.retransmits_deferred) << "deferred " << s.retransmits_deferred;
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
