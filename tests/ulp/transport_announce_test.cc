// SPDX-License-Identifier: Apache-2.0
// Announced messages (Transport::Announce): a rendezvous in one handshake. The receiver's
// upper layer hears of the message in its turn, and the transport pulls it only once accepted.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "base/crc32.h"
#include "tests/ulp/transport_harness.h"

namespace nicsim::sim {
namespace {

using States = std::map<std::string, uint32_t>;

/** What the receiving task's upper layer heard, in order: "deliver <tag>" or "announce <tag>". */
struct Heard {
  std::vector<std::string> events;
  uint32_t last_seq = 0;
  uint64_t last_total = 0;
  std::vector<uint8_t> accepted;
  uint32_t accepted_calls = 0;
};

void Listen(ulp::Transport& rx, Heard& heard) {
  rx.OnDeliver([&heard](uint32_t, uint32_t, uint32_t tag, std::vector<uint8_t>) {
    heard.events.push_back("deliver " + std::to_string(tag));
  });
  rx.OnAnnounce(
      [&heard](uint32_t src, uint32_t context, uint32_t tag, uint64_t total, uint32_t seq) {
        EXPECT_EQ(src, 0u);
        EXPECT_EQ(context, 7u);
        heard.events.push_back("announce " + std::to_string(tag));
        heard.last_seq = seq;
        heard.last_total = total;
      });
  rx.OnAccepted([&heard](uint32_t src, uint32_t seq, std::vector<uint8_t> data) {
    EXPECT_EQ(src, 0u);
    EXPECT_EQ(seq, heard.last_seq);
    ++heard.accepted_calls;
    heard.accepted = std::move(data);
  });
}

TransportCell TwoNodes() {
  TransportCell cell;
  cell.nodes = 2;
  cell.messages = 0;
  return cell;
}

void RunToQuiet(TransportHarness& h) {
  h.cluster().events().RunWhile([] { return true; });
}

/** Task 0 sends to task 1, whose upper layer records what it hears. */
class TransportAnnounceTest : public ::testing::Test {
 protected:
  TransportAnnounceTest() { Listen(rx, heard); }

