// SPDX-License-Identifier: Apache-2.0
// HAL send and receive FIFO logic on the real functional adapter, looped back to itself:
// doorbells, slot ownership, exact received bytes, consumption, return batching and wrap-around;
// an endpoint's doorbell per post or once per read batch; when an endpoint's sends have left
// through the adapter.
#include "abi/fifo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "abi/limits.h"
#include "abi/packet.h"
#include "driver/adapter_driver.h"
#include "firmware/counters.h"
#include "hal/endpoint.h"
#include "hal/recv_fifo.h"
#include "hal/send_fifo.h"
#include "hal/window.h"
#include "kernel/event_queue.h"
#include "hw/func/func_adapter.h"
#include "hw/func/func_device_access.h"
#include "host/host_memory.h"
#include "tests/support/loopback_port.h"

namespace nicsim::hal {
namespace {

constexpr uint16_t kAdapter = 0;
constexpr uint32_t kTxWindow = 1;
constexpr uint32_t kRxWindow = 2;
constexpr uint32_t kJobKey = 0x5EED42;
constexpr uint8_t kFifoType = static_cast<uint8_t>(abi::PacketType::kFifo);

using Loopback = nicsim::testing::LoopbackPort;

/** How the two windows of a test are laid out. */
struct RigOptions {
  uint32_t line_bytes = 128;
  uint32_t send_slots = 8;
  uint32_t recv_frames = 16;
  uint32_t return_batch = 1;
};

RigOptions Options(uint32_t line_bytes, uint32_t send_slots, uint32_t recv_frames,
                   uint32_t return_batch) {
  RigOptions o;
  o.line_bytes = line_bytes;
  o.send_slots = send_slots;
  o.recv_frames = recv_frames;
  o.return_batch = return_batch;
  return o;
}

/** A nonzero, size-dependent byte pattern so a misplaced or missing byte shows. */
std::vector<uint8_t> Pattern(uint32_t len, uint32_t salt) {
  std::vector<uint8_t> bytes(len);
  for (uint32_t i = 0; i < len; ++i) bytes[i] = static_cast<uint8_t>((i * 7 + salt * 13) % 255 + 1);
  return bytes;
}

/**
 * One FuncAdapter with its driver, window kTxWindow (the sender) and window kRxWindow (the
 * receiver) opened with the same job key, and a loopback fabric.
 */
class HalFifoFixture : public ::testing::Test {
 protected:
  HalFifoFixture() : host_(16 << 20) {}

  void Start(const RigOptions& options) {
    options_ = options;
    adapter_ =
        std::make_unique<hw::func::FuncAdapter>(events_, host_, kAdapter, options.line_bytes,
                                                hw::func::AdapterTiming{}, fw::MicrocodeConfig{});
    access_ = std::make_unique<hw::func::FuncDeviceAccess>(*adapter_);
    driver_ = std::make_unique<driver::AdapterDriver>(*access_);
    loop_ = std::make_unique<Loopback>(*adapter_, events_);
    adapter_->ConnectFabric(loop_.get());
    ASSERT_TRUE(driver_->Init().ok());
    const driver::WindowRequest request{kJobKey, options.recv_frames, options.send_slots};
    Result<driver::WindowInfo> tx = driver_->OpenWindow(kTxWindow, request);
    ASSERT_TRUE(tx.ok()) << tx.status().message();
    Result<driver::WindowInfo> rx = driver_->OpenWindow(kRxWindow, request);
    ASSERT_TRUE(rx.ok()) << rx.status().message();
    tx_.emplace(*tx, *access_, options.return_batch);
    rx_.emplace(*rx, *access_, options.return_batch);
  }

  void RunAll() {
    events_.RunWhile([] { return true; });
  }

  SendFifo& send() { return tx_->send(); }
  RecvFifo& recv() { return rx_->recv(); }
  const fw::Counters& fw() const { return adapter_->firmware_counters(); }

