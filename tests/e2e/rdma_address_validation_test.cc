// SPDX-License-Identifier: Apache-2.0
// RDMA validation end to end on the functional backend, addresses: PVOs that reach another
// job's table, PVO key, bounds and wrap failures (address exceptions that stop the window)
// and zero-length transfers.
//
// Every test asserts the exact drop counters of both adapters (every DropReason, not only the
// RDMA ones), the exact bytes of the buffers involved and that every canary is intact.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "hw/common/frame_codec.h"
#include "tests/e2e/rdma_expect.h"
#include "tests/e2e/rdma_harness.h"

namespace nicsim::sim {
namespace {

using abi::SlotType;
using fw::DropReason;

// ---------------------------------------------------------------------------------------
// 1. Cross-job access: a table the job does not own is a silent drop, not an exception.

TEST(RdmaValidationTest, PvoNamingATableOfAnotherJobIsDroppedSilently) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 8192;
  RdmaBuffer src = h.Alloc(0, len), dst = h.Alloc(1, len, abi::kPageShift4K, 0, kFill);
  h.Write(src, 0, RdmaHarness::Pattern(len, 12));
  // Another job holds a slot on node 1; take one of its tables of the same page size.
  driver::TceTables& tables = h.cluster().tce_tables(1);
  const uint32_t other_job = h.cluster().job_key() + 2;
  ASSERT_TRUE(tables.ReserveJob(other_job).ok());
  uint32_t other_table = abi::kTceTables;
  for (uint32_t t = 0; t < tables.table_count(); ++t) {
    if (tables.owner(t) == other_job && tables.page_shift(t) == abi::kPageShift4K) other_table = t;
  }
  ASSERT_LT(other_table, abi::kTceTables);
  ASSERT_EQ(tables.owner(abi::PvoTable(dst.pvo())), h.cluster().job_key());
  const uint64_t cross =
      abi::MakePvo(abi::PvoKey(dst.pvo()), other_table, abi::PvoOffset(dst.pvo()));
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), cross, len, kBoth));
  h.Run();
  ExpectDrops(h, 1, {{DropReason::kRdmaTableOwner, 4}});
  ExpectDrops(h, 0);
  EXPECT_EQ(h.fw(1).rdma_packets_in, 0u);
  EXPECT_EQ(h.Read(dst, 0, len), Filled(len));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
  ExpectWindowOpen(h, 1);
}

TEST(RdmaValidationTest, PvoNamingATableNoJobOwnsIsDroppedSilently) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 8192;
  RdmaBuffer src = h.Alloc(0, len), dst = h.Alloc(1, len, abi::kPageShift4K, 0, kFill);
  h.Write(src, 0, RdmaHarness::Pattern(len, 13));
  driver::TceTables& tables = h.cluster().tce_tables(1);
  uint32_t free_table = abi::kTceTables;
  for (uint32_t t = 0; t < tables.table_count(); ++t) {
    if (tables.owner(t) == abi::kNoJob && tables.page_shift(t) == abi::kPageShift4K) free_table = t;
  }
  ASSERT_LT(free_table, abi::kTceTables);
  const uint64_t cross =
      abi::MakePvo(abi::PvoKey(dst.pvo()), free_table, abi::PvoOffset(dst.pvo()));
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), cross, len, kBoth));
  h.Run();
  ExpectDrops(h, 1, {{DropReason::kRdmaTableOwner, 4}});
  ExpectDrops(h, 0);
  EXPECT_EQ(h.Read(dst, 0, len), Filled(len));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(1).empty());
  ExpectWindowOpen(h, 1);
}

// ---------------------------------------------------------------------------------------
// 2. Address exceptions: the window becomes fatal and takes nothing more.

TEST(RdmaValidationTest, WrongPvoKeyAtTheTargetRaisesAnAddressExceptionAndStopsTheWindow) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = abi::kRdmaPacketBytes;  // one packet: one exception
  RdmaBuffer src = h.Alloc(0, 4 * len), dst = h.Alloc(1, 4 * len, abi::kPageShift4K, 0, kFill);
  h.Write(src, 0, RdmaHarness::Pattern(4 * len, 14));
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), WrongKey(dst.pvo()), len, kBoth));
  h.Run();
  ExpectDrops(h, 1, {{DropReason::kRdmaAddressException, 1}});
  ExpectWindowFatal(h, 1, 1);

  // A valid write afterwards: every packet is refused by the stopped window.
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 2, src.pvo(), dst.pvo(), 4 * len, kBoth));
  h.Run();
  ExpectDrops(h, 1, {{DropReason::kRdmaAddressException, 1}, {DropReason::kWindowFatal, 4}});
  ExpectDrops(h, 0);
  ExpectWindowFatal(h, 1, 1);
  EXPECT_EQ(h.fw(1).rdma_packets_in, 0u);
  EXPECT_EQ(h.Read(dst, 0, 4 * len), Filled(4 * len));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
  ExpectWindowOpen(h, 0);  // the initiator is not to blame
}

