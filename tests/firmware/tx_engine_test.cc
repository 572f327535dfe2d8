// SPDX-License-Identifier: Apache-2.0
// Transmit engine steps: StartTransmit bookkeeping and the ready bit, header and body fetch,
// key stamping, completion marking, round robin every k packets, refused slots and commands.
#include "firmware/tx_engine.h"

#include <gtest/gtest.h>

#include "abi/mmio.h"
#include "firmware/microcode.h"
#include "tests/firmware/recording_platform.h"

namespace nicsim::fw {
namespace {

using testing::kHostBase;
using testing::RecordingPlatform;

constexpr uint32_t kSlots = 8;
constexpr uint32_t kSlotBytes = 16 * 128;

uint32_t KeyOf(uint32_t window) { return 0xA000 + window; }
uint64_t SendFifo(uint32_t window) { return kHostBase + 0x100000 + window * 0x10000; }

class TxEngineTest : public ::testing::Test {
 protected:
  void Build(uint32_t tx_tasks, uint32_t k) {
    MicrocodeConfig c;
    c.tx_tasks = tx_tasks;
    c.tx_switch_every = k;
    mc_ = std::make_unique<Microcode>(platform_, c);
    platform_.Attach(mc_.get());
    for (uint32_t w : {1u, 2u, 70u}) {
      abi::LmtEntry lmt{};
      lmt.state = static_cast<uint32_t>(abi::WindowState::kOpen);
      lmt.protection_key = KeyOf(w);
      lmt.recv_fifo_addr = kHostBase + w * 0x1000;
      lmt.recv_fifo_frames = 1;
      lmt.line_bytes = 128;
      lmt.send_fifo_addr = SendFifo(w);
      lmt.send_fifo_slots = kSlots;
      platform_.SetLmt(w, lmt);
    }
  }
  /** Writes a posted slot as the HAL would. */
  void PostSlot(uint32_t window, uint32_t slot, uint16_t len, uint8_t fill) {
    uint8_t* s = platform_.Host(SendFifo(window) + slot * kSlotBytes);
    abi::SendSlotHeader h{};
    h.dest_adapter = 9;
    h.dest_window = 4;
    h.len_bytes = len;
    h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
    h.status = static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
    h.ulp_word = window * 100 + slot;
    std::memset(s + 16, fill, len);
    std::memcpy(s, &h, sizeof(h));
  }
  void StartTransmit(uint32_t window, uint64_t count) {
    mc_->OnMmioCommand(abi::WindowCommandOffset(window, abi::MmioCommand::kStartTransmit), count);
  }
  uint8_t SlotStatus(uint32_t window, uint32_t slot) {
    return platform_.Host(SendFifo(window) +
                          slot * kSlotBytes)[offsetof(abi::SendSlotHeader, status)];
  }

  /** Posts three packets each on windows 1 and 2, starts both and runs to the end. */
  void SendThreeFromWindowsOneAndTwo() {
    for (uint32_t s = 0; s < 3; ++s) PostSlot(1, s, 8, 1), PostSlot(2, s, 8, 2);
    StartTransmit(1, 3);
    StartTransmit(2, 3);
    platform_.CompleteAllDmas();
  }

  /** The window's current LMT: flushed from its channel buffer (if cached), then read. */
  abi::LmtEntry FlushedLmt(uint32_t window) {
    mc_->OnMmioCommand(abi::GlobalCommandOffset(abi::GlobalCommand::kFlushLmt), window);
    return platform_.Lmt(window);
  }