  /** Posts one packet from the sender window to the receiver window. */
  SendResult Post(const std::vector<uint8_t>& payload, uint32_t ulp_word) {
    return send().Post(kAdapter, kRxWindow, payload.data(), static_cast<uint32_t>(payload.size()),
                       ulp_word);
  }

  /** The CPU's view of send slot `index` of the sender window. */
  uint8_t* SendSlot(uint32_t index) {
    return tx_->info().send_fifo.ptr + uint64_t{index} * abi::SendSlotBytes(options_.line_bytes);
  }
  /** The CPU's view of receive frame `index` of the receiver window. */
  uint8_t* RecvFrame(uint32_t index) {
    return rx_->info().recv_fifo.ptr + uint64_t{index} * abi::kRecvFrameBytes;
  }
  uint64_t RecvFrameAddr(uint32_t index) {
    return rx_->info().recv_fifo.real_addr + uint64_t{index} * abi::kRecvFrameBytes;
  }

  RigOptions options_;
  kernel::EventQueue events_;
  host::HostMemory host_;
  std::unique_ptr<hw::func::FuncAdapter> adapter_;
  std::unique_ptr<hw::func::FuncDeviceAccess> access_;
  std::unique_ptr<driver::AdapterDriver> driver_;
  std::unique_ptr<Loopback> loop_;
  std::optional<Window> tx_;
  std::optional<Window> rx_;
};

class SendFifoTest : public HalFifoFixture {};
class RecvFifoTest : public HalFifoFixture {};

/** The 16 send slot header bytes the ABI promises, spelled out byte by byte (little endian). */
std::array<uint8_t, 16> SlotHeaderBytes(uint16_t dest_window, uint16_t len, uint8_t status,
                                        uint32_t ulp_word) {
  return {static_cast<uint8_t>(kAdapter & 0xFF),
          static_cast<uint8_t>(kAdapter >> 8),
          static_cast<uint8_t>(dest_window & 0xFF),
          static_cast<uint8_t>(dest_window >> 8),
          static_cast<uint8_t>(len & 0xFF),
          static_cast<uint8_t>(len >> 8),
          kFifoType,
          status,
          static_cast<uint8_t>(ulp_word),
          static_cast<uint8_t>(ulp_word >> 8),
          static_cast<uint8_t>(ulp_word >> 16),
          static_cast<uint8_t>(ulp_word >> 24),
          0,
          0,
          0,
          0};
}

std::array<uint8_t, 16> FirstBytes(const uint8_t* p) {
  std::array<uint8_t, 16> out{};
  std::memcpy(out.data(), p, out.size());
  return out;
}

constexpr uint8_t kPosted = static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
constexpr uint8_t kComplete = static_cast<uint8_t>(abi::SendSlotStatus::kComplete);

TEST_F(SendFifoTest, MaxPayloadIsTheSmallerOfSlotAndFrame) {
  ASSERT_NO_FATAL_FAILURE(Start({}));
  EXPECT_EQ(send().max_payload(), 2032u);
}

TEST_F(SendFifoTest, PostWithoutFlushSendsNothing) {
  ASSERT_NO_FATAL_FAILURE(Start({}));
  const std::vector<uint8_t> payload = Pattern(40, 1);
  ASSERT_EQ(Post(payload, 1), SendResult::kOk);
  ASSERT_EQ(Post(payload, 2), SendResult::kOk);
  ASSERT_EQ(Post(payload, 3), SendResult::kOk);
  RunAll();
  EXPECT_EQ(fw().mmio_commands, 0u);
  EXPECT_EQ(fw().tx_packets, 0u);
  EXPECT_EQ(fw().rx_packets, 0u);
  EXPECT_EQ(send().posted(), 3u);
  EXPECT_EQ(send().InFlight(), 3u);
  EXPECT_EQ(driver_->ReadLmt(kTxWindow).ready_to_send, 0u);
}

TEST_F(SendFifoTest, FlushIssuesOneStartTransmitForEveryPostedSlot) {
  ASSERT_NO_FATAL_FAILURE(Start({}));
  const std::vector<uint8_t> payload = Pattern(40, 1);
  for (uint32_t i = 0; i < 3; ++i) ASSERT_EQ(Post(payload, i), SendResult::kOk);
  send().Flush();
  RunAll();
  EXPECT_EQ(fw().mmio_commands, 1u);
  EXPECT_EQ(fw().bad_mmio, 0u);
  EXPECT_EQ(fw().tx_packets, 3u);
  EXPECT_EQ(fw().tx_bytes, 120u);
  EXPECT_EQ(fw().rx_packets, 3u);
  EXPECT_EQ(driver_->ReadLmt(kTxWindow).send_done, 3u);
}

TEST_F(SendFifoTest, SecondFlushWithNothingPostedIssuesNoCommand) {
  ASSERT_NO_FATAL_FAILURE(Start({}));
  const std::vector<uint8_t> payload = Pattern(8, 2);
  ASSERT_EQ(Post(payload, 7), SendResult::kOk);
  send().Flush();
  RunAll();
  ASSERT_EQ(fw().mmio_commands, 1u);
  send().Flush();
  RunAll();
  EXPECT_EQ(fw().mmio_commands, 1u);
  EXPECT_EQ(fw().tx_packets, 1u);
}

TEST_F(SendFifoTest, SendPostsAndFlushesEachPacket) {
  ASSERT_NO_FATAL_FAILURE(Start({}));
  const std::vector<uint8_t> payload = Pattern(8, 3);
  ASSERT_EQ(send().Send(kAdapter, kRxWindow, payload.data(), 8, 1), SendResult::kOk);
  ASSERT_EQ(send().Send(kAdapter, kRxWindow, payload.data(), 8, 2), SendResult::kOk);
  RunAll();
  EXPECT_EQ(fw().mmio_commands, 2u);
  EXPECT_EQ(fw().tx_packets, 2u);
}

TEST_F(SendFifoTest, PostWritesTheSlotHeaderAndPayload) {
  ASSERT_NO_FATAL_FAILURE(Start({}));
  const std::vector<uint8_t> payload = Pattern(300, 4);
  ASSERT_EQ(Post(payload, 0xCAFEF00D), SendResult::kOk);
  EXPECT_EQ(FirstBytes(SendSlot(0)), SlotHeaderBytes(kRxWindow, 300, kPosted, 0xCAFEF00D));
  EXPECT_EQ(std::vector<uint8_t>(SendSlot(0) + 16, SendSlot(0) + 316), payload);
  EXPECT_EQ(SendSlot(0)[316], 0u);
}

TEST_F(SendFifoTest, PostReturnsFullWhileTheAdapterOwnsTheNextSlot) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 2, 16, 1)));
  const std::vector<uint8_t> payload = Pattern(20, 5);
  ASSERT_TRUE(send().CanPost());
  EXPECT_EQ(Post(payload, 0xA), SendResult::kOk);
  EXPECT_EQ(Post(payload, 0xB), SendResult::kOk);
  EXPECT_FALSE(send().CanPost());
  EXPECT_EQ(Post(payload, 0xC), SendResult::kFull);
  EXPECT_EQ(send().Send(kAdapter, kRxWindow, payload.data(), 20, 0xC), SendResult::kFull);
  EXPECT_EQ(send().posted(), 2u);
  EXPECT_EQ(send().InFlight(), 2u);
  // The refused posts touched neither slot.
  EXPECT_EQ(FirstBytes(SendSlot(0)), SlotHeaderBytes(kRxWindow, 20, kPosted, 0xA));
  EXPECT_EQ(FirstBytes(SendSlot(1)), SlotHeaderBytes(kRxWindow, 20, kPosted, 0xB));
}