TEST(RdmaValidationTest, PacketRunningIntoAnUnregisteredPageRaisesAnAddressException) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 4096;
  RdmaBuffer src = h.Alloc(0, 2 * len);
  h.Write(src, 0, RdmaHarness::Pattern(2 * len, 15));
  // The buffer is exactly one page (page aligned), so it has exactly one TCE; its trailing
  // canary lies in the next page, whose TCE is not registered.
  RdmaBuffer dst = h.Alloc(1, len, abi::kPageShift4K, len - kCanaryBytes, kFill);
  ASSERT_EQ(dst.reg.tces, 1u);
  ASSERT_EQ(dst.vaddr % len, 0u);
  // One packet: its first half inside the buffer, its second half in the next page.
  const uint32_t n = abi::kRdmaPacketBytes;
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), dst.pvo() + len - n / 2, n, kBoth));
  h.Run();
  ExpectDrops(h, 1, {{DropReason::kRdmaAddressException, 1}});
  ExpectDrops(h, 0);
  ExpectWindowFatal(h, 1, 1);
  EXPECT_EQ(h.Read(dst, 0, len), Filled(len));  // not even the in-bounds half landed
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(1).empty());
}

TEST(RdmaValidationTest, WriteBeyondTheEndOfTheTceTableRaisesAnAddressException) {
  RdmaHarness h(Nodes(2));
  const uint32_t n = abi::kRdmaPacketBytes;
  RdmaBuffer src = h.Alloc(0, n), dst = h.Alloc(1, n, abi::kPageShift4K, 0, kFill);
  h.Write(src, 0, RdmaHarness::Pattern(n, 16));
  const uint32_t table = abi::PvoTable(dst.pvo());
  ASSERT_EQ(h.cluster().tce_tables(1).page_shift(table), abi::kPageShift4K);
  const uint64_t table_bytes = uint64_t{h.cluster().config().tce.entries_4k} << abi::kPageShift4K;
  // The last half packet of the table's space, and half a packet past it.
  const uint64_t past = abi::MakePvo(abi::PvoKey(dst.pvo()), table, table_bytes - n / 2);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), past, n, kBoth));
  h.Run();
  ExpectDrops(h, 1, {{DropReason::kRdmaAddressException, 1}});
  ExpectDrops(h, 0);
  ExpectWindowFatal(h, 1, 1);
  EXPECT_EQ(h.Read(dst, 0, n), Filled(n));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(1).empty());
}

TEST(RdmaValidationTest, WriteLongerThanItsRegistrationStopsAtTheFirstUnregisteredPage) {
  RdmaHarness h(Nodes(2));
  const uint32_t page = 4096, len = page + abi::kRdmaPacketBytes;  // 3 packets
  RdmaBuffer src = h.Alloc(0, len);
  h.Write(src, 0, RdmaHarness::Pattern(len, 26));
  // One page-aligned registered page; the canary after it is in the next, unregistered page.
  RdmaBuffer dst = h.Alloc(1, page, abi::kPageShift4K, page - kCanaryBytes, kFill);
  ASSERT_EQ(dst.reg.tces, 1u);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), dst.pvo(), len, kBoth));
  h.Run();
  // The two packets inside the registration land; the third raises the exception.
  ExpectDrops(h, 1, {{DropReason::kRdmaAddressException, 1}});
  ExpectDrops(h, 0);
  ExpectWindowFatal(h, 1, 1);
  EXPECT_EQ(h.fw(1).rdma_packets_in, 2u);
  std::vector<uint8_t> landed = RdmaHarness::Pattern(len, 26);
  landed.resize(page);
  EXPECT_EQ(h.Read(dst, 0, page), landed);
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
}

