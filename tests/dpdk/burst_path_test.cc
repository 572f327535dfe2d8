// SPDX-License-Identifier: Apache-2.0
// The real port's burst path: the CRC through rte_net_crc equals the reference CRC-32; a port
// hands received bursts whole and in order and sends held frames per tx_burst (the first after
// a poll at once); an adapter
// behind it delivers every frame of a burst of 1, 2, 31, 32 or 33 frames once, in order.
#include <gtest/gtest.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "abi/packet.h"
#include "base/crc32.h"
#include "base/rng.h"
#include "hw/common/frame_codec.h"
#include "hw/dpdk/dpdk_port.h"
#include "hw/dpdk/eal.h"
#include "hw/dpdk/net_crc.h"
#include "hw/dpdk/ring_link.h"
#include "kernel/event_queue.h"
#include "realport/port/node.h"
#include "tests/support/test_seed.h"

namespace nicsim::hw::dpdk {
namespace {

using nicsim::testing::TestSeed;

/** Random bytes from `rng`. */
std::vector<uint8_t> RandomBytes(Rng& rng, size_t len) {
  std::vector<uint8_t> bytes(len);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.Next());
  return bytes;
}

TEST(NetCrcTest, EqualsTheReferenceCrc32OnEveryLengthUpTo2048) {
  const uint64_t seed = TestSeed(20261126);
  std::printf("seed %llu (NICSIM_TEST_SEED replays it)\n", static_cast<unsigned long long>(seed));
  SelectNetCrc();  // as InitEal does: the fastest algorithm this CPU has
  Rng rng(seed, "net_crc");
  const std::vector<uint8_t> data = RandomBytes(rng, 2048 + 7);
  for (size_t len = 0; len <= 2048; ++len) {
    // Every alignment of the start in turn: the folding code has head and tail cases.
    const uint8_t* at = data.data() + len % 8;
    ASSERT_EQ(NetCrc32(at, len), Crc32(0, at, len)) << "length " << len << ", seed " << seed;
  }
  // The check value of CRC-32 (IEEE): "123456789" gives 0xCBF43926.
  EXPECT_EQ(NetCrc32("123456789", 9), 0xCBF43926u);
}

TEST(NetCrcTest, FrameCrcAndStampEqualTheReferenceOnEveryFrameLength) {
  const uint64_t seed = TestSeed(7);
  std::printf("seed %llu (NICSIM_TEST_SEED replays it)\n", static_cast<unsigned long long>(seed));
  SelectNetCrc();
  Rng rng(seed, "net_frame_crc");
  for (size_t len = sizeof(abi::WireHeader); len <= 2048; ++len) {
    std::vector<uint8_t> frame = RandomBytes(rng, len);
    const std::vector<uint8_t> before = frame;
    ASSERT_EQ(NetFrameCrc(frame.data(), frame.size()), FrameCrc(frame.data(), frame.size()))
        << "length " << len << ", seed " << seed;
    ASSERT_EQ(frame, before) << "the crc field was not put back";
    std::vector<uint8_t> reference = frame;
    StampCrc(reference);
    NetStampCrc(frame);
    ASSERT_EQ(frame, reference) << "length " << len << ", seed " << seed;
    ASSERT_TRUE(NetFrameCrcOk(frame.data(), frame.size()));
    frame[len - 1] ^= 0x01;
    ASSERT_FALSE(NetFrameCrcOk(frame.data(), frame.size())) << "length " << len;
  }
  uint8_t runt[sizeof(abi::WireHeader) - 1] = {};
  EXPECT_FALSE(NetFrameCrcOk(runt, sizeof(runt)));
}

void StartEal() {
  const Status s = InitEal(kUnprivilegedEalArgs);
  ASSERT_TRUE(s.ok()) << s.message();
}

// Regression (a lazily chosen algorithm raced between lcores): rte_net_crc, left to choose on
// its first call, nulls its handler table for a moment; InitEal now chooses up front, so the
// first CRCs of two threads at once both come out right.
TEST(NetCrcTest, FirstCallsFromTwoThreadsAfterEalStartAreSafe) {
  StartEal();
  const std::vector<uint8_t> data(64, 0x5A);
  const uint32_t expected = Crc32(0, data.data(), data.size());
  std::atomic<uint64_t> wrong{0};
  auto work = [&] {
    for (int i = 0; i < 200'000; ++i) {
      if (NetCrc32(data.data(), data.size()) != expected) ++wrong;
    }
  };
  std::thread other(work);
  work();
  other.join();
  EXPECT_EQ(wrong.load(), 0u);
}

/** Records each burst a port hands over: its size, and the frames in order. */
class BurstRecorder final : public LinkSink {
 public:
  void Receive(Frame frame) override { frames.push_back(std::move(frame)); }
  void ReceiveBurst(Frame* burst, uint32_t count) override {
    bursts.push_back(count);
    LinkSink::ReceiveBurst(burst, count);
  }
  std::vector<uint32_t> bursts;
  std::vector<Frame> frames;
};

/** A stamped nicsim frame to adapter 1 whose payload's first 4 bytes are `number`. */
std::vector<uint8_t> NumberedFrame(uint32_t number, uint32_t job_key) {
  abi::WireHeader h{};
  h.dest_adapter = 1;
  h.src_adapter = 0;
  h.len_bytes = 16;
  h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
  h.protection_key = job_key;
  uint8_t payload[16] = {};
  std::memcpy(payload, &number, sizeof(number));
  return EncodeFrame(h, payload, sizeof(payload));
}

/** Port a sends through its burst path; port b takes what arrives. */
class PortBurstTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    StartEal();
    DpdkPortConfig config;
    config.tx_burst = 32;
    Result<std::unique_ptr<RingLink>> link = RingLink::Create(config);
    ASSERT_TRUE(link.ok()) << link.status().message();
    link_ = std::move(*link);
  }
  void TearDown() override { link_.reset(); }

  std::unique_ptr<RingLink> link_;
};

