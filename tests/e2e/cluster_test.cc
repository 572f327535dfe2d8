// SPDX-License-Identifier: Apache-2.0
// End to end on the functional model: random exchange with every byte checked, a receiver
// that stops consuming, bad frames from the fabric, and corruption caught by the link CRC.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <set>

#include "abi/limits.h"
#include "abi/rdma.h"
#include "base/rng.h"
#include "hw/common/frame_codec.h"
#include "sim/cluster/cluster.h"
#include "sim/workloads/workload.h"
#include "tests/support/test_seed.h"

namespace nicsim::sim {
namespace {

using nicsim::testing::TestSeed;

std::string ReplayHint(uint64_t seed) {
  return "seed=" + std::to_string(seed) + " (replay: NICSIM_TEST_SEED=" + std::to_string(seed) +
         ")";
}

uint64_t FirmwareDrops(Cluster& c, fw::DropReason reason) {
  uint64_t n = 0;
  for (uint32_t a = 0; a < c.adapter_count(); ++a)
    n += c.adapter(a).firmware_counters().drop(reason);
  return n;
}

uint64_t AllFirmwareDrops(Cluster& c) {
  uint64_t n = 0;
  for (uint32_t a = 0; a < c.adapter_count(); ++a) {
    for (uint64_t d : c.adapter(a).firmware_counters().drops) n += d;
  }
  return n;
}

std::unique_ptr<Cluster> Make(const ClusterConfig& config) {
  Result<std::unique_ptr<Cluster>> c = Cluster::Create(config);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(*c);
}

TEST(ExchangeTest, FourNodesTwoWindowsDeliverEveryMessageExactlyOnce) {
  const uint64_t seed = TestSeed();
  SCOPED_TRACE(ReplayHint(seed));
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 4;
  config.windows_per_adapter = 2;
  config.seed = seed;
  auto cluster = Make(config);
  ExchangeConfig ex;
  ex.messages = 20000;
  Result<WorkloadResult> r = RunRandomExchange(*cluster, ex);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const std::string& e : r->errors) ADD_FAILURE() << e;
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_sent, 20000u);
  EXPECT_EQ(r->messages_delivered, 20000u);
  EXPECT_EQ(r->results["max_size"], abi::MaxPacketPayload(128));
  uint64_t rx = 0, tx = 0;
  for (uint32_t a = 0; a < cluster->adapter_count(); ++a) {
    rx += cluster->adapter(a).firmware_counters().rx_packets;
    tx += cluster->adapter(a).firmware_counters().tx_packets;
  }
  EXPECT_EQ(rx, 20000u);
  EXPECT_EQ(tx, 20000u);
  EXPECT_EQ(AllFirmwareDrops(*cluster), 0u);
  EXPECT_TRUE(cluster->fabric().counters().drops.empty());
}

TEST(ExchangeTest, SixtyFourByteLinesCapPacketsAtTheirSmallerSlot) {
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 2;
  config.line_bytes = 64;
  auto cluster = Make(config);
  ExchangeConfig ex;
  ex.messages = 2000;
  Result<WorkloadResult> r = RunRandomExchange(*cluster, ex);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_delivered, 2000u);
  EXPECT_EQ(r->results["max_size"], 1008u);
}

class StoppedReceiverTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kFrames = 32;
  static constexpr uint32_t kSize = 200;

  StoppedReceiverTest() {
    ClusterConfig config;
    config.backend = BackendKind::kFunc;
    config.recv_frames = kFrames;
    cluster_ = Make(config);
  }
  void SendBatch(uint32_t first, uint32_t count) {
    WindowProcess& a = cluster_->endpoint(0, 0);
    std::vector<uint8_t> buf(kSize);
    for (uint32_t seq = first; seq < first + count; ++seq) {
      FillPattern(buf.data(), kSize, seq);
      ASSERT_TRUE(a.Send(cluster_->endpoint(1, 0).addr(), buf.data(), kSize, seq));
    }
  }
  void RunAll() {
    cluster_->events().RunWhile([] { return true; });
  }

  std::unique_ptr<Cluster> cluster_;
};