TEST(RdmaValidationTest, RemoteOffsetThatWrapsThePvoOffsetFieldRaisesAnAddressException) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 4096;  // two packets
  RdmaBuffer src = h.Alloc(0, len), dst = h.Alloc(1, len, abi::kPageShift4K, 0, kFill);
  h.Write(src, 0, RdmaHarness::Pattern(len, 17));
  const uint64_t wrap =
      abi::MakePvo(abi::PvoKey(dst.pvo()), abi::PvoTable(dst.pvo()), abi::kPvoOffsetMask - 100);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), wrap, len, kBoth));
  h.Run();
  // The initiator sees the remote range wrap when the request is posted: its window stops
  // and nothing is sent.
  ExpectDrops(h, 0, {{DropReason::kRdmaAddressException, 1}});
  ExpectDrops(h, 1);
  ExpectWindowFatal(h, 0, 1);
  ExpectWindowOpen(h, 1);
  EXPECT_EQ(h.fw(0).rdma_packets_out, 0u);
  EXPECT_EQ(h.fw(1).rdma_packets_in, 0u);
  EXPECT_EQ(h.Read(dst, 0, len), Filled(len));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(1).empty());
}

// Regression: each packet's PVO is the transfer's PVO plus an offset, which could carry out
// of the 42-bit offset field into the table field and land as a well-formed PVO of the next
// table; the target cannot see that. The initiator checks the whole remote range when the
// request is posted. Here the first packet would exactly fill the offset space of a table the
// job does not own and the second would carry into table T at offset 0, the job's buffer.
TEST(RdmaValidationTest, RemoteRangeCarryingOutOfTheOffsetFieldLandsNothingInTheNextTable) {
  RdmaHarness h(Nodes(2));
  const uint32_t n = abi::kRdmaPacketBytes, len = 2 * n;
  RdmaBuffer src = h.Alloc(0, len);
  h.Write(src, 0, RdmaHarness::Pattern(len, 27));
  // The first registration on node 1, page aligned: its PVO is (key, T, offset 0).
  RdmaBuffer dst = h.Alloc(1, 4096, abi::kPageShift4K, 4096 - kCanaryBytes, kFill);
  const uint32_t table = abi::PvoTable(dst.pvo());
  ASSERT_EQ(abi::PvoOffset(dst.pvo()), 0u);
  ASSERT_GT(table, 0u);
  ASSERT_EQ(h.cluster().tce_tables(1).owner(table - 1), abi::kNoJob);
  // [2^42 - 2048, 2^42 + 2048) of table T - 1: the transfer wraps the offset field.
  const uint64_t remote =
      abi::MakePvo(abi::PvoKey(dst.pvo()), table - 1, abi::kPvoOffsetMask + 1 - n);
  ASSERT_EQ(remote + n, dst.pvo());  // what the second packet will carry
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), remote, len, kBoth));
  h.Run();
  EXPECT_EQ(h.fw(1).rdma_packets_in, 0u);
  EXPECT_EQ(h.Read(dst, 0, 4096), Filled(4096));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
  // An address + length wrap is an address exception. Only the initiator can see the carry
  // (when the request is posted or when a packet's PVO is built), so that is where it counts.
  EXPECT_EQ(
      h.Drops(0, DropReason::kRdmaAddressException) + h.Drops(1, DropReason::kRdmaAddressException),
      1u);
}

TEST(RdmaValidationTest, LocalPvoWithABadKeyStopsTheInitiatorWindowAndSendsNothing) {
  RdmaHarness h(Nodes(2));
  const uint32_t n = abi::kRdmaPacketBytes;  // one packet: one exception
  RdmaBuffer src = h.Alloc(0, n), dst = h.Alloc(1, n, abi::kPageShift4K, 0, kFill);
  h.Write(src, 0, RdmaHarness::Pattern(n, 18));
  const uint32_t li = h.Rcxt(0);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(li, h.Rcxt(1), 1, WrongKey(src.pvo()), dst.pvo(), n, kBoth));
  h.Run();
  ExpectDrops(h, 0, {{DropReason::kRdmaAddressException, 1}});
  ExpectDrops(h, 1);
  ExpectWindowFatal(h, 0, 1);
  ExpectWindowOpen(h, 1);
  EXPECT_EQ(h.fw(0).rdma_packets_out, 0u);
  EXPECT_EQ(h.fw(1).rdma_packets_in, 0u);
  EXPECT_EQ(h.Read(dst, 0, n), Filled(n));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
  EXPECT_EQ(RcxtState(h, 0, li), State(abi::RcxtState::kIdle));  // the source gave up
}