TEST_P(PortBurstTest, SendsHeldFramesPerBurstAndHandsThemOverInOrder) {
  const uint32_t n = GetParam();
  DpdkPort& a = link_->a();
  DpdkPort& b = link_->b();
  const unsigned pool_start = rte_mempool_avail_count(a.pool());
  std::vector<std::vector<uint8_t>> sent;
  for (uint32_t i = 0; i < n; ++i) {
    Frame f;
    f.bytes = NumberedFrame(i, 0);
    sent.push_back(f.bytes);
    f.src_adapter = 0;
    f.dest_adapter = 1;
    a.Send(std::move(f), 0);
    // A tx_burst of 32: the first frame (none was sent since a poll) leaves at once, the
    // next ones 32 at a time, and the rest wait to be flushed.
    EXPECT_EQ(a.counters().tx_frames, 1 + i / 32 * 32) << "after frame " << i;
  }
  EXPECT_EQ(rte_ring_count(link_->to_b()), 1 + (n - 1) / 32 * 32);
  EXPECT_EQ(a.FlushTx(), (n - 1) % 32);
  EXPECT_EQ(a.counters().tx_frames, n);
  EXPECT_EQ(a.counters().tx_bytes, uint64_t{n} * sent[0].size());
  EXPECT_EQ(a.counters().total_drops(), 0u);
  EXPECT_EQ(a.FlushTx(), 0u) << "nothing is held twice";

  // Port b takes at most an rx_burst (32) per poll and hands each burst over whole.
  BurstRecorder sink;
  uint32_t taken = 0;
  while (taken < n) {
    const uint32_t got = b.Poll(sink);
    ASSERT_GT(got, 0u);
    taken += got;
  }
  EXPECT_EQ(b.Poll(sink), 0u);
  std::vector<uint32_t> expected_bursts(n / 32, 32);
  if (n % 32 != 0) expected_bursts.push_back(n % 32);
  EXPECT_EQ(sink.bursts, expected_bursts);
  ASSERT_EQ(sink.frames.size(), n);
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(sink.frames[i].bytes, sent[i]) << "frame " << i;
    EXPECT_TRUE(sink.frames[i].crc_deferred) << "its CRC checked at the port";
    EXPECT_EQ(sink.frames[i].src_adapter, 0);
    EXPECT_EQ(sink.frames[i].dest_adapter, 1);
  }
  EXPECT_EQ(b.counters().rx_frames, n);
  EXPECT_EQ(b.counters().rx_bytes, uint64_t{n} * sent[0].size());
  // Every mbuf of port a is home but the spares it took in bulk, 32 at a time.
  const unsigned spares = (n + 31) / 32 * 32 - n;
  EXPECT_EQ(rte_mempool_avail_count(a.pool()), pool_start - spares);
}

TEST(PortFirstSendTest, TheFirstFrameAfterAPollLeavesAtOnceTheNextWaitForTheBurst) {
  StartEal();
  DpdkPortConfig config;
  config.tx_burst = 32;
  Result<std::unique_ptr<RingLink>> link = RingLink::Create(config);
  ASSERT_TRUE(link.ok()) << link.status().message();
  DpdkPort& a = (*link)->a();
  DpdkPort& b = (*link)->b();
  auto send = [&](uint32_t number) {
    Frame f;
    f.bytes = NumberedFrame(number, 0);
    f.src_adapter = 0;
    f.dest_adapter = 1;
    a.Send(std::move(f), 0);
  };
  BurstRecorder sink;
  for (uint32_t round = 0; round < 3; ++round) {
    send(2 * round);
    EXPECT_EQ(a.counters().tx_frames, 2 * round + 1) << "round " << round << ": the first leaves";
    send(2 * round + 1);
    EXPECT_EQ(a.counters().tx_frames, 2 * round + 1) << "round " << round << ": the second waits";
    EXPECT_EQ(b.Poll(sink), 1u) << "round " << round << ": the first arrived alone";
    // The poll sends what was held, and the next frame is again the first since a poll.
    EXPECT_EQ(a.Poll(sink), 0u);
    EXPECT_EQ(a.counters().tx_frames, 2 * round + 2);
    EXPECT_EQ(b.Poll(sink), 1u) << "round " << round << ": the held one arrived";
  }
  ASSERT_EQ(sink.frames.size(), 6u);
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(sink.frames[i].bytes, NumberedFrame(i, 0)) << i;
  EXPECT_EQ(a.counters().total_drops(), 0u);
}