TEST_F(SendFifoTest, AdapterCompletionMarksSlotsCompleteAndFreesThem) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 2, 16, 1)));
  const std::vector<uint8_t> payload = Pattern(20, 6);
  ASSERT_EQ(Post(payload, 0xA), SendResult::kOk);
  ASSERT_EQ(Post(payload, 0xB), SendResult::kOk);
  ASSERT_EQ(Post(payload, 0xC), SendResult::kFull);
  send().Flush();
  RunAll();
  EXPECT_TRUE(send().CanPost());
  EXPECT_EQ(send().InFlight(), 0u);
  EXPECT_EQ(SendSlot(0)[offsetof(abi::SendSlotHeader, status)], kComplete);
  EXPECT_EQ(SendSlot(1)[offsetof(abi::SendSlotHeader, status)], kComplete);
  // The adapter rewrites only the status byte.
  EXPECT_EQ(FirstBytes(SendSlot(0)), SlotHeaderBytes(kRxWindow, 20, kComplete, 0xA));
  EXPECT_EQ(FirstBytes(SendSlot(1)), SlotHeaderBytes(kRxWindow, 20, kComplete, 0xB));
  EXPECT_EQ(fw().tx_packets, 2u);
  // The next post reuses slot 0.
  EXPECT_EQ(Post(payload, 0xC), SendResult::kOk);
  EXPECT_EQ(send().posted(), 3u);
  EXPECT_EQ(FirstBytes(SendSlot(0)), SlotHeaderBytes(kRxWindow, 20, kPosted, 0xC));
  EXPECT_EQ(send().InFlight(), 1u);
}