TEST(RdmaValidationTest, LargeWriteFromALocalPvoWithABadKeyNeverLeavesTheInitiator) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 1 << 20;
  RdmaBuffer src = h.Alloc(0, len), dst = h.Alloc(1, len, abi::kPageShift4K, 0, kFill);
  h.Write(src, 0, RdmaHarness::Pattern(len, 19));
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, WrongKey(src.pvo()), dst.pvo(), len, kBoth));
  h.Run();
  EXPECT_EQ(h.fw(0).rdma_packets_out, 0u);
  EXPECT_EQ(h.fw(1).rdma_packets_in, 0u);
  ExpectDrops(h, 1);
  // Several transmit tasks claim packets before the first TCE fetch returns; the first to
  // find the bad key stops the rCxt and the others end quietly: one exception per request.
  ExpectDrops(h, 0, {{DropReason::kRdmaAddressException, 1}});
  ExpectWindowFatal(h, 0, 1);
  EXPECT_EQ(h.Read(dst, 0, len), Filled(len));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_TRUE(h.Completions(1).empty());
}

// ---------------------------------------------------------------------------------------
// 3. Zero-length transfers still validate the PVO's own TCE.

TEST(RdmaValidationTest, ZeroLengthWriteWithValidPvosCompletesOnceOnEachSide) {
  RdmaHarness h(Nodes(2));
  RdmaBuffer src = h.Alloc(0, 4096), dst = h.Alloc(1, 4096, abi::kPageShift4K, 0, kFill);
  const uint32_t li = h.Rcxt(0), rt = h.Rcxt(1);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0, Request(li, rt, 1, src.pvo(), dst.pvo(), 0, kBoth));
  h.Run();
  ExpectDrops(h, 0);
  ExpectDrops(h, 1);
  ASSERT_EQ(h.Completions(0).size(), 1u);
  EXPECT_EQ(h.Completions(0)[0].rcxt, li);
  EXPECT_EQ(h.Completions(0)[0].length, 0u);
  ASSERT_EQ(h.Completions(1).size(), 1u);
  EXPECT_EQ(h.Completions(1)[0].rcxt, rt);
  EXPECT_EQ(h.Completions(1)[0].length, 0u);
  EXPECT_EQ(h.fw(1).rdma_transfers_landed, 1u);
  EXPECT_EQ(h.Read(dst, 0, 4096), Filled(4096));
  EXPECT_TRUE(h.CanariesIntact());
  ExpectWindowOpen(h, 0);
  ExpectWindowOpen(h, 1);
}

TEST(RdmaValidationTest, ZeroLengthWriteWithABadRemoteKeyRaisesAnAddressException) {
  RdmaHarness h(Nodes(2));
  RdmaBuffer src = h.Alloc(0, 4096), dst = h.Alloc(1, 4096, abi::kPageShift4K, 0, kFill);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), WrongKey(dst.pvo()), 0, kBoth));
  h.Run();
  ExpectDrops(h, 1, {{DropReason::kRdmaAddressException, 1}});
  ExpectDrops(h, 0);
  ExpectWindowFatal(h, 1, 1);
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
  EXPECT_EQ(h.Read(dst, 0, 4096), Filled(4096));
  EXPECT_TRUE(h.CanariesIntact());
}

// Regression: before 78f237e a zero-length write never checked its local PVO's TCE key
// (tx_rdma.cc TxEngine::RdmaTranslate skipped translation when payload_len == 0, and
// rdma_post.cc CheckSource fetches no TCE), so the packet left and both sides completed.
TEST(RdmaValidationTest, ZeroLengthWriteWithABadLocalKeyRaisesAnAddressException) {
  RdmaHarness h(Nodes(2));
  RdmaBuffer src = h.Alloc(0, 4096), dst = h.Alloc(1, 4096, abi::kPageShift4K, 0, kFill);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, WrongKey(src.pvo()), dst.pvo(), 0, kBoth));
  h.Run();
  ExpectDrops(h, 0, {{DropReason::kRdmaAddressException, 1}});
  ExpectDrops(h, 1);
  ExpectWindowFatal(h, 0, 1);
  EXPECT_EQ(h.fw(0).rdma_packets_out, 0u);
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
  EXPECT_EQ(h.Read(dst, 0, 4096), Filled(4096));
  EXPECT_TRUE(h.CanariesIntact());
}

}  // namespace
}  // namespace nicsim::sim