  TransportHarness h{TwoNodes()};
  ulp::Transport& tx = h.transport(0);
  ulp::Transport& rx = h.transport(1);
  Heard heard;
};

TEST_F(TransportAnnounceTest, AnAnnouncedMessageIsPulledOnlyOnceAcceptedAndThenOnce) {
  uint32_t done = 0;
  tx.Announce(1, 7, 3, h.source(0), 1 << 20, [&done] { ++done; });
  RunToQuiet(h);
  // Heard of, not read: no chunk was pulled, and the sender waits.
  EXPECT_EQ(heard.events, std::vector<std::string>{"announce 3"});
  EXPECT_EQ(heard.last_total, uint64_t{1} << 20);
  EXPECT_EQ(rx.MessagesByState(), (States{{"in.announced", 1}}));
  EXPECT_EQ(tx.MessagesByState(), (States{{"out.offered", 1}}));
  EXPECT_EQ(rx.stats().rdma_chunks, 0u);
  EXPECT_EQ(rx.stats().messages_delivered, 0u);
  EXPECT_EQ(done, 0u);
  ASSERT_TRUE(rx.Accept(0, heard.last_seq, 0));
  EXPECT_FALSE(rx.Accept(0, heard.last_seq, 0));  // accepted already
  RunToQuiet(h);
  EXPECT_EQ(done, 1u);
  EXPECT_EQ(heard.accepted_calls, 1u);
  ASSERT_EQ(heard.accepted.size(), size_t{1} << 20);
  EXPECT_EQ(Crc32(0, heard.accepted.data(), heard.accepted.size()),
            Crc32(0, h.source_bytes(0).data(), heard.accepted.size()));
  EXPECT_EQ(tx.stats().messages_sent, 1u);
  EXPECT_EQ(rx.stats().messages_delivered, 1u);
  EXPECT_EQ(tx.stats().rdma_messages, 1u);
  EXPECT_EQ(rx.stats().fallbacks + tx.stats().fallbacks, 0u);
  // One handshake: the RTS and the done notice are the only packets besides acknowledgements.
  EXPECT_EQ(tx.stats().packets_sent, 1u);
  EXPECT_EQ(rx.stats().packets_sent, 1u);
  EXPECT_TRUE(tx.Idle());
  EXPECT_TRUE(rx.Idle());
}

TEST_F(TransportAnnounceTest, AnnouncementsTakeTheirTurnAmongDeliveriesAndDoNotHoldThemUp) {
  tx.Send(1, 7, 1, h.source(0), 100, nullptr);
  tx.Announce(1, 7, 2, h.source(0), 256 * 1024, nullptr);
  tx.Send(1, 7, 3, h.source(0) + 4096, 300, nullptr);
  tx.Send(1, 7, 4, h.source(0), 64 * 1024, nullptr);  // by RDMA, pulled at once
  RunToQuiet(h);
  EXPECT_EQ(heard.events,
            (std::vector<std::string>{"deliver 1", "announce 2", "deliver 3", "deliver 4"}));
  EXPECT_EQ(heard.accepted_calls, 0u);
  ASSERT_TRUE(rx.Accept(0, heard.last_seq, 0));
  RunToQuiet(h);
  ASSERT_EQ(heard.accepted.size(), 256u * 1024);
  EXPECT_TRUE(std::equal(heard.accepted.begin(), heard.accepted.end(), h.source_bytes(0).begin()));
  EXPECT_TRUE(rx.Idle());
}

TEST_F(TransportAnnounceTest, ASmallAnnouncementCarriesNoRdmaAndIsPushedOnceAccepted) {
  bool done = false;
  tx.Announce(1, 7, 5, h.source(0) + 10, 1000, [&done] { done = true; });
  RunToQuiet(h);
  EXPECT_FALSE(done);
  ASSERT_TRUE(rx.Accept(0, heard.last_seq, 0));
  RunToQuiet(h);
  EXPECT_TRUE(done);
  ASSERT_EQ(heard.accepted.size(), 1000u);
  EXPECT_TRUE(
      std::equal(heard.accepted.begin(), heard.accepted.end(), h.source_bytes(0).begin() + 10));
  // No RDMA was offered, so none fell back: the bytes were pushed as announced.
  EXPECT_EQ(tx.stats().rdma_messages, 0u);
  EXPECT_EQ(rx.stats().fallbacks + tx.stats().fallbacks, 0u);
  EXPECT_TRUE(tx.Idle());
  EXPECT_TRUE(rx.Idle());
}

TEST_F(TransportAnnounceTest, AnAcceptedMessageLandsInPlaceWithNoBytesHandedOver) {
  constexpr uint64_t kLen = 3 << 20;
  tx.Announce(1, 7, 6, h.source(0), kLen, nullptr);
  RunToQuiet(h);
  const uint64_t place = h.source(1) + (4 << 20);
  ASSERT_TRUE(rx.Accept(0, heard.last_seq, place));
  RunToQuiet(h);
  EXPECT_EQ(heard.accepted_calls, 1u);
  EXPECT_TRUE(heard.accepted.empty());
  std::vector<uint8_t> landed(kLen);
  h.cluster().address_space(1).Read(place, landed.data(), kLen);
  EXPECT_TRUE(std::equal(landed.begin(), landed.end(), h.source_bytes(0).begin()));
  EXPECT_EQ(rx.stats().host_copies, 0u);
  EXPECT_TRUE(rx.Idle());
}

TEST(TransportAnnounceLossTest, AnnouncedMessagesArriveExactlyOnceUnderLossAndDuplication) {
  TransportCell cell = TwoNodes();
  cell.loss = 0.05;
  cell.duplicate = 0.05;
  cell.reorder = 0.05;
  cell.seed = 9;
  TransportHarness h(cell);
  ulp::Transport& tx = h.transport(0);
  ulp::Transport& rx = h.transport(1);
  std::map<uint32_t, uint64_t> announced;  // seq -> total
  std::map<uint32_t, std::vector<uint8_t>> got;
  rx.OnAnnounce([&](uint32_t, uint32_t, uint32_t, uint64_t total, uint32_t seq) {
    EXPECT_EQ(announced.count(seq), 0u) << "announced twice: " << seq;
    announced[seq] = total;
    // Accepted as it is heard, as a receive posted early would.
    EXPECT_TRUE(rx.Accept(0, seq, 0));
  });
  rx.OnAccepted([&](uint32_t, uint32_t seq, std::vector<uint8_t> data) {
    EXPECT_EQ(got.count(seq), 0u) << "handed over twice: " << seq;
    got[seq] = std::move(data);
  });
  uint32_t done = 0;
  const uint64_t sizes[] = {0, 1, 5000, 70000, 1 << 20, 2500000};
  for (int round = 0; round < 3; ++round) {
    for (uint64_t len : sizes) tx.Announce(1, 7, 0, h.source(0), len, [&done] { ++done; });
  }
  RunToQuiet(h);
  ASSERT_EQ(got.size(), 18u) << "seed " << cell.seed;
  EXPECT_EQ(done, 18u);
  for (const auto& [seq, data] : got) {
    ASSERT_EQ(data.size(), announced[seq]);
    EXPECT_TRUE(std::equal(data.begin(), data.end(), h.source_bytes(0).begin())) << seq;
  }
  EXPECT_TRUE(tx.Idle());
  EXPECT_TRUE(rx.Idle());
}

}  // namespace
}  // namespace nicsim::sim