TEST_F(SendFifoTest, PostRefusesTooLongPacketAndWritesNothing) {
  ASSERT_NO_FATAL_FAILURE(Start({}));
  const uint32_t slot_bytes = abi::SendSlotBytes(128);
  const std::vector<uint8_t> before(SendSlot(0), SendSlot(0) + slot_bytes);
  const std::vector<uint8_t> payload = Pattern(send().max_payload() + 1, 7);
  EXPECT_EQ(Post(payload, 1), SendResult::kTooLong);
  EXPECT_EQ(std::vector<uint8_t>(SendSlot(0), SendSlot(0) + slot_bytes), before);
  EXPECT_EQ(send().posted(), 0u);
  EXPECT_EQ(send().InFlight(), 0u);
  send().Flush();
  RunAll();
  EXPECT_EQ(fw().mmio_commands, 0u);
  // Exactly the maximum is accepted.
  const std::vector<uint8_t> max = Pattern(send().max_payload(), 7);
  EXPECT_EQ(Post(max, 1), SendResult::kOk);
}

/** One receive case: host cache line size and payload size. */
struct SizeCase {
  uint32_t line_bytes;
  uint32_t len;
};

class RecvFifoSizeTest : public HalFifoFixture, public ::testing::WithParamInterface<SizeCase> {};

/** A device write into the receive FIFO, and whether Poll() saw a packet right after it. */
struct Landing {
  uint64_t offset;
  uint64_t len;
  bool poll_true_after;
  bool operator==(const Landing& o) const {
    return offset == o.offset && len == o.len && poll_true_after == o.poll_true_after;
  }
};

void PrintTo(const Landing& l, std::ostream* os) {
  *os << "{offset " << l.offset << ", len " << l.len << ", poll " << l.poll_true_after << "}";
}