TEST_F(StoppedReceiverTest, FullFifoDropsNewPacketsAndKeepsOldOnesIntact) {
  WindowProcess& b = cluster_->endpoint(1, 0);
  std::vector<uint32_t> delivered;
  b.OnReceive([&](const hal::RecvPacket& p) {
    EXPECT_EQ(p.header.len_bytes, kSize);
    EXPECT_TRUE(CheckPattern(p.payload, kSize, p.header.ulp_word)) << p.header.ulp_word;
    delivered.push_back(p.header.ulp_word);
  });
  b.SetConsuming(false);
  SendBatch(0, kFrames + 8);
  RunAll();
  EXPECT_EQ(FirmwareDrops(*cluster_, fw::DropReason::kRxFifoFull), 8u);
  EXPECT_EQ(AllFirmwareDrops(*cluster_), 8u);
  // Every frame in the FIFO still holds one whole packet, each a different one.
  const driver::WindowInfo& info = b.window().info();
  std::set<uint32_t> in_fifo;
  for (uint32_t f = 0; f < kFrames; ++f) {
    const uint8_t* frame = info.recv_fifo.ptr + f * abi::kRecvFrameBytes;
    abi::RecvFrameHeader h;
    std::memcpy(&h, frame, sizeof(h));
    ASSERT_EQ(h.valid, abi::kRecvFrameValid) << "frame " << f;
    EXPECT_EQ(h.len_bytes, kSize);
    EXPECT_TRUE(CheckPattern(frame + abi::kRecvHeaderBytes, kSize, h.ulp_word)) << "frame " << f;
    in_fifo.insert(h.ulp_word);
  }
  EXPECT_EQ(in_fifo.size(), kFrames);
  EXPECT_LT(*in_fifo.rbegin(), kFrames + 8);
  EXPECT_TRUE(delivered.empty());

  // The receiver consumes again: the held packets come out in FIFO order, and new traffic flows.
  b.SetConsuming(true);
  RunAll();
  ASSERT_EQ(delivered.size(), kFrames);
  EXPECT_EQ(std::set<uint32_t>(delivered.begin(), delivered.end()), in_fifo);
  SendBatch(1000, 5);
  RunAll();
  ASSERT_EQ(delivered.size(), kFrames + 5);
  EXPECT_EQ(std::vector<uint32_t>(delivered.end() - 5, delivered.end()),
            (std::vector<uint32_t>{1000, 1001, 1002, 1003, 1004}));
  EXPECT_EQ(FirmwareDrops(*cluster_, fw::DropReason::kRxFifoFull), 8u);
}

class BadFrameTest : public ::testing::Test {
 protected:
  BadFrameTest() {
    ClusterConfig config;
    config.backend = BackendKind::kFunc;
    cluster_ = Make(config);
  }

  /** A well-formed packet for adapter 1, window 0. */
  abi::WireHeader GoodHeader(uint16_t len) {
    abi::WireHeader h{};
    h.dest_adapter = 1;
    h.dest_window = 0;
    h.src_adapter = 0;
    h.src_window = 0;
    h.len_bytes = len;
    h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
    h.protection_key = cluster_->driver(1).ReadLmt(0).protection_key;
    return h;
  }
  void Inject(std::vector<uint8_t> bytes) { cluster_->fabric().InjectRaw(1, std::move(bytes)); }
  void Inject(const abi::WireHeader& h, uint32_t payload_len) {
    std::vector<uint8_t> payload(payload_len, 0x5A);
    Inject(hw::EncodeFrame(h, payload.data(), payload_len));
  }
  std::vector<uint8_t> Node1Memory() {
    host::HostMemory& m = cluster_->host(1);
    const uint8_t* p = m.Translate(host::HostMemory::kBaseAddr, m.size());
    return std::vector<uint8_t>(p, p + m.size());
  }
  void RunAll() {
    cluster_->events().RunWhile([] { return true; });
  }