  RecordingPlatform platform_;
  std::unique_ptr<Microcode> mc_;
};

TEST_F(TxEngineTest, SendsPostedSlotsWithTheWindowKeyAndMarksThemComplete) {
  Build(4, 1);
  PostSlot(1, 0, 300, 0x11);
  PostSlot(1, 1, 0, 0);
  StartTransmit(1, 2);
  // Two tasks claimed both slots at once; the ready bit is already clear.
  EXPECT_EQ(FlushedLmt(1).send_head, 2u);
  EXPECT_EQ(FlushedLmt(1).ready_to_send, 0u);
  EXPECT_EQ(platform_.ReadGlobalReg(abi::GlobalReg::kReadyLow), 0u);
  EXPECT_EQ(platform_.pending_dmas(), 2u);
  platform_.CompleteAllDmas();
  ASSERT_EQ(platform_.sent.size(), 2u);
  // Transmit tasks keep no order: the empty packet, needing no body fetch, leaves first.
  EXPECT_EQ(platform_.sent[0].header.len_bytes, 0);
  const auto& p = platform_.sent[1];
  EXPECT_EQ(p.header.dest_adapter, 9);
  EXPECT_EQ(p.header.dest_window, 4);
  EXPECT_EQ(p.header.src_adapter, platform_.adapter_id);
  EXPECT_EQ(p.header.src_window, 1);
  EXPECT_EQ(p.header.protection_key, KeyOf(1));
  EXPECT_EQ(p.header.len_bytes, 300);
  EXPECT_EQ(p.header.ulp_word, 100u);
  EXPECT_EQ(p.payload, std::vector<uint8_t>(300, 0x11));
  EXPECT_EQ(SlotStatus(1, 0), static_cast<uint8_t>(abi::SendSlotStatus::kComplete));
  EXPECT_EQ(SlotStatus(1, 1), static_cast<uint8_t>(abi::SendSlotStatus::kComplete));
  EXPECT_EQ(FlushedLmt(1).send_done, 2u);
  EXPECT_EQ(mc_->counters().tx_packets, 2u);
  EXPECT_EQ(mc_->counters().tx_bytes, 300u);
  EXPECT_EQ(platform_.free_dtbs(), 16u);
}

TEST_F(TxEngineTest, ReadyBitStaysSetWhileWorkWaitsForATask) {
  Build(1, 1);
  for (uint32_t s = 0; s < 3; ++s) PostSlot(70, s, 8, 1);
  StartTransmit(70, 3);
  EXPECT_EQ(FlushedLmt(70).ready_to_send, 2u);
  EXPECT_EQ(platform_.ReadGlobalReg(abi::GlobalReg::kReadyHigh), uint64_t{1} << (70 - 64));
  platform_.CompleteAllDmas();
  EXPECT_EQ(platform_.sent.size(), 3u);
  EXPECT_EQ(platform_.ReadGlobalReg(abi::GlobalReg::kReadyHigh), 0u);
}

std::vector<uint16_t> SourceWindows(const RecordingPlatform& p) {
  std::vector<uint16_t> w;
  for (const auto& s : p.sent) w.push_back(s.header.src_window);
  return w;
}

TEST_F(TxEngineTest, RoundRobinSwitchesWindowEveryPacketWhenKIsOne) {
  Build(1, 1);
  SendThreeFromWindowsOneAndTwo();
  EXPECT_EQ(SourceWindows(platform_), (std::vector<uint16_t>{1, 2, 1, 2, 1, 2}));
}

TEST_F(TxEngineTest, RoundRobinTakesKPacketsPerTurn) {
  Build(1, 2);
  SendThreeFromWindowsOneAndTwo();
  EXPECT_EQ(SourceWindows(platform_), (std::vector<uint16_t>{1, 1, 2, 2, 1, 2}));
}

TEST_F(TxEngineTest, ATaskKeepsItsChannelBufferWhileItsWindowIsServedNext) {
  // One task, two packets per turn: 1, 1, 2, 2, 1, 2. After the first packet of each turn
  // the same window is next, so the task keeps its CB: the LMT is neither written back nor
  // fetched again between the two.
  Build(1, 2);
  const Counters before = mc_->counters();
  SendThreeFromWindowsOneAndTwo();
  EXPECT_EQ(SourceWindows(platform_), (std::vector<uint16_t>{1, 1, 2, 2, 1, 2}));
  EXPECT_EQ(mc_->counters().cb_kept, 2u);
  // Four binds (one per turn), each a fetch, and four write-backs; unbinding after every
  // packet made six of each (below).
  EXPECT_EQ(mc_->counters().cb_loads - before.cb_loads, 4u);
  EXPECT_EQ(mc_->counters().cb_flushes - before.cb_flushes, 4u);
  EXPECT_EQ(mc_->counters().cb_shared - before.cb_shared, 0u);
}

TEST_F(TxEngineTest, ATaskLetsItsChannelBufferGoWhenAnotherWindowIsNext) {
  Build(1, 1);
  const Counters before = mc_->counters();
  SendThreeFromWindowsOneAndTwo();
  EXPECT_EQ(SourceWindows(platform_), (std::vector<uint16_t>{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(mc_->counters().cb_kept, 0u);
  EXPECT_EQ(mc_->counters().cb_loads - before.cb_loads, 6u);
  EXPECT_EQ(mc_->counters().cb_flushes - before.cb_flushes, 6u);
}

TEST_F(TxEngineTest, OversizeSlotIsRejectedNotSent) {
  Build(4, 1);
  PostSlot(1, 0, 8, 1);
  uint8_t* s = platform_.Host(SendFifo(1));
  const uint16_t too_long = 2033;
  std::memcpy(s + offsetof(abi::SendSlotHeader, len_bytes), &too_long, 2);
  StartTransmit(1, 1);
  platform_.CompleteAllDmas();
  EXPECT_TRUE(platform_.sent.empty());
  EXPECT_EQ(mc_->counters().drop(DropReason::kTxBadSlot), 1u);
  EXPECT_EQ(SlotStatus(1, 0), static_cast<uint8_t>(abi::SendSlotStatus::kRejected));
  EXPECT_EQ(FlushedLmt(1).send_done, 1u);
}

TEST_F(TxEngineTest, StartTransmitOnClosedWindowOrBeyondTheFifoIsRefused) {
  Build(4, 1);
  StartTransmit(3, 1);           // closed
  StartTransmit(1, kSlots + 1);  // more than the FIFO holds
  StartTransmit(1, 0);
  EXPECT_EQ(mc_->counters().bad_mmio, 3u);
  EXPECT_EQ(platform_.pending_dmas(), 0u);
  EXPECT_EQ(FlushedLmt(1).ready_to_send, 0u);
}

TEST_F(TxEngineTest, SendThresholdInterruptsOnCompletion) {
  Build(4, 1);
  mc_->OnMmioCommand(abi::WindowCommandOffset(1, abi::MmioCommand::kSetSendInterruptThreshold), 2);
  PostSlot(1, 0, 8, 1);
  PostSlot(1, 1, 8, 1);
  StartTransmit(1, 2);
  platform_.CompleteAllDmas();
  ASSERT_EQ(platform_.interrupts.size(), 1u);
  EXPECT_EQ(platform_.interrupts[0].cause,
            static_cast<uint32_t>(abi::InterruptCause::kSendThreshold));
}

TEST_F(TxEngineTest, DmaErrorOnFetchRejectsTheSlot) {
  Build(4, 1);
  PostSlot(1, 0, 8, 1);
  StartTransmit(1, 1);
  platform_.CompleteNextDma(DmaStatus::kAddressError);
  platform_.CompleteAllDmas();
  EXPECT_TRUE(platform_.sent.empty());
  EXPECT_EQ(mc_->counters().drop(DropReason::kDmaError), 1u);
}

}  // namespace
}  // namespace nicsim::fw

namespace nicsim::fw {
namespace {

TEST_F(TxEngineTest, RoundRobinWrapsAcrossBothReadyRegisters) {
  Build(1, 1);
  for (uint32_t s = 0; s < 2; ++s)
    PostSlot(1, s, 8, 1), PostSlot(2, s, 8, 2), PostSlot(70, s, 8, 3);
  StartTransmit(70, 2);  // the one task claims 70's first slot; the cursor moves to 71
  StartTransmit(1, 2);
  StartTransmit(2, 2);
  platform_.CompleteAllDmas();
  EXPECT_EQ(SourceWindows(platform_), (std::vector<uint16_t>{70, 1, 2, 70, 1, 2}));
}

}  // namespace
}  // namespace nicsim::fw