TEST_P(RecvFifoSizeTest, DeliversHeaderAndPayloadExactlyOnceTheFirstLineLands) {
  const SizeCase c = GetParam();
  ASSERT_NO_FATAL_FAILURE(Start(Options(c.line_bytes, 8, 16, 1)));
  const uint32_t line = c.line_bytes;
  const uint32_t ulp_word = 0xA1B2C3D4u ^ c.len;
  std::vector<Landing> landings;
  host_.Watch(RecvFrameAddr(0), abi::kRecvFrameBytes, [&](uint64_t addr, uint64_t len) {
    RecvPacket seen;
    landings.push_back({addr - RecvFrameAddr(0), len, recv().Poll(&seen)});
  });
  const std::vector<uint8_t> payload = Pattern(c.len, c.len);
  ASSERT_EQ(send().Send(kAdapter, kRxWindow, payload.data(), c.len, ulp_word), SendResult::kOk);
  RecvPacket packet;
  EXPECT_FALSE(recv().Poll(&packet));
  RunAll();

  // The body (anything past the first line) lands first; the first line, with the header,
  // lands last, and only then does Poll() see the packet.
  std::vector<Landing> expected;
  const uint32_t total = abi::kRecvHeaderBytes + c.len;
  if (total > line) expected.push_back({line, total - line, false});
  expected.push_back({0, std::min(total, line), true});
  EXPECT_EQ(landings, expected);

  ASSERT_TRUE(recv().Poll(&packet));
  EXPECT_EQ(packet.header.valid, abi::kRecvFrameValid);
  EXPECT_EQ(packet.header.type, kFifoType);
  EXPECT_EQ(packet.header.len_bytes, c.len);
  EXPECT_EQ(packet.header.src_adapter, kAdapter);
  EXPECT_EQ(packet.header.src_window, kTxWindow);
  EXPECT_EQ(packet.header.ulp_word, ulp_word);
  EXPECT_EQ(packet.header.reserved, 0u);
  EXPECT_EQ(packet.payload, RecvFrame(0) + abi::kRecvHeaderBytes);
  EXPECT_EQ(std::vector<uint8_t>(packet.payload, packet.payload + c.len), payload);
  // Nothing is written past the payload.
  EXPECT_EQ(std::count(RecvFrame(0) + total, RecvFrame(0) + abi::kRecvFrameBytes, 0),
            static_cast<long>(abi::kRecvFrameBytes - total));
  EXPECT_EQ(fw().rx_packets, 1u);
  EXPECT_EQ(fw().rx_bytes, c.len);

  recv().Consume();
  EXPECT_EQ(recv().consumed(), 1u);
  EXPECT_EQ(std::count(RecvFrame(0), RecvFrame(0) + line, 0), static_cast<long>(line));
  // Only the first line is cleared; the rest of the body stays where it landed.
  if (total > line) {
    EXPECT_EQ(RecvFrame(0)[line], payload[line - abi::kRecvHeaderBytes]);
  }
  EXPECT_FALSE(recv().Poll(&packet));
  EXPECT_EQ(recv().NextFrameAddr(), RecvFrameAddr(1));
}

INSTANTIATE_TEST_SUITE_P(Sizes, RecvFifoSizeTest,
                         ::testing::Values(SizeCase{128, 0}, SizeCase{128, 1}, SizeCase{128, 111},
                                           SizeCase{128, 112}, SizeCase{128, 113},
                                           SizeCase{128, 1000}, SizeCase{128, 2032},
                                           SizeCase{64, 0}, SizeCase{64, 47}, SizeCase{64, 48},
                                           SizeCase{64, 49}, SizeCase{64, 1008}),
                         [](const ::testing::TestParamInfo<SizeCase>& param_info) {
                           return "Line" + std::to_string(param_info.param.line_bytes) + "Len" +
                                  std::to_string(param_info.param.len);
                         });

TEST_F(RecvFifoTest, CacheLine64MaxPayloadIs1008AndArrivesIntact) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(64, 8, 16, 1)));
  EXPECT_EQ(send().max_payload(), 1008u);
  const std::vector<uint8_t> too_long = Pattern(1009, 9);
  EXPECT_EQ(Post(too_long, 1), SendResult::kTooLong);
  const std::vector<uint8_t> payload = Pattern(1008, 9);
  ASSERT_EQ(send().Send(kAdapter, kRxWindow, payload.data(), 1008, 77), SendResult::kOk);
  RunAll();
  RecvPacket packet;
  ASSERT_TRUE(recv().Poll(&packet));
  EXPECT_EQ(packet.header.len_bytes, 1008u);
  EXPECT_EQ(packet.header.ulp_word, 77u);
  EXPECT_EQ(std::vector<uint8_t>(packet.payload, packet.payload + 1008), payload);
  recv().Consume();
  EXPECT_EQ(std::count(RecvFrame(0), RecvFrame(0) + 64, 0), 64);
  EXPECT_EQ(RecvFrame(0)[64], payload[48]);
}

