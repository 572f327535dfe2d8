// SPDX-License-Identifier: Apache-2.0
// Eager RDMA with buffer enlargement (ulp.eager_rdma, reference 001): exactly once and in
// order under faults, one enlargement per connection for a vector of large elements, rings
// and keys released once, a late write to a released ring dropped by the adapter, and writes
// of one tid to several peers posted without a refusal.
#include <gtest/gtest.h>

#include <cstdio>

#include "firmware/counters.h"
#include "tests/ulp/transport_harness.h"

namespace nicsim::sim {
namespace {

constexpr uint64_t kSmallSlot = 4 * 1024;
constexpr uint64_t kLargeSlot = 64 * 1024;
constexpr uint32_t kSlots = 4;
/** How long a released ring lingers, registered, before it goes (the longest packet
 *  retransmit timeout), plus a margin. */
const uint64_t kLinger = ulp::TransportConfig{}.rto_max_ps + 1'000'000;

/** Eager RDMA on, small slots 4 KiB, large 64 KiB, 4 slots; `shrink_idle_ps` 0: never. */
TransportCell EagerCell(uint32_t nodes, uint64_t shrink_idle_ps = 0) {
  TransportCell cell;
  cell.nodes = nodes;
  cell.tune = [shrink_idle_ps](ulp::TransportConfig& c) {
    c.eager_rdma = true;
    c.eager_small_slot = kSmallSlot;
    c.eager_large_slot = kLargeSlot;
    c.eager_slots = kSlots;
    c.eager_release_small = true;
    c.eager_shrink_idle_ps = shrink_idle_ps;
  };
  return cell;
}

/** Waves of mixed sizes a little apart among `cell.nodes` tasks (connections are made,
 *  enlarged and shrunk while writes are in flight on the ring before); returns how many
 *  messages were sent. */
uint64_t SendWaves(TransportHarness& h, const TransportCell& cell) {
  Rng rng(cell.seed, "eager_rdma_test");
  uint64_t sent = 0;
  for (int wave = 0; wave < 60; ++wave) {
    for (int i = 0; i < 10; ++i) {
      const auto src = static_cast<uint32_t>(rng.Below(cell.nodes));
      auto dst = static_cast<uint32_t>(rng.Below(cell.nodes - 1));
      if (dst >= src) ++dst;
      const uint64_t r = rng.Below(100);
      const uint64_t len = r < 60   ? rng.Below(4000)
                           : r < 95 ? rng.Below(64000)
                                    : rng.Below(1 << 20);
      h.SendOne(src, dst, rng.Below(TransportHarness::kSourceBytes - len), len);
      ++sent;
    }
    h.RunFor(wave % 10 == 9 ? 300'000'000 : 20'000'000);
  }
  h.Settle();
  return sent;
}

TEST(EagerRdmaTest, LossDuplicationAndReorderingNeverLoseOrReorderAMessage) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    TransportCell cell = EagerCell(4, 100'000'000);
    cell.loss = 0.02;
    cell.duplicate = 0.05;
    cell.reorder = 0.1;
    cell.seed = seed;
    TransportHarness h(cell);
    const uint64_t sent = SendWaves(h, cell);
    EXPECT_TRUE(h.errors().empty()) << h.errors().front();
    EXPECT_EQ(h.delivered(), sent);
    EXPECT_EQ(h.done(), sent);
    ulp::TransportStats total;
    for (uint32_t n = 0; n < cell.nodes; ++n) total += h.transport(n).stats();
    EXPECT_EQ(total.messages_delivered, sent);
    EXPECT_EQ(total.messages_failed, 0u);
    EXPECT_GT(total.eager_rdma_messages, 0u);
    EXPECT_GT(total.eager_enlargements, 0u);
    EXPECT_GT(total.eager_rdma_redrives, 0u);  // loss made some writes go again
    std::printf("eager %llu of %llu, enlargements %llu, shrinks %llu, redrives %llu\n",
                static_cast<unsigned long long>(total.eager_rdma_messages),
                static_cast<unsigned long long>(sent),
                static_cast<unsigned long long>(total.eager_enlargements),
                static_cast<unsigned long long>(total.eager_shrinks),
                static_cast<unsigned long long>(total.eager_rdma_redrives));
  }
}