TEST_P(PortBurstTest, AdapterDeliversEveryFrameOfABurstOnceInOrder) {
  const uint32_t n = GetParam();
  kernel::EventQueue events;
  sim::WireNode node(events, 1, link_->b());
  ASSERT_TRUE(node.Open().ok());
  const std::vector<sim::PolledPort> ports = {{&link_->b(), &node.adapter()}};
  sim::Settle(events, ports);
  std::vector<uint32_t> numbers;
  node.endpoint().OnReceive([&](const hal::RecvPacket& p) {
    ASSERT_EQ(p.header.len_bytes, 16u);
    uint32_t number;
    std::memcpy(&number, p.payload, sizeof(number));
    numbers.push_back(number);
  });
  const uint64_t frames_in_before = node.adapter().counters().frames_in;
  const uint64_t rx_before = node.adapter().firmware_counters().rx_packets;
  // The frames go on the wire into port b as a peer's burst would.
  for (uint32_t i = 0; i < n; ++i) {
    Frame f;
    f.bytes = NumberedFrame(i, node.config().job_key);
    f.src_adapter = 0;
    f.dest_adapter = 1;
    link_->a().Send(std::move(f), 0);
  }
  link_->a().FlushTx();
  sim::Settle(events, ports);

  std::vector<uint32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = i;
  EXPECT_EQ(numbers, expected);
  EXPECT_EQ(node.endpoint().received(), n);
  EXPECT_EQ(node.adapter().counters().frames_in - frames_in_before, n);
  EXPECT_EQ(node.adapter().firmware_counters().rx_packets - rx_before, n);
  EXPECT_EQ(link_->b().counters().rx_frames, n);
  uint64_t drops = 0;
  for (uint64_t d : node.adapter().firmware_counters().drops) drops += d;
  EXPECT_EQ(drops, 0u);
  EXPECT_EQ(node.adapter().counters().dropped_by_reset, 0u);
  // Every DTB and header buffer is free again: nothing of the bursts was left behind.
  EXPECT_EQ(node.adapter().free_dtbs(), 2 * sim::kRealPortBurstFrames);
  EXPECT_EQ(node.adapter().free_header_buffers(), 2 * sim::kRealPortBurstFrames);
  node.endpoint().OnReceive(nullptr);
}

TEST_P(PortBurstTest, AdapterSendsEveryFrameWithoutWaitingForTheSimulatedLink) {
  const uint32_t n = GetParam();
  kernel::EventQueue events;
  sim::WireNode node(events, 0, link_->a());
  ASSERT_TRUE(node.Open().ok());
  const std::vector<sim::PolledPort> ports = {{&link_->a(), &node.adapter()}};
  sim::Settle(events, ports);
  const uint64_t tx_before = link_->a().counters().tx_frames;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t payload[16] = {};
    std::memcpy(payload, &i, sizeof(i));
    ASSERT_TRUE(node.endpoint().Send(sim::WindowAddr{1, 0}, payload, sizeof(payload), 0));
  }
  sim::Settle(events, ports);  // its last poll flushes what the port held
  EXPECT_EQ(link_->a().counters().tx_frames - tx_before, n);
  EXPECT_EQ(node.adapter().firmware_counters().tx_packets, n);
  // Behind a real port no transmit task waits for the simulated link's queue.
  EXPECT_EQ(node.adapter().counters().link_queue_full, 0u);
  EXPECT_EQ(link_->a().counters().total_drops(), 0u);
  BurstRecorder sink;
  while (link_->b().Poll(sink) > 0) {
  }
  ASSERT_EQ(sink.frames.size(), n);
  // Each frame once (transmit tasks keep no order between them: docs/architecture.md).
  std::vector<uint32_t> numbers;
  for (const Frame& f : sink.frames) {
    ASSERT_EQ(f.bytes.size(), sizeof(abi::WireHeader) + 16);
    uint32_t number;
    std::memcpy(&number, f.bytes.data() + sizeof(abi::WireHeader), sizeof(number));
    numbers.push_back(number);
  }
  std::sort(numbers.begin(), numbers.end());
  std::vector<uint32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = i;
  EXPECT_EQ(numbers, expected);
}

INSTANTIATE_TEST_SUITE_P(Bursts, PortBurstTest, ::testing::Values(1u, 2u, 31u, 32u, 33u),
                         [](const ::testing::TestParamInfo<uint32_t>& frames) {
                           return "Frames" + std::to_string(frames.param);
                         });

}  // namespace
}  // namespace nicsim::hw::dpdk