/**
 * The receiver window's endpoint echoes each of three frames back to the sender window from
 * OnReceive; returns the doorbells (MMIO commands) that one ReadFrames made, after checking
 * that the sender got the three echoes with their bytes.
 */
TEST_F(SendFifoTest, AnEndpointKnowsWhichOfItsSendsHaveLeftThroughTheAdapter) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 2, 16, 1)));
  const std::vector<uint8_t> payload = Pattern(20, 7);
  Endpoint ep(*tx_);
  const Peer dest{kAdapter, static_cast<uint16_t>(kRxWindow)};
  // Two slots: the first two sends are posted (and rung), the third waits in the backlog.
  for (uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(ep.Send(dest, payload.data(), 20, i));
  EXPECT_EQ(ep.posted(), 2u);
  EXPECT_FALSE(ep.Transmitted(0));  // no such send
  for (uint64_t place = 1; place <= 3; ++place) EXPECT_FALSE(ep.Transmitted(place)) << place;
  RunAll();
  EXPECT_EQ(fw().tx_packets, 2u);
  EXPECT_TRUE(ep.Transmitted(1));
  EXPECT_TRUE(ep.Transmitted(2));
  EXPECT_FALSE(ep.Transmitted(3));  // still in the backlog
  // The third takes slot 0 again: the first stays sent, the third is in the FIFO, not sent.
  ep.DrainBacklog();
  EXPECT_EQ(ep.posted(), 3u);
  EXPECT_EQ(send().InFlight(), 1u);
  EXPECT_TRUE(ep.Transmitted(1));
  EXPECT_FALSE(ep.Transmitted(3));
  RunAll();
  EXPECT_TRUE(ep.Transmitted(3));
  EXPECT_EQ(fw().tx_packets, 3u);
}

class EndpointDoorbellTest : public HalFifoFixture {
 protected:
  uint64_t EchoThreeAndCountDoorbells(bool once_per_read);
};

uint64_t EndpointDoorbellTest::EchoThreeAndCountDoorbells(bool once_per_read) {
  const std::vector<uint8_t> payload = Pattern(24, 5);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(Post(payload, i), SendResult::kOk);
  send().Flush();
  RunAll();
  EXPECT_EQ(fw().rx_packets, 3u);
  Endpoint echo(*rx_);
  echo.SetRingOncePerRead(once_per_read);
  echo.OnReceive([&](const RecvPacket& p) {
    echo.Send({kAdapter, static_cast<uint16_t>(kTxWindow)}, p.payload, p.header.len_bytes,
              p.header.ulp_word + 100);
  });
  const uint64_t before = fw().mmio_commands;
  EXPECT_EQ(echo.ReadFrames(), 3u);
  RunAll();
  const uint64_t doorbells = fw().mmio_commands - before;
  std::vector<uint32_t> words;
  RecvFifo& back = tx_->recv();
  RecvPacket packet;
  while (back.Poll(&packet)) {
    words.push_back(packet.header.ulp_word);
    EXPECT_EQ(std::vector<uint8_t>(packet.payload, packet.payload + packet.header.len_bytes),
              payload);
    back.Consume();
  }
  std::sort(words.begin(), words.end());
  EXPECT_EQ(words, (std::vector<uint32_t>{100, 101, 102}));
  // A send outside a read rings at once either way.
  const uint64_t outside_before = fw().mmio_commands;
  EXPECT_TRUE(echo.Send({kAdapter, static_cast<uint16_t>(kTxWindow)}, payload.data(), 24, 7));
  RunAll();
  EXPECT_EQ(fw().mmio_commands - outside_before, 1u);
  EXPECT_TRUE(back.Poll(&packet));
  EXPECT_EQ(packet.header.ulp_word, 7u);
  return doorbells;
}

TEST_F(EndpointDoorbellTest, RingsOnceForTheRepliesOfOneReadWhenAsked) {
  // A return batch larger than three frames: consuming them sends no command of its own.
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 8, 16, 16)));
  EXPECT_EQ(EchoThreeAndCountDoorbells(true), 1u);
  EXPECT_EQ(fw().bad_mmio, 0u);
}