TEST(EagerRdmaTest, WithoutFaultsAWriteIsRedrivenOnlyWhenItsAcknowledgementIsLate) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    TransportCell cell = EagerCell(4, 100'000'000);
    cell.seed = seed;
    TransportHarness h(cell);
    const uint64_t sent = SendWaves(h, cell);
    ulp::TransportStats total;
    for (uint32_t n = 0; n < cell.nodes; ++n) total += h.transport(n).stats();
    EXPECT_EQ(total.messages_delivered, sent);
    // No eager post is refused: the only busy rCxts are those of RTS reads redriven while
    // the source still sent the last attempt (one drop per such redrive at most).
    uint64_t busy = 0;
    uint64_t landed_again = 0;
    for (uint32_t n = 0; n < cell.nodes; ++n) {
      const fw::Counters& counters = h.cluster().adapter(n).firmware_counters();
      busy += counters.drop(fw::DropReason::kRdmaRcxtBusy);
      landed_again += counters.drop(fw::DropReason::kRdmaDuplicate);
    }
    EXPECT_LE(busy, total.rdma_redrives);
    // The timeout follows the measured round trip: what is still redriven had landed (its
    // acknowledgement waited behind the receiver's sends of up to 1 MiB), so the receiver
    // dropped it as a duplicate (the transport a whole write, the adapter packets of one
    // whose rCxt had them), at most one otherwise, and it is a small share (about half of
    // the writes before the round trip was measured).
    // (A second redrive of a larger write keeps its tid: the adapter drops it unanswered.)
    EXPECT_LE(total.eager_rdma_redrives - total.eager_fill_passes,
              total.eager_duplicates + landed_again + 1);
    EXPECT_EQ(total.eager_fallbacks, 0u);
    EXPECT_LT(total.eager_rdma_redrives * 4, total.eager_rdma_messages);
    std::printf("eager %llu, redrives %llu (fill passes %llu), duplicates %llu\n",
                static_cast<unsigned long long>(total.eager_rdma_messages),
                static_cast<unsigned long long>(total.eager_rdma_redrives),
                static_cast<unsigned long long>(total.eager_fill_passes),
                static_cast<unsigned long long>(total.eager_duplicates));
  }
}

/** Sends `count` messages of `len` bytes from task 0 to task 1, after one that makes the
 *  connection, each once the one before is done. */
