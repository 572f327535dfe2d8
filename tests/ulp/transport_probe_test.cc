// SPDX-License-Identifier: Apache-2.0
// A late acknowledgement or RDMA completion is a queue until the other side says otherwise:
// the packet layer probes the receiver before sending a packet again, and the puller asks the
// source about a late read before redriving it. Queues never cause a copy; losses still do.
#include <gtest/gtest.h>

#include "tests/ulp/transport_harness.h"

namespace nicsim::sim {
namespace {

ulp::TransportStats Totals(TransportHarness& h) {
  ulp::TransportStats s;
  for (uint32_t n = 0; n < h.cell().nodes; ++n) s += h.transport(n).stats();
  return s;
}

uint64_t FabricDrops(TransportHarness& h) {
  uint64_t drops = 0;
  for (const auto& [reason, count] : h.cluster().fabric().counters().drops) drops += count;
  return drops;
}

void Drain(TransportHarness& h, uint64_t messages) {
  h.Settle();
  EXPECT_EQ(h.delivered(), messages);
  EXPECT_EQ(h.done(), messages);
  for (const std::string& e : h.errors()) ADD_FAILURE() << e;
  h.cluster().events().RunWhile([] { return true; });
  for (uint32_t n = 0; n < h.cell().nodes; ++n) EXPECT_TRUE(h.transport(n).Idle()) << n;
}

// Seven nodes send to node 0 at once, in packet mode: node 0's link and its send FIFO (its
// acknowledgements wait behind one another) hold every packet far longer than the 20 us
// timeout learned while the fabric was idle.
TEST(TransportProbeTest, ALosslessIncastSendsNoPacketTwice) {
  TransportCell cell;
  cell.nodes = 8;
  cell.messages = 0;
  cell.rdma = false;
  cell.tune = [](ulp::TransportConfig& c) {
    c.rto_ps = 20'000'000;
    c.rto_min_ps = 20'000'000;
  };
  TransportHarness h(cell);
  uint64_t sent = 0;
  for (uint32_t src = 1; src < cell.nodes; ++src) {
    for (uint64_t i = 0; i < 24; ++i) {
      h.SendOne(src, 0, (src * 7919 + i * 104729) % (1 << 20), 1 + (i * 2311) % 9000);
      ++sent;
    }
  }
  Drain(h, sent);
  const ulp::TransportStats s = Totals(h);
  EXPECT_GT(s.probes, 0u) << "no acknowledgement was late: the test asks nothing";
  EXPECT_EQ(s.retransmits, 0u);
  EXPECT_EQ(s.duplicates, 0u);
  EXPECT_EQ(FabricDrops(h), 0u);
  // Each sender has one destination, so one question out at a time: the other late packets
  // wait for its answer, which comes behind their acknowledgements.
  EXPECT_GT(s.probes_coalesced, s.probes);
}

// Under 2% loss every message still arrives once, and the copies sent again stay within twice
// the frames the fabric dropped (a destination that answered kNack gets copies on timeouts
// rather than probes, some of them needless when its queue was long).
TEST(TransportProbeTest, UnderLossCopiesStayWithinTwiceTheDrops) {
  for (uint64_t seed : {1, 2, 3}) {
    TransportCell cell;
    cell.nodes = 4;
    cell.messages = 300;
    cell.max_size = 64 * 1024;
    cell.rdma = false;
    cell.loss = 0.02;
    cell.seed = seed;
    TransportHarness h(cell);
    h.Run();
    EXPECT_EQ(h.delivered(), cell.messages) << "seed " << seed;
    for (const std::string& e : h.errors()) ADD_FAILURE() << "seed " << seed << ": " << e;
    h.cluster().events().RunWhile([] { return true; });
    const ulp::TransportStats s = Totals(h);
    EXPECT_GT(s.retransmits, 0u) << "seed " << seed;
    EXPECT_LE(s.retransmits, 2 * FabricDrops(h)) << "seed " << seed;
  }
}

// Six nodes pull 2 MiB each from node 0 at once. Each reader's first timeout counts only its
// own reads at the configured pace; node 0's window serves all six one after another, so the
// later reads wait far longer. The source says they are queued, and none is redriven.
TEST(TransportProbeTest, AReadQueuedAtItsSourceIsAskedAboutNotRedriven) {
  TransportCell cell;
  cell.nodes = 7;
  cell.messages = 0;
  cell.tune = [](ulp::TransportConfig& c) {
    c.rdma_timeout_base_ps = 20'000'000;
    c.rdma_timeout_ps_per_byte = 100;
  };
  TransportHarness h(cell);
  for (uint32_t dst = 1; dst < cell.nodes; ++dst) h.SendOne(0, dst, dst * 4096, 2u << 20);
  Drain(h, cell.nodes - 1);
  const ulp::TransportStats s = Totals(h);
  EXPECT_EQ(s.rdma_messages, cell.nodes - 1);
  EXPECT_GT(s.rdma_queries, 0u) << "no read was late: the test asks nothing";
  EXPECT_EQ(s.rdma_redrives, 0u);
  EXPECT_EQ(s.fallbacks, 0u);
  for (uint32_t n = 0; n < cell.nodes; ++n) {
    EXPECT_EQ(h.cluster().adapter(n).firmware_counters().drop(fw::DropReason::kRdmaStaleTid), 0u)
        << n;
  }
}

}  // namespace
}  // namespace nicsim::sim
