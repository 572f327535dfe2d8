// SPDX-License-Identifier: Apache-2.0
// Interrupt generation: several handlers taking turns, events pending while every handler is
// busy delivered to the next one that becomes ready, and early interrupt mode.
#include <gtest/gtest.h>

#include "abi/mmio.h"
#include "firmware/microcode.h"
#include "tests/firmware/recording_platform.h"

namespace nicsim::fw {
namespace {

using testing::kHostBase;
using testing::RecordingPlatform;

constexpr uint32_t kKey = 0x99;

class InterruptsTest : public ::testing::Test {
 protected:
  void Build(uint32_t handlers) {
    MicrocodeConfig c;
    c.interrupt_handlers = handlers;
    mc_ = std::make_unique<Microcode>(platform_, c);
    platform_.Attach(mc_.get());
    for (uint32_t w = 0; w < 4; ++w) {
      abi::LmtEntry lmt{};
      lmt.state = static_cast<uint32_t>(abi::WindowState::kOpen);
      lmt.protection_key = kKey;
      lmt.recv_fifo_addr = kHostBase + w * 0x10000;
      lmt.recv_fifo_frames = 8;
      lmt.line_bytes = 128;
      lmt.send_fifo_addr = kHostBase + 0x100000;
      lmt.send_fifo_slots = 1;
      platform_.SetLmt(w, lmt);
    }
  }
  void Threshold(uint32_t w, uint32_t n) {
    mc_->OnMmioCommand(abi::WindowCommandOffset(w, abi::MmioCommand::kSetRecvInterruptThreshold),
                       n);
  }
  void Ready(uint32_t handler) {
    mc_->OnMmioCommand(abi::GlobalCommandOffset(abi::GlobalCommand::kInterruptHandlerReady),
                       handler);
  }
  TaskId Arrive(uint32_t w, uint16_t len) {
    abi::WireHeader h{};
    h.dest_adapter = platform_.adapter_id;
    h.dest_window = static_cast<uint16_t>(w);
    h.len_bytes = len;
    h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
    h.protection_key = kKey;
    return mc_->OnHeaderArrived(reinterpret_cast<const uint8_t*>(&h), sizeof(h), len, true);
  }
  void Deliver(uint32_t w) {
    const TaskId t = Arrive(w, 200);
    mc_->OnPayloadArrived(t, platform_.StagePayload(std::vector<uint8_t>(200, 1)));
    platform_.CompleteAllDmas();
  }

  RecordingPlatform platform_;
  std::unique_ptr<Microcode> mc_;
};

TEST_F(InterruptsTest, TwoHandlersTakeTurnsAndNoEventIsLost) {
  Build(2);
  for (uint32_t w = 0; w < 4; ++w) Threshold(w, 1);
  Deliver(0);  // handler 0
  Deliver(1);  // handler 1
  Deliver(2);  // both busy: pending
  Deliver(3);  // pending too
  ASSERT_EQ(platform_.interrupts.size(), 2u);
  EXPECT_EQ(platform_.interrupts[0].handler, 0u);
  EXPECT_EQ(platform_.interrupts[0].window, 0u);
  EXPECT_EQ(platform_.interrupts[1].handler, 1u);
  EXPECT_EQ(platform_.interrupts[1].window, 1u);
  EXPECT_EQ(mc_->counters().interrupts_deferred, 2u);
  Ready(1);  // handler 1 takes both pending events in one interrupt
  ASSERT_EQ(platform_.interrupts.size(), 4u);
  EXPECT_EQ(platform_.interrupts[2].handler, 1u);
  EXPECT_EQ(platform_.interrupts[2].window, 2u);
  EXPECT_EQ(platform_.interrupts[3].handler, 1u);
  EXPECT_EQ(platform_.interrupts[3].window, 3u);
  EXPECT_EQ(mc_->counters().interrupt_events, 4u);
  EXPECT_EQ(mc_->counters().interrupts_presented, 3u);
  Ready(0);
  EXPECT_EQ(platform_.interrupts.size(), 4u);  // nothing pending
}

TEST_F(InterruptsTest, OneHandlerCoalescesEventsOfOneWindow) {
  Build(1);
  Threshold(0, 1);
  Deliver(0);
  Threshold(0, 2);
  Deliver(0);  // handler not ready yet: pending
  Threshold(0, 3);
  Deliver(0);  // same window, same cause: merged
  ASSERT_EQ(platform_.interrupts.size(), 1u);
  Ready(0);
  ASSERT_EQ(platform_.interrupts.size(), 2u);
  EXPECT_EQ(platform_.interrupts[1].window, 0u);
  EXPECT_EQ(platform_.interrupts[1].cause,
            static_cast<uint32_t>(abi::InterruptCause::kRecvThreshold));
}

TEST_F(InterruptsTest, ReadyForAHandlerThatDoesNotExistIsRefused) {
  Build(2);
  Ready(5);
  EXPECT_EQ(mc_->counters().bad_mmio, 1u);
}

TEST_F(InterruptsTest, EarlyModeInterruptsBeforeTheDataIsCoherent) {
  Build(1);
  mc_->OnMmioCommand(abi::WindowCommandOffset(0, abi::MmioCommand::kSetInterruptMode),
                     abi::kEarlyInterrupt);
  Threshold(0, 1);
  const TaskId t = Arrive(0, 1000);
  ASSERT_NE(t, kNoTask);
  // Raised at admission: no DMA has even started.
  ASSERT_EQ(platform_.interrupts.size(), 1u);
  EXPECT_EQ(platform_.pending_dmas(), 0u);
  mc_->OnPayloadArrived(t, platform_.StagePayload(std::vector<uint8_t>(1000, 1)));
  platform_.CompleteAllDmas();
  EXPECT_EQ(platform_.interrupts.size(), 1u);  // not raised a second time at finish
}

TEST_F(InterruptsTest, NormalModeInterruptsOnlyAfterTheFirstLineLands) {
  Build(1);
  Threshold(0, 1);
  const TaskId t = Arrive(0, 1000);
  mc_->OnPayloadArrived(t, platform_.StagePayload(std::vector<uint8_t>(1000, 1)));
  platform_.CompleteNextDma();  // body
  EXPECT_TRUE(platform_.interrupts.empty());
  platform_.CompleteNextDma();  // first line
  EXPECT_EQ(platform_.interrupts.size(), 1u);
}

TEST_F(InterruptsTest, EarlyModeThresholdUpdateCountsReservedFrames) {
  Build(1);
  mc_->OnMmioCommand(abi::WindowCommandOffset(0, abi::MmioCommand::kSetInterruptMode),
                     abi::kEarlyInterrupt);
  Arrive(0, 1000);  // reserved, not yet written
  Threshold(0, 1);  // already reached in early terms: fires at once
  EXPECT_EQ(platform_.interrupts.size(), 1u);
}

}  // namespace
}  // namespace nicsim::fw
