// SPDX-License-Identifier: Apache-2.0
// RDMA end to end: write and read, every completion routing, half RDMA in its four forms,
// third-party, broadcast, multicast and conditional transfers, striping over paths. Every
// byte and every canary is checked. Built once per backend: functional (rdma_test), SystemC
// (rdma_systemc_test) and SystemC with the RTL blocks (rdma_rtl_test), chosen by
// NICSIM_RDMA_BACKEND; SystemC elaborates once per process, so ctest runs each test alone.
#include <gtest/gtest.h>

#include "tests/e2e/rdma_harness.h"
#include "tests/support/backends.h"

#ifndef NICSIM_RDMA_BACKEND
#define NICSIM_RDMA_BACKEND kFunc
#endif

namespace nicsim::sim {
namespace {

using abi::SlotType;

ClusterConfig Nodes(uint32_t nodes, uint32_t adapters = 1) {
  ClusterConfig c;
  c.backend = BackendKind::NICSIM_RDMA_BACKEND;
  c.nodes = nodes;
  c.adapters_per_node = adapters;
  return c;
}

TEST(RdmaTest, WriteLandsEveryByteAndCompletesBothSides) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 1 << 20;
  RdmaBuffer src = h.Alloc(0, len, abi::kPageShift4K, 100);
  RdmaBuffer dst = h.Alloc(1, len, abi::kPageShift64K, 7);
  const std::vector<uint8_t> data = RdmaHarness::Pattern(len, 1);
  h.Write(src, 0, data);
  const uint32_t li = h.Rcxt(0), rt = h.Rcxt(1);
  const uint64_t slot = h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
                               Request(li, rt, 1, src.pvo(), dst.pvo(), len,
                                       abi::kReqNotifyInitiator | abi::kReqNotifyTarget),
                               0xABCD);
  h.Run();
  const char* kernels[] = {"func", "systemc", "systemc+rtl"};
  EXPECT_EQ(h.cluster().DescribeBackend()["kernel"],
            kernels[static_cast<int>(BackendKind::NICSIM_RDMA_BACKEND)]);
  // 512 packets of 2 KiB at 2 GB/s take at least 536 us of simulated time.
  EXPECT_GT(h.cluster().events().now_ps(), 536'000'000u);
  RecordProperty("sim_ps", std::to_string(h.cluster().events().now_ps()));
  EXPECT_EQ(h.Read(dst, 0, len), data);
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_EQ(h.Slot(0, 0, slot).status, static_cast<uint8_t>(abi::SendSlotStatus::kComplete));
  const auto init = h.Completions(0), target = h.Completions(1);
  ASSERT_EQ(init.size(), 1u);
  EXPECT_EQ(init[0].rcxt, li);
  EXPECT_EQ(init[0].tid, 1u);
  EXPECT_EQ(init[0].length, len);
  ASSERT_EQ(target.size(), 1u);
  EXPECT_EQ(target[0].rcxt, rt);
  EXPECT_EQ(h.Inbox(1)[0].header.src_adapter, 0u);
  EXPECT_EQ(h.Inbox(1)[0].header.ulp_word, 0xABCDu);
  EXPECT_EQ(h.fw(0).rdma_packets_out, len / abi::kRdmaPacketBytes);
  EXPECT_EQ(h.fw(1).rdma_packets_in, len / abi::kRdmaPacketBytes);
  EXPECT_EQ(h.fw(1).rdma_transfers_landed, 1u);
  // Both rCxts are idle again.
  EXPECT_EQ(h.cluster().rcxts(0).Read(abi::RcxtIndex(li)).state,
            static_cast<uint8_t>(abi::RcxtState::kIdle));
  EXPECT_EQ(h.cluster().rcxts(1).Read(abi::RcxtIndex(rt)).state,
            static_cast<uint8_t>(abi::RcxtState::kIdle));
}

TEST(RdmaTest, CompletionRoutingFollowsTheRequest) {
  RdmaHarness h(Nodes(2));
  size_t at_initiator = 0, at_target = 0;
  for (uint8_t flags : {uint8_t{0}, abi::kReqNotifyInitiator, abi::kReqNotifyTarget}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    RdmaBuffer src = h.Alloc(0, 5000), dst = h.Alloc(1, 5000);
    h.Write(src, 0, RdmaHarness::Pattern(5000, flags));
    h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
           Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), dst.pvo(), 5000, flags));
    h.Run();
    EXPECT_EQ(h.Read(dst, 0, 5000), RdmaHarness::Pattern(5000, flags));
    at_initiator += (flags & abi::kReqNotifyInitiator) ? 1 : 0;
    at_target += (flags & abi::kReqNotifyTarget) ? 1 : 0;
    EXPECT_EQ(h.Completions(0).size(), at_initiator);
    EXPECT_EQ(h.Completions(1).size(), at_target);
  }
}