  std::unique_ptr<Cluster> cluster_;
};

TEST_F(BadFrameTest, DropsEachKindByReasonWithoutTouchingMemory) {
  const std::vector<uint8_t> before = Node1Memory();
  abi::WireHeader h = GoodHeader(64);
  h.dest_window = 100;  // below the adapter's limit but never opened
  Inject(h, 64);
  h = GoodHeader(64);
  h.dest_window = 500;  // beyond any window
  Inject(h, 64);
  h = GoodHeader(64);
  h.protection_key ^= 0x10;
  Inject(h, 64);
  h = GoodHeader(3000);
  Inject(h, 3000);  // longer than a receive frame
  h = GoodHeader(10);
  Inject(h, 20);  // header disagrees with the bytes
  h = GoodHeader(64);
  h.type = 7;
  Inject(h, 64);
  h = GoodHeader(64);
  h.dest_adapter = 0;  // misrouted
  Inject(h, 64);
  Inject(std::vector<uint8_t>(10, 0xFF));  // truncated header
  Inject(std::vector<uint8_t>());          // empty frame
  std::vector<uint8_t> corrupt =
      hw::EncodeFrame(GoodHeader(64), std::vector<uint8_t>(64, 1).data(), 64);
  corrupt[60] ^= 0x04;
  Inject(corrupt);
  RunAll();

  const fw::Counters& c = cluster_->adapter(1).firmware_counters();
  EXPECT_EQ(c.drop(fw::DropReason::kWindowClosed), 1u);
  EXPECT_EQ(c.drop(fw::DropReason::kUnknownWindow), 1u);
  EXPECT_EQ(c.drop(fw::DropReason::kBadProtectionKey), 1u);
  EXPECT_EQ(c.drop(fw::DropReason::kOversizeLength), 1u);
  EXPECT_EQ(c.drop(fw::DropReason::kLengthMismatch), 1u);
  EXPECT_EQ(c.drop(fw::DropReason::kUnknownType), 1u);
  EXPECT_EQ(c.drop(fw::DropReason::kWrongAdapter), 1u);
  EXPECT_EQ(c.drop(fw::DropReason::kTruncatedHeader), 2u);
  EXPECT_EQ(c.drop(fw::DropReason::kBadCrc), 1u);
  EXPECT_EQ(c.rx_packets, 0u);
  EXPECT_EQ(cluster_->adapter(1).counters().dma_to_host, 0u);
  EXPECT_EQ(Node1Memory(), before);

  // A good packet after all that still arrives.
  std::vector<uint32_t> got;
  cluster_->endpoint(1, 0).OnReceive(
      [&](const hal::RecvPacket& p) { got.push_back(p.header.len_bytes); });
  Inject(GoodHeader(64), 64);
  RunAll();
  EXPECT_EQ(got, std::vector<uint32_t>{64});
}

TEST_F(BadFrameTest, RandomGarbageIsAllDroppedAndCounted) {
  const uint64_t seed = TestSeed();
  SCOPED_TRACE(ReplayHint(seed));
  const std::vector<uint8_t> before = Node1Memory();
  Rng rng(seed, "garbage");
  constexpr int kFrames = 2000;
  for (int i = 0; i < kFrames; ++i) {
    std::vector<uint8_t> bytes(rng.Below(2200));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.Next());
    Inject(std::move(bytes));
  }
  RunAll();
  EXPECT_EQ(AllFirmwareDrops(*cluster_), static_cast<uint64_t>(kFrames));
  EXPECT_EQ(cluster_->adapter(1).firmware_counters().rx_packets, 0u);
  EXPECT_EQ(Node1Memory(), before);
}

