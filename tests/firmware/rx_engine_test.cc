// SPDX-License-Identifier: Apache-2.0
// Receive engine steps: validation drops by reason, payload wait, body-then-first-line DMA
// order, single DMA for one-line packets, FIFO full, tail advance and interrupts.
#include "firmware/rx_engine.h"

#include <gtest/gtest.h>

#include <numeric>

#include "abi/mmio.h"
#include "firmware/microcode.h"
#include "tests/firmware/recording_platform.h"

namespace nicsim::fw {
namespace {

using testing::kHostBase;
using testing::RecordingPlatform;

constexpr uint32_t kWindow = 5;
constexpr uint32_t kKey = 0xBEEF01;
constexpr uint32_t kFrames = 4;

class RxEngineTest : public ::testing::Test {
 protected:
  RxEngineTest() : mc_(platform_, MicrocodeConfig{}) {
    platform_.Attach(&mc_);
    abi::LmtEntry lmt{};
    lmt.state = static_cast<uint32_t>(abi::WindowState::kOpen);
    lmt.protection_key = kKey;
    lmt.recv_fifo_addr = kHostBase;
    lmt.recv_fifo_frames = kFrames;
    lmt.line_bytes = 128;
    lmt.send_fifo_addr = kHostBase + 0x10000;
    lmt.send_fifo_slots = 8;
    platform_.SetLmt(kWindow, lmt);
  }

  abi::WireHeader Header(uint16_t len) {
    abi::WireHeader h{};
    h.dest_adapter = platform_.adapter_id;
    h.dest_window = kWindow;
    h.src_adapter = 7;
    h.src_window = 2;
    h.len_bytes = len;
    h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
    h.protection_key = kKey;
    h.ulp_word = 0x12345678;
    return h;
  }
  static std::vector<uint8_t> Payload(size_t len) {
    std::vector<uint8_t> p(len);
    std::iota(p.begin(), p.end(), uint8_t{1});
    return p;
  }
  TaskId Arrive(const abi::WireHeader& h, uint32_t payload_len, uint32_t header_len = 48,
                bool crc_ok = true) {
    return mc_.OnHeaderArrived(reinterpret_cast<const uint8_t*>(&h), header_len, payload_len,
                               crc_ok);
  }
  /** Header and payload arrive back to back. */
  TaskId Deliver(uint16_t len) {
    TaskId t = Arrive(Header(len), len);
    if (t != kNoTask && len > 0) mc_.OnPayloadArrived(t, platform_.StagePayload(Payload(len)));
    return t;
  }
  uint64_t TotalDrops() const {
    uint64_t n = 0;
    for (uint64_t d : mc_.counters().drops) n += d;
    return n;
  }

  /** The window's current LMT: flushed from its channel buffer (if cached), then read. */
  abi::LmtEntry FlushedLmt(uint32_t window) {
    mc_.OnMmioCommand(abi::GlobalCommandOffset(abi::GlobalCommand::kFlushLmt), window);
    return platform_.Lmt(window);
  }