TEST(RdmaTest, ReadBringsRemoteDataIntoLocalMemory) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 300'000;
  RdmaBuffer local = h.Alloc(0, len, abi::kPageShift4K, 33);
  RdmaBuffer remote = h.Alloc(1, len, abi::kPageShift16M, 4000);
  h.Write(remote, 0, RdmaHarness::Pattern(len, 3));
  const uint32_t li = h.Rcxt(0), rs = h.Rcxt(1);
  h.Post(0, 0, SlotType::kRdmaRead, 1, 0,
         Request(li, rs, 5, local.pvo(), remote.pvo(), len,
                 abi::kReqNotifyInitiator | abi::kReqNotifyTarget));
  h.Run();
  EXPECT_EQ(h.Read(local, 0, len), RdmaHarness::Pattern(len, 3));
  EXPECT_TRUE(h.CanariesIntact());
  ASSERT_EQ(h.Completions(0).size(), 1u);
  EXPECT_EQ(h.Completions(0)[0].rcxt, li);
  EXPECT_EQ(h.Completions(0)[0].tid, 5u);
  ASSERT_EQ(h.Completions(1).size(), 1u);
  EXPECT_EQ(h.Completions(1)[0].rcxt, rs);
  EXPECT_EQ(h.fw(1).rdma_read_requests_served, 1u);
}

TEST(RdmaTest, ZeroLengthWriteCompletesWithoutTouchingMemory) {
  RdmaHarness h(Nodes(2));
  RdmaBuffer src = h.Alloc(0, 4096), dst = h.Alloc(1, 4096, abi::kPageShift4K, 0, 0x11);
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), dst.pvo(), 0,
                 abi::kReqNotifyInitiator | abi::kReqNotifyTarget));
  h.Run();
  EXPECT_EQ(h.Read(dst, 0, 4096), std::vector<uint8_t>(4096, 0x11));
  ASSERT_EQ(h.Completions(0).size(), 1u);
  EXPECT_EQ(h.Completions(0)[0].length, 0u);
  EXPECT_EQ(h.Completions(1).size(), 1u);
}

/** Half RDMA data frames a window received (from inbox index `from` on), by offset. */
struct FifoData {
  std::vector<uint8_t> bytes;
  uint32_t frames = 0;
  uint32_t total = 0;
  uint32_t last_flagged = 0;
  /** Inbox index just past the last data frame. */
  size_t end = 0;
};
FifoData Reassemble(RdmaHarness& h, uint32_t adapter, size_t from, uint32_t len, uint32_t rcxt,
                    uint32_t tid) {
  FifoData d;
  d.bytes.assign(len, 0);
  const std::vector<Received>& inbox = h.Inbox(adapter);
  for (size_t i = from; i < inbox.size(); ++i) {
    const Received& r = inbox[i];
    if (r.header.type != static_cast<uint8_t>(abi::PacketType::kRdmaWrite)) continue;
    abi::RdmaFrameInfo info;
    std::memcpy(&info, r.payload.data(), sizeof(info));
    EXPECT_EQ(info.rcxt, rcxt);
    EXPECT_EQ(info.tid, tid);
    const size_t n = r.payload.size() - sizeof(info);
    EXPECT_LE(info.offset + n, len);
    if (info.offset + n <= len) {
      std::memcpy(d.bytes.data() + info.offset, r.payload.data() + sizeof(info), n);
    }
    d.total += static_cast<uint32_t>(n);
    d.last_flagged += (info.flags & abi::kLastPacket) ? 1 : 0;
    ++d.frames;
    d.end = i + 1;
  }
  return d;
}

/** Completion records a window received from inbox index `from` on, with their indexes. */
std::vector<std::pair<size_t, abi::CompletionRecord>> CompletionsFrom(RdmaHarness& h,
                                                                      uint32_t adapter,
                                                                      size_t from) {
  std::vector<std::pair<size_t, abi::CompletionRecord>> out;
  const std::vector<Received>& inbox = h.Inbox(adapter);
  for (size_t i = from; i < inbox.size(); ++i) {
    if (inbox[i].header.type == static_cast<uint8_t>(abi::PacketType::kRdmaCompletion)) {
      out.emplace_back(i, inbox[i].completion());
    }
  }
  return out;
}

/** Exactly `want` completions (0 or 1) naming rCxt `rcxt`, transfer `tid`, `len` bytes. */
void ExpectCompletion(const std::vector<std::pair<size_t, abi::CompletionRecord>>& got, bool want,
                      uint32_t rcxt, uint32_t tid, uint32_t len) {
  ASSERT_EQ(got.size(), want ? 1u : 0u);
  if (!want) return;
  EXPECT_EQ(got[0].second.rcxt, rcxt);
  EXPECT_EQ(got[0].second.tid, tid);
  EXPECT_EQ(got[0].second.length, len);
  EXPECT_EQ(got[0].second.status, static_cast<uint32_t>(abi::RdmaStatus::kOk));
}

uint8_t RcxtStateOf(RdmaHarness& h, uint32_t adapter, uint32_t ref) {
  return h.cluster().rcxts(adapter).Read(abi::RcxtIndex(ref)).state;
}
constexpr uint8_t kIdleState = static_cast<uint8_t>(abi::RcxtState::kIdle);