TEST_F(EndpointDoorbellTest, RingsForEachReplyByDefault) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 8, 16, 16)));
  EXPECT_EQ(EchoThreeAndCountDoorbells(false), 3u);
  EXPECT_EQ(fw().bad_mmio, 0u);
}

TEST_F(RecvFifoTest, ConsumingFewerThanTheBatchReturnsNothing) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 8, 16, 3)));
  const std::vector<uint8_t> payload = Pattern(10, 10);
  for (uint32_t i = 0; i < 3; ++i) ASSERT_EQ(Post(payload, i), SendResult::kOk);
  send().Flush();
  RunAll();
  ASSERT_EQ(fw().rx_packets, 3u);
  ASSERT_EQ(fw().mmio_commands, 1u);
  RecvPacket packet;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(recv().Poll(&packet));
    recv().Consume();
  }
  RunAll();
  EXPECT_EQ(recv().consumed(), 2u);
  EXPECT_EQ(driver_->ReadLmt(kRxWindow).recv_returned, 0u);
  EXPECT_EQ(fw().mmio_commands, 1u);
}

TEST_F(RecvFifoTest, CompletingTheBatchReturnsItInOneCommand) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 8, 16, 3)));
  const std::vector<uint8_t> payload = Pattern(10, 11);
  for (uint32_t i = 0; i < 3; ++i) ASSERT_EQ(Post(payload, i), SendResult::kOk);
  send().Flush();
  RunAll();
  RecvPacket packet;
  std::vector<uint32_t> words;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(recv().Poll(&packet));
    words.push_back(packet.header.ulp_word);
    recv().Consume();
  }
  RunAll();
  // Transmit tasks do not keep order, so compare the set of packets, not their sequence.
  std::sort(words.begin(), words.end());
  EXPECT_EQ(words, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(driver_->ReadLmt(kRxWindow).recv_returned, 3u);
  EXPECT_EQ(fw().mmio_commands, 2u);
  EXPECT_EQ(fw().bad_mmio, 0u);
}

TEST_F(RecvFifoTest, ReturnFramesHandsBackAPartialBatch) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 8, 16, 3)));
  const std::vector<uint8_t> payload = Pattern(10, 12);
  ASSERT_EQ(Post(payload, 1), SendResult::kOk);
  ASSERT_EQ(Post(payload, 2), SendResult::kOk);
  send().Flush();
  RunAll();
  RecvPacket packet;
  ASSERT_TRUE(recv().Poll(&packet));
  recv().Consume();
  RunAll();
  ASSERT_EQ(driver_->ReadLmt(kRxWindow).recv_returned, 0u);
  recv().ReturnFrames();
  RunAll();
  EXPECT_EQ(driver_->ReadLmt(kRxWindow).recv_returned, 1u);
  EXPECT_EQ(fw().mmio_commands, 2u);
  // Nothing left to return: no command.
  recv().ReturnFrames();
  RunAll();
  EXPECT_EQ(fw().mmio_commands, 2u);
  // The batch count restarts after a partial return: one more consume returns nothing.
  ASSERT_TRUE(recv().Poll(&packet));
  recv().Consume();
  RunAll();
  EXPECT_EQ(driver_->ReadLmt(kRxWindow).recv_returned, 1u);
  EXPECT_EQ(fw().mmio_commands, 2u);
  EXPECT_EQ(fw().bad_mmio, 0u);
}

