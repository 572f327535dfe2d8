// SPDX-License-Identifier: Apache-2.0
// The host owns the rCxt records in adapter SRAM and may rewrite one that is still on a
// window's send list (a ULP that releases an rCxt before its cancel has been seen). The
// microcode must then lose only what the rewrite cut off, counted, and go on working.
#include <gtest/gtest.h>

#include <vector>

#include "tests/e2e/rdma_expect.h"
#include "tests/e2e/rdma_harness.h"

namespace nicsim::sim {
namespace {

using abi::SlotType;
using fw::DropReason;

TEST(RdmaHostRewriteTest, ReleasingAnRcxtOnTheSendListDropsItAndTheCutTailButNotTheAdapter) {
  RdmaHarness h(Nodes(2));
  // Three writes queue on window 0's send list in order A, B, C; A is long enough to still
  // be sending when the host releases B.
  const uint32_t len_a = 256 << 10, len = 64 << 10;
  RdmaBuffer src_a = h.Alloc(0, len_a), src_b = h.Alloc(0, len), src_c = h.Alloc(0, len);
  RdmaBuffer dst_a = h.Alloc(1, len_a, abi::kPageShift4K, 0, kFill);
  RdmaBuffer dst_b = h.Alloc(1, len, abi::kPageShift4K, 0, kFill);
  RdmaBuffer dst_c = h.Alloc(1, len, abi::kPageShift4K, 0, kFill);
  h.Write(src_a, 0, RdmaHarness::Pattern(len_a, 31));
  h.Write(src_b, 0, RdmaHarness::Pattern(len, 32));
  h.Write(src_c, 0, RdmaHarness::Pattern(len, 33));
  const uint32_t a = h.Rcxt(0), b = h.Rcxt(0), c = h.Rcxt(0);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(a, h.Rcxt(1), 1, src_a.pvo(), dst_a.pvo(), len_a, kBoth));
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(b, h.Rcxt(1), 1, src_b.pvo(), dst_b.pvo(), len, kBoth));
  const uint32_t target_c = h.Rcxt(1);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(c, target_c, 1, src_c.pvo(), dst_c.pvo(), len, kBoth));
  h.Run(10'000'000);  // 10 us: every request posted, A part sent
  ASSERT_EQ(Lmt(h, 0).rcxt_count, 3u) << "A must still be sending with B and C behind it";
  ASSERT_EQ(RcxtState(h, 0, b), State(abi::RcxtState::kSending));

  // The host frees B (state free, list link cleared) without cancelling it first.
  ASSERT_TRUE(h.cluster().rcxts(0).Release(b).ok());
  h.Run();

  // A is whole. B is dropped from the list; the list past it was cut, so the list is
  // dropped too when the microcode reaches the cut: two drops, nothing else.
  EXPECT_EQ(h.Read(dst_a, 0, len_a), RdmaHarness::Pattern(len_a, 31));
  EXPECT_EQ(h.Read(dst_b, 0, len), std::vector<uint8_t>(len, kFill));
  EXPECT_EQ(h.Read(dst_c, 0, len), std::vector<uint8_t>(len, kFill));
  ExpectDrops(h, 0, {{DropReason::kRdmaBadRcxt, 2}});
  ExpectDrops(h, 1);
  EXPECT_EQ(h.Completions(0).size(), 1u);
  EXPECT_EQ(h.Completions(1).size(), 1u);
  EXPECT_EQ(Lmt(h, 0).rcxt_count, 0u);
  EXPECT_EQ(RcxtState(h, 0, c), State(abi::RcxtState::kSending));

  // The ULP recovers C the documented way: cancel, then redrive with a higher tid.
  abi::RdmaRequest cancel{};
  cancel.local_rcxt = c;
  h.Post(0, 0, SlotType::kRcxtCancel, 0, 0, cancel);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(c, target_c, 2, src_c.pvo(), dst_c.pvo(), len, kBoth));
  h.Run();
  EXPECT_EQ(h.Read(dst_c, 0, len), RdmaHarness::Pattern(len, 33));
  ExpectDrops(h, 0, {{DropReason::kRdmaBadRcxt, 2}});
  ExpectDrops(h, 1);
  // At the initiator: A's completion, C's first attempt reported cancelled (it was still on
  // the rCxt, sending, with nothing sent), then C's redrive.
  const std::vector<abi::CompletionRecord> at_initiator = h.Completions(0);
  ASSERT_EQ(at_initiator.size(), 3u);
  EXPECT_EQ(at_initiator[1].rcxt, c);
  EXPECT_EQ(at_initiator[1].tid, 1u);
  EXPECT_EQ(at_initiator[1].length, 0u);
  EXPECT_EQ(at_initiator[1].status, static_cast<uint32_t>(abi::RdmaStatus::kCancelled));
  EXPECT_EQ(at_initiator[2].tid, 2u);
  EXPECT_EQ(at_initiator[2].status, static_cast<uint32_t>(abi::RdmaStatus::kOk));
  EXPECT_EQ(h.Completions(1).size(), 2u);
  EXPECT_TRUE(h.CanariesIntact());
  ExpectWindowOpen(h, 0);
  ExpectWindowOpen(h, 1);
}

}  // namespace
}  // namespace nicsim::sim