constexpr uint8_t kNotifyFlagSets[] = {0, abi::kReqNotifyInitiator, abi::kReqNotifyTarget,
                                       abi::kReqNotifyInitiator | abi::kReqNotifyTarget};

TEST(RdmaTest, HalfSendWriteDeliversSelfDescribingFramesToTheFifo) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 10'000;
  RdmaBuffer src = h.Alloc(0, len);
  h.Write(src, 0, RdmaHarness::Pattern(len, 4));
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), 0x1234, 9, src.pvo(), 0, len, abi::kReqRemoteFifo));
  h.Run();
  // The receiving ULP reassembles by offset; the last frame is flagged. No completion was
  // asked for, so the rCxt named (not one of the target's) is never looked at.
  const FifoData d = Reassemble(h, 1, 0, len, 0x1234, 9);
  EXPECT_EQ(d.total, len);
  EXPECT_EQ(d.last_flagged, 1u);
  EXPECT_EQ(d.bytes, RdmaHarness::Pattern(len, 4));
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
  EXPECT_EQ(h.DropReport(), "");
}

TEST(RdmaTest, HalfSendWriteCompletionsFollowTheNotifyFlags) {
  // Initiator: a record in its own FIFO once the target's adapter has every frame in its
  // FIFO. Target: a record in its FIFO behind the transfer's last data frame.
  RdmaHarness h(Nodes(2));
  const uint32_t len = 10'000;
  uint32_t tid = 20;
  for (uint8_t flags : kNotifyFlagSets) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    ++tid;
    RdmaBuffer src = h.Alloc(0, len);
    h.Write(src, 0, RdmaHarness::Pattern(len, tid));
    const uint32_t li = h.Rcxt(0), rt = h.Rcxt(1);
    const size_t from0 = h.Inbox(0).size(), from1 = h.Inbox(1).size();
    h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
           Request(li, rt, tid, src.pvo(), 0, len, flags | abi::kReqRemoteFifo));
    h.Run();
    const FifoData d = Reassemble(h, 1, from1, len, rt, tid);
    EXPECT_EQ(d.total, len);
    EXPECT_EQ(d.last_flagged, 1u);
    EXPECT_EQ(d.bytes, RdmaHarness::Pattern(len, tid));
    ExpectCompletion(CompletionsFrom(h, 0, from0), flags & abi::kReqNotifyInitiator, li, tid, len);
    const auto target = CompletionsFrom(h, 1, from1);
    ExpectCompletion(target, flags & abi::kReqNotifyTarget, rt, tid, len);
    if (!target.empty()) {
      EXPECT_GT(target[0].first, d.end - 1);  // behind every data frame
    }
    EXPECT_EQ(RcxtStateOf(h, 0, li), kIdleState);
    EXPECT_EQ(RcxtStateOf(h, 1, rt), kIdleState);
    EXPECT_EQ(h.DropReport(), "");
  }
}

TEST(RdmaTest, HalfReceiveWriteAssemblesFifoPiecesIntoMemory) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 5000;
  RdmaBuffer dst = h.Alloc(1, len);
  const std::vector<uint8_t> data = RdmaHarness::Pattern(len, 5);
  const uint32_t li = h.Rcxt(0), rt = h.Rcxt(1);
  // The sending ULP packs the message into FIFO slots, last piece first.
  const uint32_t piece = 1500;
  for (int64_t off = (len - 1) / piece * piece; off >= 0; off -= piece) {
    abi::RdmaRequest r =
        Request(li, rt, 3, 0, dst.pvo(), len, abi::kReqNotifyInitiator | abi::kReqNotifyTarget);
    r.count = static_cast<uint32_t>(off);
    const uint32_t n = std::min<uint32_t>(piece, len - static_cast<uint32_t>(off));
    h.Post(0, 0, SlotType::kRdmaWritePiece, 1, 0, r, 0, data.data() + off, n);
  }
  h.Run();
  EXPECT_EQ(h.Read(dst, 0, len), data);
  EXPECT_TRUE(h.CanariesIntact());
  // The target's adapter writes a record once every piece has landed; the initiator's rCxt,
  // armed by the first piece, takes the completion packet the target sends back.
  ExpectCompletion(CompletionsFrom(h, 1, 0), true, rt, 3, len);
  ExpectCompletion(CompletionsFrom(h, 0, 0), true, li, 3, len);
  EXPECT_EQ(h.Inbox(0).size(), 1u);
  EXPECT_EQ(h.Inbox(1).size(), 1u);
  EXPECT_EQ(h.Drops(0, fw::DropReason::kRdmaStaleTid), 0u);
  EXPECT_EQ(h.DropReport(), "");
  EXPECT_EQ(RcxtStateOf(h, 0, li), kIdleState);
  EXPECT_EQ(RcxtStateOf(h, 1, rt), kIdleState);
}

