// SPDX-License-Identifier: Apache-2.0
// Direct reads (Transport::Read): a reader reads a source's registered memory by RDMA over a
// read channel the source opened for it once, with no message to the source; exact bytes, once,
// under loss, duplication and reordering; a read that cannot get through is given up and the
// channel opened again.
#include <gtest/gtest.h>

#include <deque>
#include <optional>
#include <vector>

#include "base/rng.h"
#include "tests/ulp/transport_harness.h"

namespace nicsim::sim {
namespace {

TransportCell TwoNodes(double loss = 0, double duplicate = 0, double reorder = 0,
                       uint64_t seed = 1) {
  TransportCell cell;
  cell.nodes = 2;
  cell.messages = 0;
  cell.loss = loss;
  cell.duplicate = duplicate;
  cell.reorder = reorder;
  cell.seed = seed;
  return cell;
}

/** Node 1's source buffer, registered for good: the memory node 0 reads. */
uint64_t PublishSource(TransportHarness& h) {
  Result<std::vector<ulp::RegistrationCache::Span>> spans =
      h.transport(1).registrations().Acquire(h.source(1), TransportHarness::kSourceBytes);
  NICSIM_CHECK(spans.ok() && spans->size() == 1, "one registration for the source buffer");
  return spans->front().pvo;
}

std::vector<uint8_t> Slice(const std::vector<uint8_t>& bytes, uint64_t offset, uint64_t len) {
  return std::vector<uint8_t>(bytes.begin() + static_cast<ptrdiff_t>(offset),
                              bytes.begin() + static_cast<ptrdiff_t>(offset + len));
}

/** How one read ended (unset: not yet). */
struct Ended {
  std::optional<bool> landed;
  std::vector<uint8_t> data;
  uint32_t calls = 0;
};

ulp::ReadChannels::DoneFn Record(Ended& e) {
  return [&e](bool landed, std::vector<uint8_t> data) {
    ++e.calls;
    e.landed = landed;
    e.data = std::move(data);
  };
}

/** Node 0's first read of node 1: it starts nothing and opens the channel, which is open once
 *  the run settles. */
void OpenChannel(TransportHarness& h, uint64_t pvo) {
  Ended opening;
  EXPECT_FALSE(h.transport(0).Read(1, pvo, 8, 0, Record(opening)));
  h.Settle();
  EXPECT_EQ(opening.calls, 0u);
}

TEST(TransportReadTest, TheFirstReadOpensTheChannelAndLaterOnesBringTheBytesWithNoMessage) {
  TransportHarness h(TwoNodes());
  const uint64_t pvo = PublishSource(h);
  Ended first;
  // No channel yet: nothing starts, and the channel is asked for.
  EXPECT_FALSE(h.transport(0).Read(1, pvo + 100, 8, 0, Record(first)));
  h.Settle();
  EXPECT_EQ(first.calls, 0u);
  EXPECT_EQ(h.transport(1).stats().read_channels_opened, 1u);

  Ended small, large;
  ASSERT_TRUE(h.transport(0).Read(1, pvo + 100, 8, 0, Record(small)));
  ASSERT_TRUE(h.transport(0).Read(1, pvo + 5000, 200 * 1024, 0, Record(large)));
  h.Settle();
  ASSERT_EQ(small.calls, 1u);
  ASSERT_EQ(large.calls, 1u);
  EXPECT_EQ(small.landed, true);
  EXPECT_EQ(large.landed, true);
  EXPECT_EQ(small.data, Slice(h.source_bytes(1), 100, 8));
  EXPECT_EQ(large.data, Slice(h.source_bytes(1), 5000, 200 * 1024));
  // The source's upper layer heard nothing, and its transport only opened the channel.
  EXPECT_EQ(h.transport(1).stats().messages_delivered, 0u);
  EXPECT_EQ(h.transport(1).stats().read_channels_opened, 1u);
  EXPECT_EQ(h.transport(0).stats().rdma_reads, 2u);
  EXPECT_EQ(h.transport(0).stats().rdma_reads_given_up, 0u);
  EXPECT_EQ(h.transport(0).stats().rdma_redrives, 0u);
  EXPECT_TRUE(h.transport(0).Idle());
}

TEST(TransportReadTest, AReadLandsInPlaceInTheReadersRegisteredMemory) {
  TransportHarness h(TwoNodes());
  const uint64_t pvo = PublishSource(h);
  OpenChannel(h, pvo);
  Ended in_place;
  // Into node 0's own source buffer, at offset 4096: no bytes handed over, none copied.
  ASSERT_TRUE(h.transport(0).Read(1, pvo + 777, 3000, h.source(0) + 4096, Record(in_place)));
  h.Settle();
  ASSERT_EQ(in_place.landed, true);
  EXPECT_TRUE(in_place.data.empty());
  std::vector<uint8_t> landed(3000);
  h.cluster().address_space(0).Read(h.source(0) + 4096, landed.data(), landed.size());
  EXPECT_EQ(landed, Slice(h.source_bytes(1), 777, 3000));
  EXPECT_EQ(h.transport(0).stats().host_copies, 0u);
}

TEST(TransportReadTest, AChannelHoldsOneReadPerPairAndTheNextWaitsForAFreeOne) {
  TransportHarness h(TwoNodes());
  const uint64_t pvo = PublishSource(h);
  OpenChannel(h, pvo);
  std::vector<Ended> reads(ulp::kMaxReadPairs + 1);
  for (uint32_t i = 0; i < ulp::kMaxReadPairs; ++i) {
    EXPECT_TRUE(h.transport(0).Read(1, pvo + i * 64, 64, 0, Record(reads[i])));
  }
  EXPECT_FALSE(h.transport(0).Read(1, pvo, 64, 0, Record(reads.back())));
  h.Settle();
  for (uint32_t i = 0; i < ulp::kMaxReadPairs; ++i) {
    EXPECT_EQ(reads[i].data, Slice(h.source_bytes(1), i * 64, 64)) << i;
  }
  EXPECT_EQ(reads.back().calls, 0u);
  EXPECT_TRUE(h.transport(0).Read(1, pvo, 64, 0, Record(reads.back())));
  h.Settle();
  EXPECT_EQ(reads.back().data, Slice(h.source_bytes(1), 0, 64));
}

TEST(TransportReadTest, ReadsBringExactBytesOnceUnderLossDuplicationAndReordering) {
  for (uint64_t seed : {3u, 17u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TransportHarness h(TwoNodes(0.2, 0.3, 0.3, seed));
    const uint64_t pvo = PublishSource(h);
    Rng rng(seed, "transport_read_test");
    constexpr uint32_t kReads = 120;
    struct Wanted {
      uint64_t offset, len;
    };
    std::vector<Wanted> wanted;
    std::vector<Ended> ended(kReads);
    for (uint32_t i = 0; i < kReads; ++i) {
      const uint64_t len = 1 + rng.Below(i % 4 == 0 ? 64 * 1024 : 512);
      wanted.push_back({rng.Below(TransportHarness::kSourceBytes - len), len});
    }
    // Each read is started as soon as the channel takes it (a pair is free).
    uint32_t next = 0;
    h.cluster().events().RunWhile([&] {
      while (next < kReads && h.transport(0).Read(1, pvo + wanted[next].offset, wanted[next].len, 0,
                                                  Record(ended[next]))) {
        ++next;
      }
      if (next < kReads) return true;
      for (const Ended& e : ended) {
        if (e.calls == 0) return true;
      }
      return false;
    });
    ASSERT_EQ(next, kReads);
    const ulp::TransportStats& st = h.transport(0).stats();
    uint32_t given_up = 0;
    for (uint32_t i = 0; i < kReads; ++i) {
      ASSERT_EQ(ended[i].calls, 1u) << "read " << i;
      if (ended[i].landed == true) {
        EXPECT_EQ(ended[i].data, Slice(h.source_bytes(1), wanted[i].offset, wanted[i].len))
            << "read " << i;
      } else {
        ++given_up;
      }
    }
    // Loss this steady explains every failed attempt: none is given up.
    EXPECT_EQ(given_up, 0u);
    EXPECT_EQ(st.rdma_reads_given_up, 0u);
    EXPECT_EQ(st.rdma_reads, kReads);
    EXPECT_GT(st.rdma_redrives, 0u);  // the faults were met
    EXPECT_EQ(h.transport(1).stats().messages_delivered, 0u);
  }
}

TEST(TransportReadTest, AReadThatCannotGetThroughIsGivenUpAndTheChannelOpensAgain) {
  TransportHarness h(TwoNodes());
  const uint64_t pvo = PublishSource(h);
  OpenChannel(h, pvo);
  // Every packet between the nodes is lost from now on.
  h.cluster().fabric().SetPathDown(0, true);
  Ended lost;
  ASSERT_TRUE(h.transport(0).Read(1, pvo + 8, 8, 0, Record(lost)));
  h.cluster().events().RunWhile([&] { return lost.calls == 0; });
  ASSERT_EQ(lost.calls, 1u);
  EXPECT_EQ(lost.landed, false);
  EXPECT_EQ(h.transport(0).stats().rdma_reads_given_up, 1u);
  // The way is back: the next read opens a channel of a new generation, then reads.
  h.cluster().fabric().SetPathDown(0, false);
  Ended reopening, again;
  EXPECT_FALSE(h.transport(0).Read(1, pvo + 8, 8, 0, Record(reopening)));
  h.Settle();
  EXPECT_EQ(h.transport(1).stats().read_channels_opened, 2u);
  ASSERT_TRUE(h.transport(0).Read(1, pvo + 8, 8, 0, Record(again)));
  h.Settle();
  EXPECT_EQ(again.landed, true);
  EXPECT_EQ(again.data, Slice(h.source_bytes(1), 8, 8));
}

TEST(TransportReadTest, WithoutRdmaNoChannelOpensAndNoReadStarts) {
  TransportCell cell = TwoNodes();
  cell.rdma = false;
  TransportHarness h(cell);
  const uint64_t pvo = PublishSource(h);
  Ended never;
  EXPECT_FALSE(h.transport(0).Read(1, pvo, 8, 0, Record(never)));
  h.Settle();
  EXPECT_FALSE(h.transport(0).Read(1, pvo, 8, 0, Record(never)));
  EXPECT_EQ(h.transport(1).stats().read_channels_opened, 0u);
  EXPECT_EQ(h.transport(0).stats().rdma_reads, 0u);
  EXPECT_EQ(never.calls, 0u);
}

}  // namespace
}  // namespace nicsim::sim
