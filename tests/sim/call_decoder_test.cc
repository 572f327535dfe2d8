// SPDX-License-Identifier: Apache-2.0
// The decoder of a rank's channel (sim/mpirun/call_decoder): what it accepts, decoded exactly,
// and each way a message from a program can be wrong refused with its reason.
#include "sim/mpirun/call_decoder.h"

#include "ulp/mpi/datatype.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace nicsim::sim::calls {
namespace {

using mpi::wire::Call;
using mpi::wire::Writer;

std::string ErrorOf(Call call, const Writer& w) {
  const Result<Args> r = Decode(call, w.bytes());
  return r.ok() ? "accepted" : r.status().message();
}

TEST(CallDecoder, ASendDecodesIntoItsFieldsWithItsDataInsideTheArguments) {
  const std::vector<uint8_t> data = {1, 2, 3, 4, 5};
  Writer w;
  w.Put<int32_t>(1).Put<int32_t>(3).Put<int32_t>(77).Put<uint8_t>(1).Blob(data);
  Result<Args> r = Decode(Call::kIsend, w.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Send& s = std::get<Send>(*r);
  EXPECT_EQ(s.comm, 1);
  EXPECT_EQ(s.dest, 3);
  EXPECT_EQ(s.tag, 77);
  EXPECT_TRUE(s.sync);
  ASSERT_EQ(s.data.size, 5u);
  EXPECT_EQ(s.data.data, w.bytes().data() + 21);  // 4 + 4 + 4 + 1 + 8 bytes before it
  EXPECT_EQ(std::vector<uint8_t>(s.data.data, s.data.data + 5), data);
}

TEST(CallDecoder, CountsCarryTheirTotal) {
  Writer w;
  w.Put<int32_t>(1).Blob(std::vector<uint8_t>(8)).Counts({8, 0, 24});
  Result<Args> r = Decode(Call::kAllgatherv, w.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(std::get<Allgatherv>(*r).counts.each, (std::vector<size_t>{8, 0, 24}));
  EXPECT_EQ(std::get<Allgatherv>(*r).counts.total, 32u);
}

TEST(CallDecoder, CountsWhoseSumWouldOverflowAreRefused) {
  // 2^63 + 2^63 wraps to 0 in 64 bits: a result buffer sized from the wrapped sum would be
  // written past its end.
  Writer w;
  w.Put<int32_t>(1).Blob(nullptr, 0).Counts({size_t{1} << 63, size_t{1} << 63});
  EXPECT_EQ(ErrorOf(Call::kAllgatherv, w), "counts adding up to more than 1099511627776 bytes");
}

TEST(CallDecoder, ABroadcastLongerThanTheLimitIsRefusedBeforeAnythingIsAllocated) {
  Writer w;
  w.Put<int32_t>(1).Put<int32_t>(0).Put<uint64_t>(kMostMessageBytes + 1).Blob(nullptr, 0);
  EXPECT_EQ(ErrorOf(Call::kBcast, w), "a broadcast of 1099511627777 bytes");
}

TEST(CallDecoder, FieldsOutOfRangeAreNamed) {
  Writer send;
  send.Put<int32_t>(1).Put<int32_t>(0).Put<int32_t>(-1).Put<uint8_t>(0).Blob(nullptr, 0);
  EXPECT_EQ(ErrorOf(Call::kSend, send), "tag -1");  // a send has no wildcard tag
  Writer recv;
  recv.Put<int32_t>(1).Put<int32_t>(-2).Put<int32_t>(0).Put<uint64_t>(8);
  EXPECT_EQ(ErrorOf(Call::kRecv, recv), "source -2");
  Writer reduce;
  reduce.Put<int32_t>(1).Put<uint8_t>(12).Put<uint32_t>(0).Put<uint8_t>(0).Put<uint64_t>(4);
  reduce.Put<int32_t>(0).Put<uint8_t>(1).Blob(nullptr, 0);
  EXPECT_EQ(ErrorOf(Call::kAllreduce, reduce), "reduction op 12");
  Writer complete;
  complete.Put<uint8_t>(6).Put<uint32_t>(0);
  EXPECT_EQ(ErrorOf(Call::kComplete, complete), "mode 6");
  Writer probe;
  probe.Put<int32_t>(1).Put<int32_t>(0).Put<int32_t>(0).Put<uint8_t>(2);
  EXPECT_EQ(ErrorOf(Call::kProbe, probe), "blocking flag 2");
  Writer group;
  group.Put<int32_t>(1).Put<uint32_t>(0);
  EXPECT_EQ(ErrorOf(Call::kCommCreateGroup, group), "a group of no members");
}

TEST(CallDecoder, ASleepCarriesItsNanosecondsUpToWhatSimulatedTimeCounts) {
  Writer w;
  w.Put<uint64_t>(1'500'000'000);
  Result<Args> r = Decode(Call::kSleep, w.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(std::get<Sleep>(*r).ns, 1'500'000'000u);
  Writer longest;
  longest.Put<uint64_t>(kMostSleepNs);
  EXPECT_EQ(ErrorOf(Call::kSleep, longest), "accepted");
  Writer too_long;
  too_long.Put<uint64_t>(kMostSleepNs + 1);
  EXPECT_EQ(ErrorOf(Call::kSleep, too_long), "a sleep of 9223372036854776 ns");
}

TEST(CallDecoder, ArgumentsMustFillTheMessageExactly) {
  Writer short_one;
  short_one.Put<int32_t>(1).Put<int32_t>(0);
  EXPECT_EQ(ErrorOf(Call::kCommSplit, short_one), "the arguments end early");
  Writer long_one;
  long_one.Put<int32_t>(1).Put<uint8_t>(0).Put<uint8_t>(0).Put<uint8_t>(0);
  EXPECT_EQ(ErrorOf(Call::kBarrier, long_one), "3 bytes after the arguments");
  Writer array;
  array.Put<uint8_t>(0).Put<uint32_t>(1000).Put<uint64_t>(5);
  EXPECT_EQ(ErrorOf(Call::kComplete, array), "1000 requests claimed where 8 bytes are left");
}

/** kRma's fields before its blocks: window 2, `kind`, target 1, `op`, base kInt32 (2). */
Writer RmaHead(mpi::wire::RmaKind kind, uint8_t op, const std::vector<uint8_t>& origin,
               const std::vector<uint8_t>& compare) {
  Writer w;
  w.Put<int32_t>(2).Put<uint8_t>(static_cast<uint8_t>(kind)).Put<int32_t>(1);
  w.Put<uint8_t>(op).Put<uint8_t>(static_cast<uint8_t>(mpi::Base::kInt32));
  w.Blob(origin).Blob(compare);
  return w;
}

TEST(CallDecoder, AnRmaCallDecodesItsBlocksAndTheirTotal) {
  const std::vector<uint8_t> origin(12, 7);
  Writer w = RmaHead(mpi::wire::RmaKind::kAccumulate, 0, origin, {});
  w.Put<uint32_t>(2).Put<uint64_t>(0x7fff00001000).Put<uint64_t>(4);
  w.Put<uint64_t>(16).Put<uint64_t>(8);
  Result<Args> r = Decode(Call::kRma, w.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Rma& rma = std::get<Rma>(*r);
  EXPECT_EQ(rma.win, 2);
  EXPECT_EQ(rma.target, 1);
  ASSERT_EQ(rma.blocks.size(), 2u);
  EXPECT_EQ(rma.blocks[0].disp, 0x7fff00001000u);  // a dynamic window's address
  EXPECT_EQ(rma.blocks[1].length, 8u);
  EXPECT_EQ(rma.total, 12u);
  EXPECT_EQ(rma.origin.size, 12u);
}

TEST(CallDecoder, AnRmaCallWhoseBytesDoNotFitItsBlocksIsRefused) {
  using mpi::wire::RmaKind;
  // Origin bytes must fill the blocks; a get carries none.
  Writer put = RmaHead(RmaKind::kPut, 0, std::vector<uint8_t>(5), {});
  put.Put<uint32_t>(1).Put<uint64_t>(0).Put<uint64_t>(4);
  EXPECT_EQ(ErrorOf(Call::kRma, put), "5 origin bytes for blocks of 4");
  Writer get = RmaHead(RmaKind::kGet, 0, std::vector<uint8_t>(4), {});
  get.Put<uint32_t>(1).Put<uint64_t>(0).Put<uint64_t>(4);
  EXPECT_EQ(ErrorOf(Call::kRma, get), "4 origin bytes for blocks of 4");
  // An accumulate's blocks hold whole elements (4-byte ints here).
  Writer acc = RmaHead(RmaKind::kAccumulate, 0, std::vector<uint8_t>(6), {});
  acc.Put<uint32_t>(1).Put<uint64_t>(0).Put<uint64_t>(6);
  EXPECT_EQ(ErrorOf(Call::kRma, acc), "a block of 6 bytes of 4-byte elements");
  // A compare-and-swap is one element.
  Writer cas = RmaHead(RmaKind::kCompareSwap, mpi::wire::kReplaceOp, std::vector<uint8_t>(8),
                       std::vector<uint8_t>(8));
  cas.Put<uint32_t>(1).Put<uint64_t>(0).Put<uint64_t>(8);
  EXPECT_EQ(ErrorOf(Call::kRma, cas), "a compare-and-swap of 8 bytes in 1 blocks");
  // A block may not run past the end of the address space, nor claim more blocks than came.
  Writer wrap = RmaHead(RmaKind::kPut, 0, std::vector<uint8_t>(4), {});
  wrap.Put<uint32_t>(1).Put<uint64_t>(~uint64_t{0} - 1).Put<uint64_t>(4);
  EXPECT_EQ(ErrorOf(Call::kRma, wrap), "blocks adding up to more than 1099511627776 bytes");
  Writer many = RmaHead(RmaKind::kPut, 0, {}, {});
  many.Put<uint32_t>(1000000);
  EXPECT_EQ(ErrorOf(Call::kRma, many), "1000000 blocks claimed where 0 bytes are left");
  Writer op = RmaHead(RmaKind::kAccumulate, 0x40, std::vector<uint8_t>(4), {});
  op.Put<uint32_t>(1).Put<uint64_t>(0).Put<uint64_t>(4);
  EXPECT_EQ(ErrorOf(Call::kRma, op), "op 64");
}

TEST(CallDecoder, AWindowsContentsMustBeItsSizeAndOnlyMpiWinCreateSendsThem) {
  using mpi::wire::WinFlavor;
  const auto create = [](WinFlavor flavor, uint64_t size, int32_t within, size_t contents) {
    Writer w;
    w.Put<int32_t>(1).Put<uint8_t>(static_cast<uint8_t>(flavor)).Put<int32_t>(4);
    w.Put<uint64_t>(size).Put<int32_t>(within).Put<uint64_t>(0);
    w.Blob(std::vector<uint8_t>(contents));
    return w;
  };
  EXPECT_EQ(ErrorOf(Call::kWinCreate, create(WinFlavor::kCreate, 16, 0, 16)), "accepted");
  EXPECT_EQ(ErrorOf(Call::kWinCreate, create(WinFlavor::kCreate, 16, 0, 8)),
            "8 bytes of contents for a window of 16");
  EXPECT_EQ(ErrorOf(Call::kWinCreate, create(WinFlavor::kCreate, 16, 3, 0)), "accepted");
  EXPECT_EQ(ErrorOf(Call::kWinCreate, create(WinFlavor::kAllocate, 16, 0, 16)),
            "16 bytes of contents for a window of 16");
  EXPECT_EQ(ErrorOf(Call::kWinCreate, create(WinFlavor::kDynamic, 16, 0, 0)),
            "a dynamic window of 16 bytes");
  EXPECT_EQ(ErrorOf(Call::kWinCreate, create(WinFlavor::kShared, 16, 2, 0)),
            "a window within a shared one that is not made of the program's memory");
  EXPECT_EQ(ErrorOf(Call::kWinCreate, create(static_cast<WinFlavor>(9), 16, 0, 0)),
            "window flavor 9");
}

TEST(CallDecoder, WhatOnlyTheSimulatorSendsIsNoCall) {
  EXPECT_EQ(ErrorOf(Call::kReply, Writer()), "call 100 is not one a program sends");
  EXPECT_EQ(ErrorOf(static_cast<Call>(55), Writer()), "call 55 is not one a program sends");
}

TEST(CallDecoder, AHeaderMayClaimUpToTheLimit) {
  mpi::wire::Header h;
  h.bytes = kMostMessageBytes;
  EXPECT_TRUE(CheckHeader(h).ok());
  h.bytes = kMostMessageBytes + 1;
  EXPECT_EQ(CheckHeader(h).message(), "a message of 1099511627777 bytes");
}

}  // namespace
}  // namespace nicsim::sim::calls