TEST(RdmaTest, HalfReceiveWriteCompletionsFollowTheNotifyFlags) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 5000, piece = 1500;
  uint32_t tid = 30;
  for (uint8_t flags : kNotifyFlagSets) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    ++tid;
    RdmaBuffer dst = h.Alloc(1, len);
    const std::vector<uint8_t> data = RdmaHarness::Pattern(len, tid);
    const uint32_t li = h.Rcxt(0), rt = h.Rcxt(1);
    const size_t from0 = h.Inbox(0).size(), from1 = h.Inbox(1).size();
    for (uint32_t off = 0; off < len; off += piece) {
      abi::RdmaRequest r = Request(li, rt, tid, 0, dst.pvo(), len, flags);
      r.count = off;
      h.Post(0, 0, SlotType::kRdmaWritePiece, 1, 0, r, 0, data.data() + off,
             std::min(piece, len - off));
    }
    h.Run();
    EXPECT_EQ(h.Read(dst, 0, len), data);
    ExpectCompletion(CompletionsFrom(h, 0, from0), flags & abi::kReqNotifyInitiator, li, tid, len);
    ExpectCompletion(CompletionsFrom(h, 1, from1), flags & abi::kReqNotifyTarget, rt, tid, len);
    EXPECT_EQ(RcxtStateOf(h, 0, li), kIdleState);
    EXPECT_EQ(RcxtStateOf(h, 1, rt), kIdleState);
    EXPECT_EQ(h.DropReport(), "");
  }
  EXPECT_TRUE(h.CanariesIntact());
}

TEST(RdmaTest, HalfSendReadDeliversTheDataToTheRequestersFifo) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 7000;
  RdmaBuffer remote = h.Alloc(1, len);
  h.Write(remote, 0, RdmaHarness::Pattern(len, 6));
  const uint32_t li = h.Rcxt(0), rs = h.Rcxt(1);
  h.Post(0, 0, SlotType::kRdmaRead, 1, 0,
         Request(li, rs, 2, 0, remote.pvo(), len, abi::kReqLocalFifo));
  h.Run();
  const FifoData d = Reassemble(h, 0, 0, len, li, 2);
  EXPECT_EQ(d.total, len);
  EXPECT_EQ(d.bytes, RdmaHarness::Pattern(len, 6));
  // No completion asked for: nothing waits on either side.
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_TRUE(h.Completions(1).empty());
  EXPECT_EQ(RcxtStateOf(h, 0, li), kIdleState);
  EXPECT_EQ(RcxtStateOf(h, 1, rs), kIdleState);
  EXPECT_EQ(h.DropReport(), "");
}

TEST(RdmaTest, HalfSendReadCompletionsFollowTheNotifyFlags) {
  // Requester (initiator): a record in its FIFO behind the data frames once the adapter has
  // put every one there. Source (target): the requester's adapter sends it a completion
  // packet, which the source's adapter writes into the source's FIFO.
  RdmaHarness h(Nodes(2));
  const uint32_t len = 7000;
  uint32_t tid = 40;
  for (uint8_t flags : kNotifyFlagSets) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    ++tid;
    RdmaBuffer remote = h.Alloc(1, len);
    h.Write(remote, 0, RdmaHarness::Pattern(len, tid));
    const uint32_t li = h.Rcxt(0), rs = h.Rcxt(1);
    const size_t from0 = h.Inbox(0).size(), from1 = h.Inbox(1).size();
    h.Post(0, 0, SlotType::kRdmaRead, 1, 0,
           Request(li, rs, tid, 0, remote.pvo(), len, flags | abi::kReqLocalFifo));
    h.Run();
    const FifoData d = Reassemble(h, 0, from0, len, li, tid);
    EXPECT_EQ(d.total, len);
    EXPECT_EQ(d.last_flagged, 1u);
    EXPECT_EQ(d.bytes, RdmaHarness::Pattern(len, tid));
    const auto init = CompletionsFrom(h, 0, from0);
    ExpectCompletion(init, flags & abi::kReqNotifyInitiator, li, tid, len);
    if (!init.empty()) {
      EXPECT_GT(init[0].first, d.end - 1);  // behind every data frame
    }
    ExpectCompletion(CompletionsFrom(h, 1, from1), flags & abi::kReqNotifyTarget, rs, tid, len);
    EXPECT_EQ(h.Inbox(1).size() - from1, (flags & abi::kReqNotifyTarget) ? 1u : 0u);
    EXPECT_EQ(RcxtStateOf(h, 0, li), kIdleState);
    EXPECT_EQ(RcxtStateOf(h, 1, rs), kIdleState);
    EXPECT_EQ(h.DropReport(), "");
  }
}