void SendLargeUnderLoss(TransportHarness& h, uint32_t count, uint64_t len) {
  for (uint32_t i = 0; i <= count; ++i) {
    h.SendOne(0, 1, i * 4096, i == 0 ? 100 : len);
    // Each waits for the one before (for 1 s of simulated time at most): one large slot.
    for (int ms = 0; ms < 1000 && h.done() <= i; ++ms) h.RunFor(1'000'000'000);
  }
}

TEST(EagerRdmaTest, ALargeWriteUnderLossLandsByFillingInWhatItLacks) {
  // 256 KiB writes are 64 packets and more: at 10% loss one pass gets all of them through
  // about once in a thousand, so a write that started over on each redrive never landed
  // (the run stalled). Kept tids let each pass add what it brings.
  TransportCell cell = EagerCell(2);
  cell.loss = 0.1;
  cell.duplicate = 0.1;
  cell.seed = 5;
  const uint64_t large = 256 * 1024;
  const auto tune = cell.tune;
  cell.tune = [tune, large](ulp::TransportConfig& c) {
    tune(c);
    c.eager_large_slot = large + 32;
    c.eager_large_slots = 1;
  };
  TransportHarness h(cell);
  constexpr uint32_t kCount = 12;
  SendLargeUnderLoss(h, kCount, large);
  EXPECT_TRUE(h.errors().empty()) << h.errors().front();
  EXPECT_EQ(h.delivered(), kCount + 1);
  const ulp::TransportStats& s = h.transport(0).stats();
  // The first large message asked for the enlargement; the rest went by eager RDMA, but for
  // one now and then whose write or acknowledgement the loss kept back through every redrive
  // (seeds 1-10 of this cell: 0 or 1 such fallbacks) and which went in packet mode instead.
  EXPECT_EQ(s.eager_rdma_messages + s.eager_fallbacks, kCount - 1);
  EXPECT_GE(s.eager_rdma_messages, kCount - 3);
  EXPECT_GT(s.eager_fill_passes, 0u);
  // Fill passes resend packets that had landed: the adapter drops those.
  EXPECT_GT(h.cluster().adapter(1).firmware_counters().drop(fw::DropReason::kRdmaDuplicate), 0u);
  EXPECT_EQ(h.transport(1).stats().messages_delivered, kCount + 1);
}

TEST(EagerRdmaTest, AWriteNotDeliveredAfterTheRedrivesAllowedGoesInPacketMode) {
  // No redrive allowed: a write whose acknowledgement does not come in time is given up and
  // its message goes in packet mode; the receiver keeps the copy that lands first.
  for (uint64_t seed : {1u, 2u}) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    TransportCell cell = EagerCell(2);
    cell.loss = 0.2;
    cell.seed = seed;
    const auto tune = cell.tune;
    cell.tune = [tune](ulp::TransportConfig& c) {
      tune(c);
      c.eager_redrives = 0;
    };
    TransportHarness h(cell);
    constexpr uint32_t kCount = 40;
    SendLargeUnderLoss(h, kCount, 3000);
    EXPECT_TRUE(h.errors().empty()) << h.errors().front();
    EXPECT_EQ(h.delivered(), kCount + 1);
    EXPECT_EQ(h.done(), kCount + 1);
    const ulp::TransportStats& s = h.transport(0).stats();
    EXPECT_EQ(s.eager_rdma_redrives, 0u);
    EXPECT_GT(s.eager_fallbacks, 0u);
    EXPECT_EQ(h.transport(1).stats().messages_delivered, kCount + 1);
    std::printf("eager %llu, fallbacks %llu, receiver duplicates %llu\n",
                static_cast<unsigned long long>(s.eager_rdma_messages),
                static_cast<unsigned long long>(s.eager_fallbacks),
                static_cast<unsigned long long>(h.transport(1).stats().duplicates));
  }
}

TEST(EagerRdmaTest, AVectorWhoseEveryElementNeedsALargeSlotEnlargesOnce) {
  TransportHarness h(EagerCell(2));
  // The first message makes the connection (small slots); the second goes by eager RDMA.
  h.SendOne(0, 1, 0, 100);
  h.Settle();
  h.SendOne(0, 1, 100, 200);
  h.Settle();
  const ulp::TransportStats& s = h.transport(0).stats();
  EXPECT_EQ(h.transport(0).eager().SlotBytesTo(1), kSmallSlot);
  EXPECT_EQ(s.eager_rdma_messages, 1u);
  EXPECT_EQ(s.eager_enlargements, 0u);
  // Five 20 KiB elements: each needs a large slot, one enlargement asks for them.
  std::vector<std::pair<uint64_t, uint64_t>> large;
  for (uint64_t i = 0; i < 5; ++i) large.push_back({1000 + i * 30000, 20 * 1024});
  h.SendVector(0, 1, large);
  h.Settle();
  EXPECT_EQ(s.eager_enlargements, 1u);
  EXPECT_EQ(h.transport(0).eager().SlotBytesTo(1), kLargeSlot);
  // The next vector, small and large elements mixed, goes whole over the large ring.
  std::vector<std::pair<uint64_t, uint64_t>> mixed = {
      {7, 30}, {500, 20 * 1024}, {9, 3000}, {40000, 60 * 1024}};
  const uint64_t before = s.eager_rdma_messages;
  h.SendVector(0, 1, mixed);
  h.Settle();
  EXPECT_EQ(s.eager_rdma_messages - before, 4u);
  EXPECT_EQ(s.eager_enlargements, 1u);
  EXPECT_EQ(h.vectors_done(), 2u);
  EXPECT_TRUE(h.errors().empty()) << h.errors().front();
  EXPECT_EQ(h.delivered(), 11u);
  EXPECT_EQ(h.transport(1).stats().messages_delivered, 11u);
}

