// SPDX-License-Identifier: Apache-2.0
// Interrupt handlers that take host time: a handler serves its events one after another and
// takes the next interrupt only when done, so with one handler the events that arrive while
// it works wait for it, and with two the second handler takes them at once.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "abi/fifo.h"
#include "abi/mmio.h"
#include "driver/adapter_driver.h"
#include "hw/func/func_adapter.h"
#include "hw/func/func_device_access.h"
#include "tests/support/loopback_port.h"

namespace nicsim::driver {
namespace {

constexpr uint64_t kService = 10'000'000;  // 10 us per event
constexpr uint32_t kSender = 4;
constexpr uint32_t kReceivers[] = {5, 6, 7};

struct Outcome {
  /** When each receiving window's handler ran. */
  std::map<uint32_t, uint64_t> woke_at;
  uint64_t interrupts = 0;
};

/** Window 4 sends one packet to each of windows 5, 6, 7 of the same adapter at once. */
Outcome SendThree(uint32_t handlers, uint64_t service_ps) {
  kernel::EventQueue events;
  host::HostMemory host(8 << 20);
  fw::MicrocodeConfig mc;
  mc.interrupt_handlers = handlers;
  hw::func::FuncAdapter adapter(events, host, 0, 128, hw::func::AdapterTiming{}, mc);
  hw::func::FuncDeviceAccess access(adapter);
  AdapterDriver driver(access);
  EXPECT_TRUE(driver.Init().ok());
  driver.SetInterruptServiceTime(service_ps);
  Outcome out;
  EXPECT_TRUE(driver.OpenWindow(kSender, {5, 8, 8}).ok());
  for (uint32_t w : kReceivers) {
    EXPECT_TRUE(driver.OpenWindow(w, {5, 8, 8}).ok());
    access.MmioWrite(abi::WindowCommandOffset(w, abi::MmioCommand::kSetRecvInterruptThreshold), 1);
    driver.SetWindowInterruptHandler(
        w, [&out, &events, w](uint32_t) { out.woke_at[w] = events.now_ps(); });
  }
  const abi::LmtEntry lmt = driver.ReadLmt(kSender);
  for (uint32_t i = 0; i < 3; ++i) {
    abi::SendSlotHeader h{};
    h.dest_adapter = 0;
    h.dest_window = static_cast<uint16_t>(kReceivers[i]);
    h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
    h.status = static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
    std::memcpy(host.Translate(lmt.send_fifo_addr + i * abi::SendSlotBytes(128), 16), &h,
                sizeof(h));
  }
  testing::LoopbackPort loop(adapter, events);
  adapter.ConnectFabric(&loop);
  access.MmioWrite(abi::WindowCommandOffset(kSender, abi::MmioCommand::kStartTransmit), 3);
  events.RunWhile([] { return true; });
  out.interrupts = driver.interrupts_delivered();
  return out;
}

TEST(InterruptServiceTest, OneBusyHandlerMakesLaterEventsWait) {
  const Outcome o = SendThree(1, kService);
  ASSERT_EQ(o.woke_at.size(), 3u);
  // The first interrupt carries window 5's event alone; 6 and 7 arrive while the handler
  // works on it and come together in a second interrupt, after the handler is ready again.
  EXPECT_EQ(o.interrupts, 2u);
  const uint64_t latency = hw::func::AdapterTiming{}.interrupt_latency_ps;
  EXPECT_GE(o.woke_at.at(6), o.woke_at.at(5) + latency + kService);
  EXPECT_EQ(o.woke_at.at(7), o.woke_at.at(6) + kService);
}

TEST(InterruptServiceTest, ASecondHandlerTakesWhatArrivesWhileTheFirstWorks) {
  const Outcome one = SendThree(1, kService);
  const Outcome two = SendThree(2, kService);
  ASSERT_EQ(two.woke_at.size(), 3u);
  // Window 6's event goes to the idle second handler: served within one service time of 5's.
  EXPECT_LT(two.woke_at.at(6), two.woke_at.at(5) + kService);
  EXPECT_EQ(two.interrupts, 3u);
  EXPECT_EQ(two.woke_at.at(5), one.woke_at.at(5));
  EXPECT_LT(two.woke_at.at(6), one.woke_at.at(6));
  EXPECT_LE(two.woke_at.at(7), one.woke_at.at(7));
}

TEST(InterruptServiceTest, EnoughHandlersServeEveryWindowInParallel) {
  // Three handlers for three windows: each event is presented to a handler of its own the
  // moment it is raised, and the handlers' host threads work at the same time, so each
  // window wakes exactly one service time later than with free handlers: nothing queues.
  const Outcome free = SendThree(3, 0);
  const Outcome busy = SendThree(3, kService);
  ASSERT_EQ(busy.woke_at.size(), 3u);
  EXPECT_EQ(free.interrupts, 3u);
  EXPECT_EQ(busy.interrupts, 3u);
  for (uint32_t w : kReceivers) EXPECT_EQ(busy.woke_at.at(w), free.woke_at.at(w) + kService);
  // One handler serves them one after another: the last window waits for the other two.
  const Outcome one = SendThree(1, kService);
  EXPECT_GE(one.woke_at.at(7), free.woke_at.at(7) + 2 * kService);
}

TEST(InterruptServiceTest, NoServiceTimeKeepsTheOldBehaviour) {
  const Outcome free = SendThree(1, 0);
  ASSERT_EQ(free.woke_at.size(), 3u);
  EXPECT_LT(free.woke_at.at(7) - free.woke_at.at(5), kService);
}

}  // namespace
}  // namespace nicsim::driver