TEST(RdmaTest, HalfReceiveReadHandsTheRequestToTheSourceUlp) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 3000;
  RdmaBuffer local = h.Alloc(0, len);
  const uint32_t li = h.Rcxt(0);
  h.Post(0, 0, SlotType::kRdmaRead, 1, 0,
         Request(li, 0, 4, local.pvo(), 0, len, abi::kReqRemoteFifo | abi::kReqNotifyInitiator));
  h.Run();
  // The data source's ULP finds the request in its FIFO ...
  ASSERT_EQ(h.Inbox(1).size(), 1u);
  const Received& req = h.Inbox(1)[0];
  ASSERT_EQ(req.header.type, static_cast<uint8_t>(abi::PacketType::kRdmaReadRequest));
  abi::RdmaFrameInfo info;
  abi::ReadRequestExt ext;
  std::memcpy(&info, req.payload.data(), sizeof(info));
  std::memcpy(&ext, req.payload.data() + sizeof(info), sizeof(ext));
  EXPECT_EQ(info.offset, len);
  EXPECT_EQ(ext.sink_rcxt, li);
  // The requester asked for its own completion only.
  EXPECT_EQ(info.flags & (abi::kWireNotifySink | abi::kWireNotifySender), abi::kWireNotifySink);
  // ... and answers it with FIFO pieces that land as RDMA at the requester.
  const std::vector<uint8_t> data = RdmaHarness::Pattern(len, 7);
  for (uint32_t off = 0; off < len; off += 1000) {
    abi::RdmaRequest r =
        Request(abi::kNoRcxt, ext.sink_rcxt, info.tid, 0, ext.sink_pvo, len, abi::kReqNotifyTarget);
    r.count = off;
    h.Post(1, 0, SlotType::kRdmaWritePiece, ext.sink_adapter, ext.sink_window, r, 0,
           data.data() + off, 1000);
  }
  h.Run();
  EXPECT_EQ(h.Read(local, 0, len), data);
  ExpectCompletion(CompletionsFrom(h, 0, 0), true, li, 4, len);
  EXPECT_EQ(h.Inbox(1).size(), 1u);  // the source asked for nothing
  EXPECT_EQ(RcxtStateOf(h, 0, li), kIdleState);
  EXPECT_EQ(h.DropReport(), "");
}

TEST(RdmaTest, HalfReceiveReadCompletionsFollowTheNotifyFlags) {
  // The requester's flags reach the source's ULP in the request frame (kWireNotifySink: the
  // requester wants a record; kWireNotifySender: the source does); the ULP passes them on
  // in its pieces. Requester: a record in its FIFO once every piece has landed. Source: its
  // adapter writes the completion packet the requester's adapter sends back.
  RdmaHarness h(Nodes(2));
  const uint32_t len = 3000;
  uint32_t tid = 50;
  for (uint8_t flags : kNotifyFlagSets) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    ++tid;
    RdmaBuffer local = h.Alloc(0, len);
    const uint32_t li = h.Rcxt(0), rs = h.Rcxt(1);
    const size_t from0 = h.Inbox(0).size(), from1 = h.Inbox(1).size();
    h.Post(0, 0, SlotType::kRdmaRead, 1, 0,
           Request(li, 0, tid, local.pvo(), 0, len, flags | abi::kReqRemoteFifo));
    h.Run();
    ASSERT_EQ(h.Inbox(1).size(), from1 + 1);
    const Received& req = h.Inbox(1)[from1];
    ASSERT_EQ(req.header.type, static_cast<uint8_t>(abi::PacketType::kRdmaReadRequest));
    abi::RdmaFrameInfo info;
    abi::ReadRequestExt ext;
    std::memcpy(&info, req.payload.data(), sizeof(info));
    std::memcpy(&ext, req.payload.data() + sizeof(info), sizeof(ext));
    uint8_t piece_flags = 0;
    if (info.flags & abi::kWireNotifySink) piece_flags |= abi::kReqNotifyTarget;
    if (info.flags & abi::kWireNotifySender) piece_flags |= abi::kReqNotifyInitiator;
    const std::vector<uint8_t> data = RdmaHarness::Pattern(len, tid);
    for (uint32_t off = 0; off < len; off += 1000) {
      abi::RdmaRequest r = Request(rs, ext.sink_rcxt, info.tid, 0, ext.sink_pvo, len, piece_flags);
      r.count = off;
      h.Post(1, 0, SlotType::kRdmaWritePiece, ext.sink_adapter, ext.sink_window, r, 0,
             data.data() + off, 1000);
    }
    h.Run();
    EXPECT_EQ(h.Read(local, 0, len), data);
    ExpectCompletion(CompletionsFrom(h, 0, from0), flags & abi::kReqNotifyInitiator, li, tid, len);
    ExpectCompletion(CompletionsFrom(h, 1, from1), flags & abi::kReqNotifyTarget, rs, tid, len);
    EXPECT_EQ(RcxtStateOf(h, 0, li), kIdleState);
    EXPECT_EQ(RcxtStateOf(h, 1, rs), kIdleState);
    EXPECT_EQ(h.DropReport(), "");
  }
  EXPECT_TRUE(h.CanariesIntact());
}

