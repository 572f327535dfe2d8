// SPDX-License-Identifier: Apache-2.0
// Property tests of RDMA against a reference memory model: random transfers (0 B to 64 MiB,
// random alignment and page sizes) through a fabric that reorders, duplicates every packet,
// or loses packets (then the transfer is retried with a higher tid until it completes).
// After each transfer the target buffer equals the model byte for byte and every canary is
// intact. A failure prints its seed; NICSIM_TEST_SEED=<seed> replays it.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/rdma_harness.h"
#include "tests/support/test_seed.h"

namespace nicsim::sim {
namespace {

using abi::SlotType;

uint32_t PageShift(Rng& rng) {
  static constexpr uint32_t kShifts[] = {abi::kPageShift4K, abi::kPageShift64K, abi::kPageShift16M};
  return kShifts[rng.Below(3)];
}

/** Log-uniform length in [0, max] with the ends over-represented. */
uint32_t Length(Rng& rng, uint32_t max) {
  switch (rng.Below(8)) {
    case 0:
      return 0;
    case 1:
      return max;
    default: {
      const uint32_t bits = static_cast<uint32_t>(rng.Below(32 - __builtin_clz(max)));
      return static_cast<uint32_t>(rng.Below((uint64_t{1} << bits) + 1));
    }
  }
}

struct Fabric {
  double duplicate = 0;
  double reorder = 0;
  double loss = 0;
};

/**
 * Runs `transfers` random writes and reads between two nodes. Each goes into a fresh pair
 * of buffers; the model is what the target must hold afterwards.
 */
void RunProperty(uint64_t seed, const Fabric& faults, int transfers, uint32_t max_len,
                 bool force_max) {
  SCOPED_TRACE("seed " + std::to_string(seed) +
               " (replay with NICSIM_TEST_SEED=" + std::to_string(seed) + ")");
  ClusterConfig c;
  c.backend = BackendKind::kFunc;
  c.nodes = 2;
  c.seed = seed;
  c.fabric.paths = 4;
  c.fabric.routing = RoutingPolicy::kRandom;
  c.fabric.duplicate = faults.duplicate;
  c.fabric.reorder = faults.reorder;
  c.fabric.loss = faults.loss;
  c.rdma_host_bytes = uint64_t{400} << 20;
  RdmaHarness h(c);
  Rng rng(seed, "rdma_property");
  uint32_t tid = 1;
  for (int t = 0; t < transfers; ++t) {
    const uint32_t len = (force_max && t == 0) ? max_len : Length(rng, max_len);
    const bool read = rng.Below(2) == 1;
    const uint32_t src_node = read ? 1 : 0, dst_node = 1 - src_node;
    const uint32_t src_shift = PageShift(rng), dst_shift = PageShift(rng);
    const uint64_t src_align = rng.Below(4096), dst_align = rng.Below(4096);
    SCOPED_TRACE("transfer " + std::to_string(t) + ": " + (read ? "read " : "write ") +
                 std::to_string(len) + " B");
    RdmaBuffer src = h.Alloc(src_node, len, src_shift, src_align);
    RdmaBuffer dst = h.Alloc(dst_node, len, dst_shift, dst_align, 0x5E);
    const std::vector<uint8_t> data = RdmaHarness::Pattern(len, seed * 1000 + t);
    h.Write(src, 0, data);
    // The initiator is node 0 either way: it writes from, or reads into, its buffer.
    const uint32_t li = h.Rcxt(0), rr = h.Rcxt(1);
    const uint64_t local_pvo = read ? dst.pvo() : src.pvo();
    const uint64_t remote_pvo = read ? src.pvo() : dst.pvo();
    size_t done_before = h.Completions(0).size();
    bool completed = false;
    for (int attempt = 0; attempt < 200 && !completed; ++attempt) {
      if (attempt > 0) {
        // Timed out: cancel whatever the local rCxt still holds (a read's partly landed
        // data), then redrive with a higher tid.
        abi::RdmaRequest cancel{};
        cancel.local_rcxt = li;
        h.Post(0, 0, SlotType::kRcxtCancel, 0, 0, cancel);
      }
      h.Post(0, 0, read ? SlotType::kRdmaRead : SlotType::kRdmaWrite, 1, 0,
             Request(li, rr, tid++, local_pvo, remote_pvo, len, abi::kReqNotifyInitiator));
      h.Run(h.cluster().events().now_ps() + uint64_t{2} * 1'000'000'000'000ull);
      const auto completions = h.Completions(0);
      // Only a completion for the latest tid counts; stale ones are the ULP's to ignore.
      for (size_t i = done_before; i < completions.size(); ++i) {
        completed |= completions[i].tid == tid - 1 && completions[i].length == len;
      }
      done_before = completions.size();
    }
    ASSERT_TRUE(completed) << "no completion after 200 attempts\n" << h.DropReport();
    ASSERT_EQ(h.Read(dst, 0, len), data);
    ASSERT_TRUE(h.CanariesIntact());
  }
  if (faults.loss == 0) {
    // Nothing was lost: every duplicate was caught, none landed twice.
    EXPECT_EQ(h.fw(0).drop(fw::DropReason::kRdmaAddressException) +
                  h.fw(1).drop(fw::DropReason::kRdmaAddressException),
              0u);
  }
}

TEST(RdmaPropertyTest, RandomTransfersUpTo64MiBOutOfOrder) {
  RunProperty(nicsim::testing::TestSeed(11), Fabric{0, 0.2, 0}, 12, 64u << 20, true);
}

TEST(RdmaPropertyTest, EveryPacketDuplicatedLandsOnceAndCompletesOnce) {
  const uint64_t seed = nicsim::testing::TestSeed(12);
  RunProperty(seed, Fabric{1.0, 0.1, 0}, 16, 1u << 20, false);
}

TEST(RdmaPropertyTest, LostPacketsMeanNoCompletionUntilARetryWithAHigherTid) {
  RunProperty(nicsim::testing::TestSeed(13), Fabric{0.02, 0.1, 0.01}, 16, 256u << 10, false);
}

TEST(RdmaPropertyTest, DuplicatesNeverCompleteATransferEarly) {
  // With every packet duplicated and heavy reordering, a transfer missing one packet must
  // not complete: hold back one packet by losing it, check, then retry.
  const uint64_t seed = nicsim::testing::TestSeed(14);
  SCOPED_TRACE("seed " + std::to_string(seed));
  ClusterConfig c;
  c.backend = BackendKind::kFunc;
  c.nodes = 2;
  c.seed = seed;
  c.fabric.duplicate = 1.0;
  c.fabric.reorder = 0.5;
  RdmaHarness h(c);
  const uint32_t len = 64 * abi::kRdmaPacketBytes;
  RdmaBuffer src = h.Alloc(0, len), dst = h.Alloc(1, len, abi::kPageShift4K, 0, 0x5E);
  h.Write(src, 0, RdmaHarness::Pattern(len, 1));
  const uint32_t li = h.Rcxt(0), rt = h.Rcxt(1);
  h.cluster().fabric().SetHoldFraction(0.03);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(li, rt, 1, src.pvo(), dst.pvo(), len, abi::kReqNotifyInitiator));
  h.Run();
  const size_t held = h.cluster().fabric().held();
  ASSERT_GT(held, 0u) << "the seed held nothing back";
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_EQ(h.fw(1).rdma_transfers_landed, 0u);
  h.cluster().fabric().SetHoldFraction(0);
  h.cluster().fabric().ReleaseHeld();
  h.Run();
  ASSERT_EQ(h.Completions(0).size(), 1u);
  EXPECT_EQ(h.Read(dst, 0, len), RdmaHarness::Pattern(len, 1));
  EXPECT_EQ(h.fw(1).rdma_transfers_landed, 1u);
}

}  // namespace
}  // namespace nicsim::sim