TEST(EagerRdmaTest, RingsAndKeysAreReleasedExactlyOnceThroughEnlargeAndShrink) {
  constexpr uint64_t kIdle = 10'000'000'000;  // 10 ms
  TransportHarness h(EagerCell(2, kIdle));
  h.SendOne(0, 1, 0, 100);  // makes the small connection
  h.Settle();
  h.SendOne(0, 1, 0, 30000);  // enlarges it
  h.Settle();
  h.RunFor(kLinger);
  h.SendOne(0, 1, 0, 30000);  // goes over the large ring
  h.Settle();
  h.RunFor(kLinger);
  const ulp::TransportStats& tx = h.transport(0).stats();
  const ulp::TransportStats& rx = h.transport(1).stats();
  EXPECT_EQ(tx.eager_rdma_messages, 1u);
  EXPECT_EQ(h.transport(0).eager().SlotBytesTo(1), kLargeSlot);
  // Small ring and small staging released once each; the large ones are held.
  EXPECT_EQ(rx.eager_registrations, 2u);
  EXPECT_EQ(rx.eager_deregistrations, 1u);
  EXPECT_EQ(rx.eager_rings_released, 1u);
  EXPECT_EQ(rx.eager_rcxts_taken, 2 * kSlots);
  EXPECT_EQ(rx.eager_rcxts_released, kSlots);
  EXPECT_EQ(rx.eager_ring_bytes, kLargeSlot * kSlots);
  EXPECT_EQ(rx.eager_ring_bytes_peak, (kSmallSlot + kLargeSlot) * kSlots);
  EXPECT_EQ(tx.eager_registrations, 2u);
  EXPECT_EQ(tx.eager_deregistrations, 1u);
  EXPECT_EQ(tx.eager_ring_bytes, kLargeSlot * kSlots);
  // Idle past ulp.eager_shrink_idle: back to small slots, the large ring released once.
  h.RunFor(kIdle + kLinger);
  EXPECT_EQ(tx.eager_shrinks, 1u);
  EXPECT_EQ(h.transport(0).eager().SlotBytesTo(1), kSmallSlot);
  EXPECT_EQ(rx.eager_registrations, 3u);
  EXPECT_EQ(rx.eager_deregistrations, 2u);
  EXPECT_EQ(rx.eager_rings_released, 2u);
  EXPECT_EQ(rx.eager_rcxts_taken, 3 * kSlots);
  EXPECT_EQ(rx.eager_rcxts_released, 2 * kSlots);
  EXPECT_EQ(rx.eager_ring_bytes, kSmallSlot * kSlots);
  EXPECT_EQ(tx.eager_registrations, 3u);
  EXPECT_EQ(tx.eager_deregistrations, 2u);
  EXPECT_EQ(tx.eager_ring_bytes, kSmallSlot * kSlots);
  // Nothing more is released however long it stays idle.
  h.RunFor(3 * kIdle);
  EXPECT_EQ(rx.eager_deregistrations, 2u);
  EXPECT_EQ(tx.eager_shrinks, 1u);
  EXPECT_TRUE(h.errors().empty()) << h.errors().front();
}