TEST(RdmaTest, HalfSendReadOverADuplicatingReorderingFabricCompletesExactlyOnce) {
  ClusterConfig c = Nodes(2);
  c.fabric.duplicate = 1.0;
  c.fabric.paths = 4;
  c.fabric.routing = RoutingPolicy::kRoundRobin;
  c.fabric.path_skew_ps = 700'000;
  RdmaHarness h(c);
  const uint32_t len = 40'000;
  RdmaBuffer remote = h.Alloc(1, len);
  h.Write(remote, 0, RdmaHarness::Pattern(len, 60));
  const uint32_t li = h.Rcxt(0), rs = h.Rcxt(1);
  h.Post(0, 0, SlotType::kRdmaRead, 1, 0,
         Request(li, rs, 7, 0, remote.pvo(), len,
                 abi::kReqLocalFifo | abi::kReqNotifyInitiator | abi::kReqNotifyTarget));
  h.Run();
  const uint32_t packets =
      (len + abi::MaxFifoRdmaPayload(c.line_bytes) - 1) / abi::MaxFifoRdmaPayload(c.line_bytes);
  // Every data frame reached the FIFO once, whatever the order; every copy was refused.
  const FifoData d = Reassemble(h, 0, 0, len, li, 7);
  EXPECT_EQ(d.frames, packets);
  EXPECT_EQ(d.total, len);
  EXPECT_EQ(d.last_flagged, 1u);
  EXPECT_EQ(d.bytes, RdmaHarness::Pattern(len, 60));
  const auto init = CompletionsFrom(h, 0, 0);
  ExpectCompletion(init, true, li, 7, len);
  if (!init.empty()) {
    EXPECT_GT(init[0].first, d.end - 1);
  }
  ExpectCompletion(CompletionsFrom(h, 1, 0), true, rs, 7, len);
  EXPECT_EQ(h.Inbox(0).size(), packets + 1u);
  EXPECT_EQ(h.Inbox(1).size(), 1u);
  EXPECT_EQ(h.fw(0).rdma_completions_sent, 1u);
  // The copies: each data frame's at the requester; the read request's (its source still
  // sending) and the completion's (its rCxt no longer awaiting) at the source.
  EXPECT_EQ(h.DropReport(), "adapter 0 rdma_duplicate=" + std::to_string(packets) +
                                "\nadapter 1 rdma_stale_tid=1\nadapter 1 rdma_rcxt_busy=1\n");
  // The frames did overtake each other on the skewed planes.
  uint32_t overtaken = 0, prev = 0;
  for (const Received& r : h.Inbox(0)) {
    if (r.header.type != static_cast<uint8_t>(abi::PacketType::kRdmaWrite)) continue;
    abi::RdmaFrameInfo info;
    std::memcpy(&info, r.payload.data(), sizeof(info));
    overtaken += info.offset < prev ? 1 : 0;
    prev = info.offset;
  }
  EXPECT_GT(overtaken, 0u);
  EXPECT_EQ(RcxtStateOf(h, 0, li), kIdleState);
  EXPECT_EQ(RcxtStateOf(h, 1, rs), kIdleState);
}

TEST(RdmaTest, ThirdPartyTransferCompletesAtTheManager) {
  RdmaHarness h(Nodes(3));
  const uint32_t len = 100'000;
  RdmaBuffer source = h.Alloc(0, len), sink = h.Alloc(1, len);
  h.Write(source, 0, RdmaHarness::Pattern(len, 8));
  const uint32_t lm = h.Rcxt(2), rs = h.Rcxt(0), rt = h.Rcxt(1);
  abi::RdmaRequest r =
      Request(lm, rs, 1, 0, source.pvo(), len, abi::kReqNotifyInitiator | abi::kReqNotifyTarget);
  r.third_adapter = 1;
  r.third_window = 0;
  r.third_rcxt = rt;
  r.third_pvo = sink.pvo();
  h.Post(2, 0, SlotType::kThirdPartyRead, 0, 0, r);
  h.Run();
  EXPECT_EQ(h.Read(sink, 0, len), RdmaHarness::Pattern(len, 8));
  ASSERT_EQ(h.Completions(2).size(), 1u);
  EXPECT_EQ(h.Completions(2)[0].rcxt, lm);
  ASSERT_EQ(h.Completions(1).size(), 1u);
  EXPECT_EQ(h.Inbox(1)[0].header.src_adapter, 2u);  // names the manager
  EXPECT_TRUE(h.Completions(0).empty());
}

TEST(RdmaTest, BroadcastWritesEveryOtherNodeAndMulticastOnlyHolders) {
  RdmaHarness h(Nodes(4));
  const uint32_t len = 20'000;
  const uint32_t packets = (len + abi::kRdmaPacketBytes - 1) / abi::kRdmaPacketBytes;
  RdmaBuffer src = h.Alloc(0, len);
  h.Write(src, 0, RdmaHarness::Pattern(len, 9));
  // A group configuration: the same PVO (one agreed key) on every member node, and the same
  // reserved rCxt id on nodes 1 and 3 only, which makes the broadcast a multicast.
  const uint32_t group_key = 0x1F00D, group_rcxt = 77;
  std::vector<RdmaBuffer> sinks;
  uint32_t ref = 0;
  for (uint32_t n = 1; n < 4; ++n) {
    sinks.push_back(h.Alloc(n, len, abi::kPageShift4K, 0, 0, group_key));
    ASSERT_EQ(sinks.back().pvo(), sinks[0].pvo());
    if (n != 2) ref = *h.cluster().rcxts(n).AcquireIndex(group_rcxt, 0);
  }
  h.Post(0, 0, SlotType::kRdmaWrite, abi::kBroadcastAdapter, 0,
         Request(h.Rcxt(0), ref, 1, src.pvo(), sinks[0].pvo(), len, abi::kReqNotifyTarget));
  h.Run();
  EXPECT_EQ(h.fw(0).rdma_packets_out, packets);  // one injection; the switch replicates
  for (uint32_t n : {1u, 3u}) {
    EXPECT_EQ(h.Read(sinks[n - 1], 0, len), RdmaHarness::Pattern(len, 9)) << "node " << n;
    ASSERT_EQ(h.Completions(n).size(), 1u);
    EXPECT_EQ(h.Inbox(n)[0].header.src_adapter, 0u);  // the completion names the source
  }
  EXPECT_EQ(h.Read(sinks[1], 0, len), std::vector<uint8_t>(len, 0));
  EXPECT_EQ(h.Drops(2, fw::DropReason::kRdmaBadRcxt), packets);
  EXPECT_TRUE(h.CanariesIntact());
}

