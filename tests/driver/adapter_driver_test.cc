// SPDX-License-Identifier: Apache-2.0
// Driver window logic on the functional adapter: LMT contents, argument checks, close and
// reopen, memory accounting and interrupt routing.
#include "driver/adapter_driver.h"

#include <gtest/gtest.h>

#include <cstring>

#include "abi/fifo.h"
#include "abi/mmio.h"
#include "hw/common/frame_codec.h"
#include "hw/func/func_adapter.h"
#include "hw/func/func_device_access.h"
#include "tests/support/loopback_port.h"

namespace nicsim::driver {
namespace {

class AdapterDriverTest : public ::testing::Test {
 protected:
  AdapterDriverTest()
      : host_(8 << 20),
        adapter_(events_, host_, 0, 128, hw::func::AdapterTiming{}, fw::MicrocodeConfig{}),
        access_(adapter_),
        driver_(access_) {
    EXPECT_TRUE(driver_.Init().ok());
  }
  kernel::EventQueue events_;
  host::HostMemory host_;
  hw::func::FuncAdapter adapter_;
  hw::func::FuncDeviceAccess access_;
  AdapterDriver driver_;
};

TEST_F(AdapterDriverTest, OpenWindowWritesTheLmt) {
  WindowRequest req{0xC0FFEE, 32, 16};
  Result<WindowInfo> w = driver_.OpenWindow(7, req);
  ASSERT_TRUE(w.ok()) << w.status().message();
  const abi::LmtEntry lmt = driver_.ReadLmt(7);
  EXPECT_EQ(lmt.state, static_cast<uint32_t>(abi::WindowState::kOpen));
  EXPECT_EQ(lmt.protection_key, 0xC0FFEEu);
  EXPECT_EQ(lmt.recv_fifo_addr, w->recv_fifo.real_addr);
  EXPECT_EQ(lmt.recv_fifo_frames, 32u);
  EXPECT_EQ(lmt.send_fifo_addr, w->send_fifo.real_addr);
  EXPECT_EQ(lmt.send_fifo_slots, 16u);
  EXPECT_EQ(lmt.line_bytes, 128u);
  EXPECT_EQ(lmt.recv_tail, 0u);
  EXPECT_EQ(w->recv_fifo.bytes, 32u * abi::kRecvFrameBytes);
  EXPECT_EQ(w->send_fifo.bytes, 16u * abi::SendSlotBytes(128));
  EXPECT_TRUE(driver_.IsOpen(7));
  EXPECT_EQ(host_.bytes_in_use(), w->recv_fifo.bytes + w->send_fifo.bytes);
}

TEST_F(AdapterDriverTest, RefusesBadRequests) {
  EXPECT_EQ(driver_.OpenWindow(128, {}).status().message(),
            "open window 128: window must be below 128");
  EXPECT_EQ(driver_.OpenWindow(1, {1, 0, 4}).status().message(),
            "open window 1: recv_frames must be positive");
  EXPECT_EQ(driver_.OpenWindow(1, {1, 4, 0}).status().message(),
            "open window 1: send_slots must be positive");
  ASSERT_TRUE(driver_.OpenWindow(1, {1, 4, 4}).ok());
  EXPECT_EQ(driver_.OpenWindow(1, {1, 4, 4}).status().message(), "open window 1: already open");
  Result<WindowInfo> huge = driver_.OpenWindow(2, {1, 100000, 4});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("host memory exhausted"), std::string::npos);
  EXPECT_FALSE(driver_.IsOpen(2));
}

TEST_F(AdapterDriverTest, CloseFreesMemoryAndClosesTheLmt) {
  ASSERT_TRUE(driver_.OpenWindow(3, {5, 8, 8}).ok());
  ASSERT_TRUE(driver_.CloseWindow(3).ok());
  EXPECT_EQ(driver_.ReadLmt(3).state, static_cast<uint32_t>(abi::WindowState::kClosed));
  EXPECT_EQ(host_.bytes_in_use(), 0u);
  EXPECT_FALSE(driver_.CloseWindow(3).ok());
  EXPECT_TRUE(driver_.OpenWindow(3, {5, 8, 8}).ok());
}

// Found by fuzz/rdma_rx (tests/fuzz/crashes/rdma_rx/close_then_recovery_then_reopen): the
// poll of a close that a recovery cut short used to release whatever held the window number
// when it next fired, i.e. the FIFOs of the window opened again after the recovery, and the
// adapter then wrote into freed memory.
TEST_F(AdapterDriverTest, CloseCutShortByRecoveryDoesNotFreeTheWindowReopenedSince) {
  ASSERT_TRUE(driver_.OpenWindow(3, {5, 8, 8}).ok());
  // A packet whose payload is still on the link keeps a receive task busy, so the close waits.
  abi::WireHeader h{};
  h.dest_window = 3;
  h.len_bytes = 1000;
  h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
  h.protection_key = 5;
  const std::vector<uint8_t> payload(1000, 0xAB);
  hw::Frame frame;
  frame.bytes = hw::EncodeFrame(h, payload.data(), 1000);
  adapter_.Receive(std::move(frame));
  int done = 0;
  ASSERT_TRUE(driver_.CloseWindow(3, [&] { ++done; }).ok());
  ASSERT_TRUE(driver_.IsClosing(3));
  driver_.RecoverAdapter();
  EXPECT_FALSE(driver_.IsOpen(3));
  EXPECT_EQ(host_.bytes_in_use(), 0u);
  Result<WindowInfo> again = driver_.OpenWindow(3, {5, 8, 8});
  ASSERT_TRUE(again.ok());
  events_.RunWhile([] { return true; });
  EXPECT_EQ(done, 1);
  EXPECT_TRUE(driver_.IsOpen(3));
  EXPECT_EQ(host_.bytes_in_use(), again->recv_fifo.bytes + again->send_fifo.bytes);
  EXPECT_EQ(driver_.ReadLmt(3).recv_fifo_addr, again->recv_fifo.real_addr);
}

TEST_F(AdapterDriverTest, RoutesInterruptsToTheWindowHandler) {
  ASSERT_TRUE(driver_.OpenWindow(4, {5, 8, 8}).ok());
  std::vector<uint32_t> causes;
  driver_.SetWindowInterruptHandler(4, [&](uint32_t cause) { causes.push_back(cause); });
  // Interrupt when the first send completes.
  access_.MmioWrite(abi::WindowCommandOffset(4, abi::MmioCommand::kSetSendInterruptThreshold), 1);
  Result<WindowInfo> info = driver_.OpenWindow(5, {5, 8, 8});
  ASSERT_TRUE(info.ok());
  // Post one packet on window 4 to window 5 of this same adapter.
  abi::SendSlotHeader h{};
  h.dest_adapter = 0;
  h.dest_window = 5;
  h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
  h.status = static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
  const abi::LmtEntry lmt = driver_.ReadLmt(4);
  std::memcpy(host_.Translate(lmt.send_fifo_addr, 16), &h, sizeof(h));
  testing::LoopbackPort loop(adapter_, events_);
  adapter_.ConnectFabric(&loop);
  access_.MmioWrite(abi::WindowCommandOffset(4, abi::MmioCommand::kStartTransmit), 1);
  events_.RunWhile([] { return true; });
  EXPECT_EQ(causes,
            std::vector<uint32_t>{static_cast<uint32_t>(abi::InterruptCause::kSendThreshold)});
  EXPECT_EQ(driver_.interrupts_delivered(), 1u);
  EXPECT_EQ(adapter_.firmware_counters().rx_packets, 1u);
}

}  // namespace
}  // namespace nicsim::driver