TEST(EagerRdmaTest, AWriteToAReleasedSmallRingIsDroppedByTheAdapterAndNeverDelivered) {
  TransportHarness h(EagerCell(2));
  h.SendOne(0, 1, 0, 100);
  h.Settle();
  // Where the small ring is, as the sender was told.
  const auto [small_pvo, small_rcxts] = h.transport(1).eager().RingFrom(0);
  ASSERT_EQ(small_rcxts.size(), kSlots);
  h.SendOne(0, 1, 0, 30000);  // enlarges: the small ring is released
  h.Settle();
  h.RunFor(kLinger);
  ASSERT_EQ(h.transport(1).stats().eager_rings_released, 1u);
  const fw::Counters& fc = h.cluster().adapter(1).firmware_counters();
  const uint64_t bad_before = fc.drop(fw::DropReason::kRdmaBadRcxt);
  const uint64_t delivered_before = h.transport(1).stats().messages_delivered;
  // A trickle write: task 0 writes into the released ring's first slot.
  Result<uint32_t> src = h.port(0).AcquireRcxt();
  ASSERT_TRUE(src.ok());
  Result<driver::Registration> reg = h.host(0).Register(h.source(0), 4096);
  ASSERT_TRUE(reg.ok());
  abi::RdmaRequest r{};
  r.local_rcxt = *src;
  r.remote_rcxt = small_rcxts[0];
  r.tid = 1000 * ulp::kEagerAttempts;
  r.length = 200;
  r.local_pvo = reg->pvo;
  r.remote_pvo = small_pvo;
  r.flags = abi::kReqNotifyTarget;
  h.port(0).Post(abi::SlotType::kRdmaWrite, hal::Peer{1, 0}, r, 0);
  h.RunFor(50'000'000);
  EXPECT_EQ(fc.drop(fw::DropReason::kRdmaBadRcxt), bad_before + 1);
  EXPECT_EQ(h.transport(1).stats().messages_delivered, delivered_before);
  EXPECT_EQ(h.transport(1).stats().eager_flag_mismatches, 0u);
  EXPECT_TRUE(h.errors().empty()) << h.errors().front();
}

TEST(EagerRdmaTest, WritesToSeveralPeersWithOneTidAreNeitherRefusedNorRedriven) {
  // Each connection numbers its writes from 1, so the first eager write to each peer carries
  // the same tid. The write to peer 1 leaves its source rCxt idle under that tid; the three
  // posted next, in one instant, must not take it (it would look idle under their tid before
  // the adapter took the first of them) and then one another's: the adapter would refuse a
  // post on a busy source, and that write would go again after its timeout.
  TransportHarness h(EagerCell(5));
  for (uint32_t dst = 1; dst < 5; ++dst) h.SendOne(0, dst, 0, 100);  // makes the connections
  h.Settle();
  h.SendOne(0, 1, 100, 300);
  h.Settle();
  for (uint32_t dst = 2; dst < 5; ++dst) h.SendOne(0, dst, 200 * dst, 300);
  h.Settle();
  const ulp::TransportStats& s = h.transport(0).stats();
  EXPECT_EQ(s.eager_rdma_messages, 4u);
  EXPECT_EQ(s.eager_rdma_redrives, 0u);
  EXPECT_EQ(h.cluster().adapter(0).firmware_counters().drop(fw::DropReason::kRdmaRcxtBusy), 0u);
  EXPECT_TRUE(h.errors().empty()) << h.errors().front();
  EXPECT_EQ(h.delivered(), 8u);
}

TEST(EagerRdmaTest, OffByDefaultSendsNothingByEagerRdma) {
  TransportCell cell;
  cell.nodes = 3;
  cell.messages = 100;
  TransportHarness h(cell);
  h.Run();
  EXPECT_TRUE(h.errors().empty());
  for (uint32_t n = 0; n < 3; ++n) {
    EXPECT_EQ(h.transport(n).stats().eager_rdma_messages, 0u);
    EXPECT_EQ(h.transport(n).stats().eager_registrations, 0u);
  }
}

}  // namespace
}  // namespace nicsim::sim