TEST(RdmaTest, ConditionalRequestFiresWhenItsCounterIsReached) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 8192;
  RdmaBuffer a = h.Alloc(0, len), b = h.Alloc(0, len), far = h.Alloc(1, 2 * len),
             back = h.Alloc(0, 2 * len);
  h.Write(a, 0, RdmaHarness::Pattern(len, 10));
  h.Write(b, 0, RdmaHarness::Pattern(len, 11));
  const uint32_t queue = 3;
  // Park a read of both halves until two writes have completed.
  abi::RdmaRequest parked =
      Request(h.Rcxt(0), h.Rcxt(1), 1, back.pvo(), far.pvo(), 2 * len, abi::kReqNotifyInitiator);
  parked.cond_queue = queue;
  parked.count = 2;
  parked.parked_type = static_cast<uint8_t>(SlotType::kRdmaRead);
  h.Post(0, 0, SlotType::kConditional, 1, 0, parked);
  const uint32_t rt1 = h.Rcxt(1), rt2 = h.Rcxt(1);
  abi::RdmaRequest w1 = Request(h.Rcxt(0), rt1, 1, a.pvo(), far.pvo(), len, abi::kReqConditional);
  w1.cond_queue = queue;
  abi::RdmaRequest w2 =
      Request(h.Rcxt(0), rt2, 1, b.pvo(), far.pvo() + len, len, abi::kReqConditional);
  w2.cond_queue = queue;
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0, w1);
  h.Run();
  EXPECT_EQ(h.cluster().adapter(0).microcode().conditional_counter(queue), 1u);
  EXPECT_TRUE(h.Completions(0).empty());  // the read is still parked
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0, w2);
  h.Run();
  std::vector<uint8_t> both = RdmaHarness::Pattern(len, 10);
  const std::vector<uint8_t> second = RdmaHarness::Pattern(len, 11);
  both.insert(both.end(), second.begin(), second.end());
  EXPECT_EQ(h.Read(back, 0, 2 * len), both);
  EXPECT_EQ(h.Completions(0).size(), 1u);
  EXPECT_EQ(h.fw(0).rdma_conditional_fired, 1u);
  // Query and set through the send FIFO.
  abi::RdmaRequest q{};
  q.cond_queue = queue;
  const uint64_t seq = h.Post(0, 0, SlotType::kCounterQuery, 0, 0, q);
  h.Run();
  EXPECT_EQ(h.Slot(0, 0, seq).ulp_word, 2u);
  q.count = 0;
  h.Post(0, 0, SlotType::kCounterSet, 0, 0, q);
  h.Run();
  EXPECT_EQ(h.cluster().adapter(0).microcode().conditional_counter(queue), 0u);
}

TEST(RdmaTest, StripedOverFourPathsArrivesOutOfOrderAndLandsExactly) {
  ClusterConfig c = Nodes(2);
  c.fabric.paths = 4;
  c.fabric.routing = RoutingPolicy::kRoundRobin;
  c.fabric.path_skew_ps = 700'000;
  RdmaHarness h(c);
  const uint32_t len = 4 << 20;
  RdmaBuffer src = h.Alloc(0, len, abi::kPageShift16M), dst = h.Alloc(1, len, abi::kPageShift4K, 9);
  h.Write(src, 0, RdmaHarness::Pattern(len, 12));
  h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
         Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), dst.pvo(), len, abi::kReqNotifyTarget));
  h.Run();
  EXPECT_EQ(h.Read(dst, 0, len), RdmaHarness::Pattern(len, 12));
  EXPECT_TRUE(h.CanariesIntact());
  EXPECT_EQ(h.Completions(1).size(), 1u);
  // Round robin: a quarter of the 2048 packets on each path, skewed so they overtake.
  for (uint64_t n : h.cluster().fabric().counters().frames_per_path) EXPECT_EQ(n, 512u);
}