TEST(CorruptionTest, EveryCorruptedFrameIsCaughtByTheLinkCrc) {
  const uint64_t seed = TestSeed();
  SCOPED_TRACE(ReplayHint(seed));
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 4;
  config.seed = seed;
  config.fabric.corrupt = 0.02;
  auto cluster = Make(config);
  ExchangeConfig ex;
  ex.messages = 5000;
  Result<WorkloadResult> r = RunRandomExchange(*cluster, ex);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const uint64_t corrupted = cluster->fabric().counters().frames_corrupted;
  EXPECT_GT(corrupted, 0u);
  EXPECT_EQ(FirmwareDrops(*cluster, fw::DropReason::kBadCrc), corrupted);
  EXPECT_EQ(r->messages_delivered + corrupted, 5000u);
  // The only failures are the lost messages (packet mode has no retransmission).
  EXPECT_EQ(r->results["lost"], corrupted);
}

}  // namespace
}  // namespace nicsim::sim

namespace nicsim::sim {
namespace {

// Host memory is reserved, not spent: the cluster used to refuse more than 8 GiB in all.
TEST(ClusterTest, ReservesMoreHostMemoryThanItTouchesAndCountsWhatIsWritten) {
  if (sysconf(_SC_PAGESIZE) != 4096) GTEST_SKIP() << "the page counts are in 4 KiB pages";
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 4;
  config.rdma_host_bytes = uint64_t{16} << 30;
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(config);
  ASSERT_TRUE(made.ok()) << made.status().message();
  Cluster& c = **made;
  ASSERT_TRUE(c.SampleHostMemory());
  uint64_t touched = 0;
  for (const HostMemoryUse& use : c.host_memory_use()) {
    EXPECT_GT(use.reserved_bytes, config.rdma_host_bytes);
    EXPECT_LT(use.touched_bytes, uint64_t{1} << 20);
    touched += use.touched_bytes;
  }
  // One byte into each of 100 pages of a fresh mapping on node 2 touches exactly 100 pages.
  constexpr uint64_t kPage = 4096;
  Result<uint64_t> vaddr = c.address_space(2).Map(400 * kPage, abi::kPageShift4K);
  ASSERT_TRUE(vaddr.ok());
  const uint8_t one = 1;
  for (uint64_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(c.address_space(2).Write(*vaddr + 4 * i * kPage, &one, 1));
  }
  ASSERT_TRUE(c.SampleHostMemory());
  const uint64_t node2_before = c.host_memory_use()[2].touched_bytes;
  uint64_t after = 0;
  for (const HostMemoryUse& use : c.host_memory_use()) after += use.touched_bytes;
  EXPECT_EQ(after, touched + 100 * kPage);
  EXPECT_EQ(c.touched_peak_bytes(), after);
  // Unmapped, the pages are given back; the peak stays.
  ASSERT_TRUE(c.address_space(2).Unmap(*vaddr).ok());
  ASSERT_TRUE(c.SampleHostMemory());
  EXPECT_EQ(c.host_memory_use()[2].touched_bytes, node2_before - 100 * kPage);
  EXPECT_EQ(c.host_memory_use()[2].touched_peak_bytes, node2_before);
  EXPECT_EQ(c.touched_peak_bytes(), after);
}

TEST(ClusterTest, TouchingMoreHostMemoryThanTheLimitFailsTheSampleFromThenOn) {
  if (sysconf(_SC_PAGESIZE) != 4096) GTEST_SKIP() << "the page counts are in 4 KiB pages";
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.rdma_host_bytes = uint64_t{64} << 20;
  // What a cluster touches once built, measured on one without a limit.
  uint64_t touched = 0;
  {
    Result<std::unique_ptr<Cluster>> probe = Cluster::Create(config);
    ASSERT_TRUE(probe.ok()) << probe.status().message();
    ASSERT_TRUE((*probe)->SampleHostMemory());
    touched = (*probe)->touched_peak_bytes();
  }
  // Room for 10 more pages; 11 are written.
  config.touched_limit_bytes = touched + 10 * 4096;
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(config);
  ASSERT_TRUE(made.ok()) << made.status().message();
  Cluster& c = **made;
  Result<uint64_t> vaddr = c.address_space(0).Map(64 * 4096, abi::kPageShift4K);
  ASSERT_TRUE(vaddr.ok());
  const uint8_t one = 1;
  for (uint64_t i = 0; i < 10; ++i) {
    ASSERT_TRUE(c.address_space(0).Write(*vaddr + i * 4096, &one, 1));
  }
  EXPECT_TRUE(c.SampleHostMemory());
  EXPECT_TRUE(c.touched_limit_error().ok());
  ASSERT_TRUE(c.address_space(0).Write(*vaddr + 10 * 4096, &one, 1));
  EXPECT_FALSE(c.SampleHostMemory());
  EXPECT_EQ(c.touched_limit_error().message(),
            "the nodes had touched " + std::to_string(touched + 11 * 4096) +
                " bytes of simulated host memory, more than host.touched_limit (" +
                std::to_string(touched + 10 * 4096) +
                " bytes): raise it, or lower the sizes, counts or nodes");
  // Giving memory back does not undo it: the run has already passed its limit.
  ASSERT_TRUE(c.address_space(0).Unmap(*vaddr).ok());
  EXPECT_FALSE(c.SampleHostMemory());
}

// A node is measured after every so many events that ran as it (the same events however a
// run is split over processes), not after every so many of the whole cluster's.
TEST(ClusterTest, ANodeIsMeasuredAfterEverySoManyOfItsOwnEvents) {
  if (sysconf(_SC_PAGESIZE) != 4096) GTEST_SKIP() << "the page counts are in 4 KiB pages";
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 3;
  config.rdma_host_bytes = uint64_t{1} << 20;
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(config);
  ASSERT_TRUE(made.ok()) << made.status().message();
  Cluster& c = **made;
  kernel::EventQueue& events = c.events();
  events.RunWhile([] { return true; });
  ASSERT_TRUE(c.SampleHostMemory());
  const std::vector<HostMemoryUse> before = c.host_memory_use();
  constexpr uint64_t kPage = 4096;
  const uint8_t one = 1;
  Result<uint64_t> vaddr = c.address_space(1).Map(10 * kPage, abi::kPageShift4K);
  ASSERT_TRUE(vaddr.ok());
  for (uint64_t i = 0; i < 10; ++i) {
    ASSERT_TRUE(c.address_space(1).Write(*vaddr + i * kPage, &one, 1));
  }
  auto run_as = [&](uint32_t node, uint32_t n) {
    kernel::EventQueue::OwnerScope as_node(events, node);
    for (uint32_t i = 0; i < n; ++i) events.After(1000, [] {});
    events.RunWhile([] { return true; });
  };
  // Node 0's and node 2's events measure them, not node 1.
  run_as(0, Cluster::kNodeEventsPerSample);
  run_as(2, Cluster::kNodeEventsPerSample);
  EXPECT_EQ(c.host_memory_use()[1].touched_bytes, before[1].touched_bytes);
  // Node 1's do, within that many of them.
  run_as(1, Cluster::kNodeEventsPerSample);
  EXPECT_EQ(c.host_memory_use()[1].touched_bytes, before[1].touched_bytes + 10 * kPage);
  EXPECT_EQ(c.host_memory_use()[1].touched_peak_bytes, before[1].touched_bytes + 10 * kPage);
  // Given back, the node's measure falls and its peak stays: the sum of the peaks is the
  // memory a cluster of such nodes needs.
  ASSERT_TRUE(c.address_space(1).Unmap(*vaddr).ok());
  run_as(1, Cluster::kNodeEventsPerSample);
  EXPECT_EQ(c.host_memory_use()[1].touched_bytes, before[1].touched_bytes);
  uint64_t peaks = 0;
  for (const HostMemoryUse& use : c.host_memory_use()) peaks += use.touched_peak_bytes;
  EXPECT_EQ(c.touched_peak_bytes(), peaks);
}

}  // namespace
}  // namespace nicsim::sim