  RecordingPlatform platform_;
  Microcode mc_;
};

TEST_F(RxEngineTest, PacketOfOneCacheLineGoesInOneDma) {
  ASSERT_NE(Deliver(100), kNoTask);  // 16-byte frame header + 100 bytes <= 128
  ASSERT_EQ(platform_.pending_dmas(), 1u);
  const auto& dma = platform_.next_dma().out;
  EXPECT_EQ(dma.host_addr, kHostBase);
  EXPECT_EQ(dma.prefix_len, 16u);
  EXPECT_EQ(dma.dtb_len, 100u);
  platform_.CompleteAllDmas();
  abi::RecvFrameHeader frame;
  std::memcpy(&frame, platform_.Host(kHostBase), sizeof(frame));
  EXPECT_EQ(frame.valid, abi::kRecvFrameValid);
  EXPECT_EQ(frame.len_bytes, 100);
  EXPECT_EQ(frame.src_adapter, 7);
  EXPECT_EQ(frame.src_window, 2);
  EXPECT_EQ(frame.ulp_word, 0x12345678u);
  EXPECT_EQ(std::vector<uint8_t>(platform_.Host(kHostBase + 16), platform_.Host(kHostBase + 116)),
            Payload(100));
  EXPECT_EQ(FlushedLmt(kWindow).recv_tail, 1u);
  EXPECT_EQ(mc_.counters().rx_packets, 1u);
  EXPECT_EQ(platform_.free_dtbs(), 16u);
  EXPECT_EQ(mc_.active_tasks(TaskKind::kRx), 0u);
  // Once for the channel buffer, once for the task.
  EXPECT_EQ(platform_.rx_task_freed, 2u);
}

TEST_F(RxEngineTest, BodyReachesMemoryBeforeTheFirstLine) {
  ASSERT_NE(Deliver(1000), kNoTask);
  ASSERT_EQ(platform_.pending_dmas(), 1u);
  const auto body = platform_.next_dma().out;
  EXPECT_EQ(body.host_addr, kHostBase + 128);
  EXPECT_EQ(body.prefix_len, 0u);
  EXPECT_EQ(body.dtb_offset, 112u);
  EXPECT_EQ(body.dtb_len, 16u + 1000u - 128u);
  platform_.CompleteNextDma();
  // Body is coherent but the arrival signal is not yet written.
  EXPECT_EQ(platform_.Host(kHostBase)[0], 0);
  ASSERT_EQ(platform_.pending_dmas(), 1u);
  const auto signal = platform_.next_dma().out;
  EXPECT_EQ(signal.host_addr, kHostBase);
  EXPECT_EQ(signal.prefix_len, 16u);
  EXPECT_EQ(signal.dtb_offset, 0u);
  EXPECT_EQ(signal.dtb_len, 112u);
  EXPECT_EQ(FlushedLmt(kWindow).recv_tail, 0u);
  platform_.CompleteNextDma();
  EXPECT_EQ(platform_.Host(kHostBase)[0], abi::kRecvFrameValid);
  EXPECT_EQ(std::vector<uint8_t>(platform_.Host(kHostBase + 16), platform_.Host(kHostBase + 1016)),
            Payload(1000));
  EXPECT_EQ(FlushedLmt(kWindow).recv_tail, 1u);
}

TEST_F(RxEngineTest, SuspendsUntilPayloadArrives) {
  const TaskId t = Arrive(Header(300), 300);
  ASSERT_NE(t, kNoTask);
  EXPECT_EQ(platform_.pending_dmas(), 0u);
  mc_.OnPayloadArrived(t, platform_.StagePayload(Payload(300)));
  EXPECT_EQ(platform_.pending_dmas(), 1u);
}

TEST_F(RxEngineTest, ZeroLengthPacketWritesOnlyTheFrameHeader) {
  ASSERT_NE(Deliver(0), kNoTask);
  ASSERT_EQ(platform_.pending_dmas(), 1u);
  EXPECT_EQ(platform_.next_dma().out.dtb_len, 0u);
  EXPECT_EQ(platform_.next_dma().out.dtb, kNoDtb);
  platform_.CompleteAllDmas();
  EXPECT_EQ(FlushedLmt(kWindow).recv_tail, 1u);
}

struct BadPacketCase {
  const char* name;
  DropReason reason;
  void (*mutate)(abi::WireHeader&, uint32_t& payload_len, uint32_t& header_len, bool& crc_ok);
};

class RxDropTest : public RxEngineTest, public ::testing::WithParamInterface<BadPacketCase> {};

TEST_P(RxDropTest, DropsAndCountsByReason) {
  abi::WireHeader h = Header(64);
  uint32_t payload_len = 64, header_len = 48;
  bool crc_ok = true;
  GetParam().mutate(h, payload_len, header_len, crc_ok);
  EXPECT_EQ(Arrive(h, payload_len, header_len, crc_ok), kNoTask);
  EXPECT_EQ(mc_.counters().drop(GetParam().reason), 1u);
  EXPECT_EQ(TotalDrops(), 1u);
  EXPECT_EQ(platform_.pending_dmas(), 0u);
  EXPECT_EQ(FlushedLmt(kWindow).recv_next, 0u);
  EXPECT_EQ(mc_.active_tasks(TaskKind::kRx), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Reasons, RxDropTest,
    ::testing::Values(
        BadPacketCase{"UnknownWindow", DropReason::kUnknownWindow,
                      [](abi::WireHeader& h, uint32_t&, uint32_t&, bool&) { h.dest_window = 200; }},
        BadPacketCase{"ClosedWindow", DropReason::kWindowClosed,
                      [](abi::WireHeader& h, uint32_t&, uint32_t&, bool&) { h.dest_window = 6; }},
        BadPacketCase{
            "WrongKey", DropReason::kBadProtectionKey,
            [](abi::WireHeader& h, uint32_t&, uint32_t&, bool&) { h.protection_key ^= 1; }},
        BadPacketCase{"Oversize", DropReason::kOversizeLength,
                      [](abi::WireHeader& h, uint32_t& p, uint32_t&, bool&) {
                        h.len_bytes = 2040;
                        p = 2040;
                      }},
        BadPacketCase{"LengthMismatch", DropReason::kLengthMismatch,
                      [](abi::WireHeader&, uint32_t& p, uint32_t&, bool&) { p = 65; }},
        BadPacketCase{"UnknownType", DropReason::kUnknownType,
                      [](abi::WireHeader& h, uint32_t&, uint32_t&, bool&) { h.type = 9; }},
        BadPacketCase{"WrongAdapter", DropReason::kWrongAdapter,
                      [](abi::WireHeader& h, uint32_t&, uint32_t&, bool&) { h.dest_adapter = 4; }},
        BadPacketCase{"TruncatedHeader", DropReason::kTruncatedHeader,
                      [](abi::WireHeader&, uint32_t& p, uint32_t& hl, bool&) {
                        hl = 20;
                        p = 0;
                      }},
        BadPacketCase{"BadCrc", DropReason::kBadCrc,
                      [](abi::WireHeader&, uint32_t&, uint32_t&, bool& crc) { crc = false; }}),
    [](const ::testing::TestParamInfo<BadPacketCase>& param) { return param.param.name; });

TEST_F(RxEngineTest, FullFifoDiscardsUntilFramesAreReturned) {
  for (uint32_t i = 0; i < kFrames; ++i) ASSERT_NE(Deliver(10), kNoTask);
  platform_.CompleteAllDmas();
  EXPECT_EQ(Deliver(10), kNoTask);
  EXPECT_EQ(mc_.counters().drop(DropReason::kRxFifoFull), 1u);
  EXPECT_EQ(platform_.interrupts.size(), 0u);  // silently
  mc_.OnMmioCommand(abi::WindowCommandOffset(kWindow, abi::MmioCommand::kReturnRecvFrames), 1);
  ASSERT_NE(Deliver(10), kNoTask);
  ASSERT_EQ(platform_.pending_dmas(), 1u);
  EXPECT_EQ(platform_.next_dma().out.host_addr, kHostBase);  // frame 0 again
}

TEST_F(RxEngineTest, ReturningUnwrittenFramesIsRefused) {
  mc_.OnMmioCommand(abi::WindowCommandOffset(kWindow, abi::MmioCommand::kReturnRecvFrames), 1);
  EXPECT_EQ(mc_.counters().bad_mmio, 1u);
  EXPECT_EQ(FlushedLmt(kWindow).recv_returned, 0u);
}

TEST_F(RxEngineTest, InterruptsWhenTailReachesThresholdThenDisarms) {
  mc_.OnMmioCommand(abi::WindowCommandOffset(kWindow, abi::MmioCommand::kSetRecvInterruptThreshold),
                    2);
  Deliver(10);
  platform_.CompleteAllDmas();
  EXPECT_TRUE(platform_.interrupts.empty());
  Deliver(10);
  platform_.CompleteAllDmas();
  ASSERT_EQ(platform_.interrupts.size(), 1u);
  EXPECT_EQ(platform_.interrupts[0].window, kWindow);
  EXPECT_EQ(platform_.interrupts[0].cause,
            static_cast<uint32_t>(abi::InterruptCause::kRecvThreshold));
  Deliver(10);
  platform_.CompleteAllDmas();
  EXPECT_EQ(platform_.interrupts.size(), 1u);
}

TEST_F(RxEngineTest, ThresholdAlreadyReachedInterruptsAtOnce) {
  Deliver(10);
  platform_.CompleteAllDmas();
  mc_.OnMmioCommand(abi::WindowCommandOffset(kWindow, abi::MmioCommand::kSetRecvInterruptThreshold),
                    1);
  EXPECT_EQ(platform_.interrupts.size(), 1u);
}

TEST_F(RxEngineTest, AllOnesThresholdNeverInterrupts) {
  mc_.OnMmioCommand(abi::WindowCommandOffset(kWindow, abi::MmioCommand::kSetRecvInterruptThreshold),
                    0xFFFFFFFF);
  for (int i = 0; i < 3; ++i) {
    Deliver(10);
    platform_.CompleteAllDmas();
  }
  EXPECT_TRUE(platform_.interrupts.empty());
}

TEST_F(RxEngineTest, ConcurrentTasksFillConsecutiveFrames) {
  const TaskId a = Deliver(500);
  const TaskId b = Deliver(500);
  ASSERT_NE(a, b);
  ASSERT_EQ(platform_.pending_dmas(), 2u);
  EXPECT_EQ(platform_.next_dma().out.host_addr, kHostBase + 128);
  platform_.CompleteAllDmas();
  EXPECT_EQ(FlushedLmt(kWindow).recv_tail, 2u);
  EXPECT_EQ(platform_.Host(kHostBase + abi::kRecvFrameBytes)[0], abi::kRecvFrameValid);
}

TEST(RxStateNames, EveryStateHasAName) {
  for (size_t i = 0; i < static_cast<size_t>(RxState::kCount); ++i) {
    EXPECT_FALSE(kRxStateNames[i].empty());
  }
  EXPECT_EQ(ToString(RxState::kSignal), "signal");
}

}  // namespace
}  // namespace nicsim::fw