TEST_F(RecvFifoTest, ReusesFramesInOrderAcrossWrapAround) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 4, 4, 1)));
  for (uint32_t i = 0; i < 10; ++i) {
    SCOPED_TRACE("packet " + std::to_string(i));
    EXPECT_EQ(recv().NextFrameAddr(), RecvFrameAddr(i % 4));
    const uint32_t len = 100 * i + 7;
    const std::vector<uint8_t> payload = Pattern(len, i);
    ASSERT_EQ(send().Send(kAdapter, kRxWindow, payload.data(), len, 1000 + i), SendResult::kOk);
    RunAll();
    RecvPacket packet;
    ASSERT_TRUE(recv().Poll(&packet));
    EXPECT_EQ(packet.payload, RecvFrame(i % 4) + abi::kRecvHeaderBytes);
    EXPECT_EQ(packet.header.len_bytes, len);
    EXPECT_EQ(packet.header.ulp_word, 1000 + i);
    EXPECT_EQ(std::vector<uint8_t>(packet.payload, packet.payload + len), payload);
    recv().Consume();
  }
  RunAll();
  EXPECT_EQ(recv().consumed(), 10u);
  EXPECT_EQ(recv().NextFrameAddr(), RecvFrameAddr(2));
  EXPECT_EQ(fw().rx_packets, 10u);
  EXPECT_EQ(fw().drop(fw::DropReason::kRxFifoFull), 0u);
  const abi::LmtEntry lmt = driver_->ReadLmt(kRxWindow);
  EXPECT_EQ(lmt.recv_next, 10u);
  EXPECT_EQ(lmt.recv_tail, 10u);
  EXPECT_EQ(lmt.recv_returned, 10u);
  EXPECT_EQ(send().posted(), 10u);
  EXPECT_EQ(send().InFlight(), 0u);
}

TEST_F(RecvFifoTest, NextFrameAddrWrapsAtTheFifoSize) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 8, 5, 1)));
  const std::vector<uint8_t> payload = Pattern(200, 14);
  for (uint32_t i = 0; i < 7; ++i) {
    SCOPED_TRACE("packet " + std::to_string(i));
    EXPECT_EQ(recv().NextFrameAddr(), RecvFrameAddr(i % 5));
    ASSERT_EQ(send().Send(kAdapter, kRxWindow, payload.data(), 200, i), SendResult::kOk);
    RunAll();
    RecvPacket packet;
    ASSERT_TRUE(recv().Poll(&packet));
    EXPECT_EQ(packet.payload, RecvFrame(i % 5) + abi::kRecvHeaderBytes);
    EXPECT_EQ(packet.header.ulp_word, i);
    recv().Consume();
  }
  EXPECT_EQ(recv().NextFrameAddr(), RecvFrameAddr(2));
  EXPECT_EQ(recv().fifo_real_addr(), RecvFrameAddr(0));
  EXPECT_EQ(recv().fifo_bytes(), 5u * abi::kRecvFrameBytes);
}

TEST_F(RecvFifoTest, FullFifoDropsPacketsUntilFramesAreReturned) {
  ASSERT_NO_FATAL_FAILURE(Start(Options(128, 8, 4, 16)));
  const std::vector<uint8_t> payload = Pattern(10, 13);
  for (uint32_t i = 0; i < 5; ++i) ASSERT_EQ(Post(payload, i), SendResult::kOk);
  send().Flush();
  RunAll();
  EXPECT_EQ(fw().rx_packets, 4u);
  EXPECT_EQ(fw().drop(fw::DropReason::kRxFifoFull), 1u);
  RecvPacket packet;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(recv().Poll(&packet));
    recv().Consume();
    RunAll();
    // The batch of 16 is cut to half the 4-frame FIFO: frames go back two at a time.
    EXPECT_EQ(driver_->ReadLmt(kRxWindow).recv_returned, i < 1 ? 0u : i < 3 ? 2u : 4u) << i;
  }
  ASSERT_EQ(send().Send(kAdapter, kRxWindow, payload.data(), 10, 99), SendResult::kOk);
  RunAll();
  ASSERT_TRUE(recv().Poll(&packet));
  EXPECT_EQ(packet.payload, RecvFrame(0) + abi::kRecvHeaderBytes);
  EXPECT_EQ(packet.header.ulp_word, 99u);
  EXPECT_EQ(fw().rx_packets, 5u);
  EXPECT_EQ(fw().drop(fw::DropReason::kRxFifoFull), 1u);
}

}  // namespace
}  // namespace nicsim::hal