TEST(RdmaTest, StripedOverTwoAdaptersPerNodeThroughNodeGlobalTces) {
  RdmaHarness h(Nodes(2, 2));  // adapters 0, 1 on node 0; 2, 3 on node 1
  const uint32_t len = 2 << 20, half = len / 2;
  RdmaBuffer src = h.Alloc(0, len), dst = h.Alloc(1, len, abi::kPageShift64K, 40);
  h.Write(src, 0, RdmaHarness::Pattern(len, 13));
  // One registration per node serves both of its adapters: each stripe adds an offset.
  for (uint32_t s = 0; s < 2; ++s) {
    h.Post(s, 0, SlotType::kRdmaWrite, static_cast<uint16_t>(2 + s), 0,
           Request(h.Rcxt(s), h.Rcxt(2 + s), 1, src.pvo() + s * half, dst.pvo() + s * half, half,
                   abi::kReqNotifyInitiator));
  }
  h.Run();
  EXPECT_EQ(h.Read(dst, 0, len), RdmaHarness::Pattern(len, 13));
  EXPECT_TRUE(h.CanariesIntact());
  for (uint32_t s = 0; s < 2; ++s) {
    EXPECT_EQ(h.Completions(s).size(), 1u);
    EXPECT_EQ(h.fw(s).rdma_bytes_out, half);
    EXPECT_EQ(h.fw(2 + s).rdma_bytes_in, half);
  }
}

TEST(RdmaTest, SlotIsAcceptedLongBeforeTheDataIsDelivered) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 4 << 20;
  RdmaBuffer src = h.Alloc(0, len, abi::kPageShift16M), dst = h.Alloc(1, len, abi::kPageShift16M);
  const uint64_t slot =
      h.Post(0, 0, SlotType::kRdmaWrite, 1, 0,
             Request(h.Rcxt(0), h.Rcxt(1), 1, src.pvo(), dst.pvo(), len, abi::kReqNotifyInitiator));
  kernel::EventQueue& q = h.cluster().events();
  q.RunWhile([&] {
    return h.Slot(0, 0, slot).status == static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
  });
  // "Accepted": the slot is free for the ULP, but nothing says the data arrived.
  EXPECT_EQ(h.Slot(0, 0, slot).status, static_cast<uint8_t>(abi::SendSlotStatus::kComplete));
  EXPECT_TRUE(h.Completions(0).empty());
  EXPECT_LT(h.fw(1).rdma_packets_in, 10u);
  h.Run();
  EXPECT_EQ(h.Completions(0).size(), 1u);
}

TEST(RdmaTest, CancelledReadDeliversNothingAndARetryCompletes) {
  RdmaHarness h(Nodes(2));
  const uint32_t len = 1 << 20;
  RdmaBuffer local = h.Alloc(0, len, abi::kPageShift4K, 0, 0x3C), remote = h.Alloc(1, len);
  h.Write(remote, 0, RdmaHarness::Pattern(len, 14));
  const uint32_t li = h.Rcxt(0), rs = h.Rcxt(1);
  h.Post(0, 0, SlotType::kRdmaRead, 1, 0,
         Request(li, rs, 1, local.pvo(), remote.pvo(), len, abi::kReqNotifyInitiator));
  // Cancel while the data streams in: what has landed stays, the rest is refused.
  kernel::EventQueue& q = h.cluster().events();
  q.RunWhile([&] { return h.fw(0).rdma_packets_in < 100; });
  abi::RdmaRequest cancel{};
  cancel.local_rcxt = li;
  h.Post(0, 0, SlotType::kRcxtCancel, 0, 0, cancel);
  h.Run();
  // The read's owner hears of the cancel instead of a completion: one record, cancelled.
  ASSERT_EQ(h.Completions(0).size(), 1u);
  EXPECT_EQ(h.Completions(0)[0].rcxt, li);
  EXPECT_EQ(h.Completions(0)[0].tid, 1u);
  EXPECT_EQ(h.Completions(0)[0].length, 0u);
  EXPECT_EQ(h.Completions(0)[0].status, static_cast<uint32_t>(abi::RdmaStatus::kCancelled));
  EXPECT_EQ(h.fw(0).rdma_cancels, 1u);
  EXPECT_EQ(h.fw(0).rdma_cancel_notices, 1u);
  EXPECT_GT(h.Drops(0, fw::DropReason::kRdmaDuplicate), 0u);  // the cancelled tid's packets
  EXPECT_EQ(h.cluster().rcxts(0).Read(abi::RcxtIndex(li)).state,
            static_cast<uint8_t>(abi::RcxtState::kIdle));
  h.Post(0, 0, SlotType::kRdmaRead, 1, 0,
         Request(li, rs, 2, local.pvo(), remote.pvo(), len, abi::kReqNotifyInitiator));
  h.Run();
  ASSERT_EQ(h.Completions(0).size(), 2u);
  EXPECT_EQ(h.Completions(0)[1].tid, 2u);
  EXPECT_EQ(h.Completions(0)[1].status, static_cast<uint32_t>(abi::RdmaStatus::kOk));
  EXPECT_EQ(h.Read(local, 0, len), RdmaHarness::Pattern(len, 14));
}

}  // namespace
}  // namespace nicsim::sim
