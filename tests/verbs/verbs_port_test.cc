// SPDX-License-Identifier: Apache-2.0
// The verbs port on a real RDMA device: opening fails clearly without one; with one, two UD QPs
// on the same port carry two adapters' traffic and drop oversized messages by reason. Tests that
// need a device skip with "no RDMA device (ibv_get_device_list: ...)" when there is none.
#include "hw/verbs/verbs_port.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "firmware/counters.h"
#include "kernel/event_queue.h"
#include "realport/port/node.h"
#include "sim/workloads/workload.h"
#include "tests/support/process.h"

namespace nicsim::hw::verbs {
namespace {

/** Skips the test, with the reason, when this host has no RDMA device. */
#define NICSIM_REQUIRE_RDMA_DEVICE()                                 \
  do {                                                               \
    Result<std::vector<std::string>> devices_ = RdmaDevices();       \
    if (!devices_.ok()) GTEST_SKIP() << devices_.status().message(); \
  } while (0)

TEST(VerbsPortTest, OpenWithoutADeviceFailsNamingTheReason) {
  Result<std::vector<std::string>> devices = RdmaDevices();
  if (devices.ok()) GTEST_SKIP() << "this host has an RDMA device (" << devices->front() << ")";
  EXPECT_EQ(devices.status().message().rfind("no RDMA device (ibv_get_device_list: ", 0), 0u)
      << devices.status().message();
  Result<std::unique_ptr<VerbsPort>> port = VerbsPort::Open(VerbsPortConfig{});
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.status().message(), devices.status().message());
}

TEST(VerbsPortTest, OpenChecksTheConfigBeforeLookingForADevice) {
  VerbsPortConfig config;
  config.qkey = 0x8000'0000;
  Result<std::unique_ptr<VerbsPort>> port = VerbsPort::Open(config);
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.status().message().find("qkey"), std::string::npos) << port.status().message();
}

TEST(VerbsPortTest, NicsimPortVerbsWithoutADeviceExitsTwoWithTheReason) {
  testing::ScratchDir scratch("nicsim_verbs_cli");
  ASSERT_FALSE(scratch.path().empty());
  const testing::CommandResult r =
      testing::RunCommand({NICSIM_BINARY, "port", "--verbs", "nodev0:1", "--node", "1", "--peer",
                           "2", "--peer-addr", "3:0x40", "--timeout", "5s"},
                          scratch.path());
  Result<std::vector<std::string>> devices = RdmaDevices();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  if (!devices.ok()) {
    EXPECT_NE(r.err.find(devices.status().message()), std::string::npos) << r.err;
  } else {
    EXPECT_NE(r.err.find("no RDMA device 'nodev0'"), std::string::npos) << r.err;
  }
}

TEST(VerbsPortTest, NicsimPortTakesExactlyOneLink) {
  testing::ScratchDir scratch("nicsim_verbs_cli");
  ASSERT_FALSE(scratch.path().empty());
  for (const std::vector<std::string>& link :
       {std::vector<std::string>{}, std::vector<std::string>{"--verbs", "x:1", "--eal", "-l 0"}}) {
    std::vector<std::string> argv = {NICSIM_BINARY, "port", "--node", "1", "--peer", "2"};
    argv.insert(argv.end(), link.begin(), link.end());
    const testing::CommandResult r = testing::RunCommand(argv, scratch.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--eal or --verbs (port.eal or port.verbs): give exactly one"),
              std::string::npos)
        << r.err;
  }
  const testing::CommandResult no_peer = testing::RunCommand(
      {NICSIM_BINARY, "port", "--verbs", "x:1", "--node", "1", "--peer", "2"}, scratch.path());
  EXPECT_EQ(no_peer.exit_code, 2);
  EXPECT_NE(no_peer.err.find("--peer-addr"), std::string::npos) << no_peer.err;
}

/** Two UD QPs on the first device's port 1, each the other's peer; adapters 0 and 1. */
class VerbsDeviceTest : public ::testing::Test {
 protected:
  void Open(uint32_t mtu_a, uint32_t mtu_b) {
    VerbsPortConfig ca;
    ca.mtu_bytes = mtu_a;
    VerbsPortConfig cb;
    cb.mtu_bytes = mtu_b;
    Result<std::unique_ptr<VerbsPort>> a = VerbsPort::Open(ca);
    // RoCE ports need a GID index; 0 is the link-local GID every port has.
    if (!a.ok() && a.status().message().find("give a GID index") != std::string::npos) {
      ca.gid_index = cb.gid_index = 0;
      a = VerbsPort::Open(ca);
    }
    ASSERT_TRUE(a.ok()) << a.status().message();
    Result<std::unique_ptr<VerbsPort>> b = VerbsPort::Open(cb);
    ASSERT_TRUE(b.ok()) << b.status().message();
    a_ = std::move(*a);
    b_ = std::move(*b);
    ASSERT_TRUE(a_->AddPeer({1, b_->local_address()}).ok());
    ASSERT_TRUE(b_->AddPeer({0, a_->local_address()}).ok());
  }

  kernel::EventQueue events_;
  std::unique_ptr<VerbsPort> a_;
  std::unique_ptr<VerbsPort> b_;
};

TEST_F(VerbsDeviceTest, TwoAdaptersExchange10kMessagesOverUd) {
  NICSIM_REQUIRE_RDMA_DEVICE();
  ASSERT_NO_FATAL_FAILURE(Open(0, 0));
  sim::WireNode node0(events_, 0, *a_);
  sim::WireNode node1(events_, 1, *b_);
  ASSERT_TRUE(node0.Open().ok());
  ASSERT_TRUE(node1.Open().ok());
  const std::vector<sim::PolledPort> ports = {sim::PolledPort(a_.get(), &node0.adapter()),
                                              sim::PolledPort(b_.get(), &node1.adapter())};
  sim::Settle(events_, ports);
  // UD may drop under load: send in lock step, one message in flight each way at a time.
  constexpr uint32_t kMessages = 10'000;
  const uint32_t max_payload = std::min(node0.endpoint().max_payload(), a_->mtu_bytes() - 48);
  std::vector<uint8_t> buf(max_payload);
  uint32_t delivered = 0;
  uint32_t errors = 0;
  node1.endpoint().OnReceive([&](const hal::RecvPacket& p) {
    const uint32_t seq = p.header.ulp_word;
    if (seq != delivered || p.header.len_bytes != seq % (max_payload + 1) ||
        !sim::CheckPattern(p.payload, p.header.len_bytes, seq)) {
      ++errors;
    }
    ++delivered;
  });
  for (uint32_t seq = 0; seq < kMessages && errors == 0; ++seq) {
    const uint32_t size = seq % (max_payload + 1);
    sim::FillPattern(buf.data(), size, seq);
    node0.endpoint().Send(node1.endpoint().addr(), buf.data(), size, seq);
    for (int spin = 0; delivered <= seq && spin < 10'000'000; ++spin) sim::Step(events_, ports);
    ASSERT_EQ(delivered, seq + 1) << "message " << seq << " lost";
  }
  node1.endpoint().OnReceive(nullptr);
  EXPECT_EQ(errors, 0u);
  EXPECT_EQ(a_->counters().total_drops(), 0u);
  EXPECT_EQ(b_->counters().total_drops(), 0u);
  EXPECT_EQ(b_->counters().rx_frames, kMessages);
}

TEST_F(VerbsDeviceTest, DropsMessagesLongerThanTheReceiveBuffer) {
  NICSIM_REQUIRE_RDMA_DEVICE();
  ASSERT_NO_FATAL_FAILURE(Open(0, 256));
  if (a_->mtu_bytes() <= 512) GTEST_SKIP() << "path MTU too small to send over 256 bytes";
  Frame big;
  big.bytes.assign(512, 0xAB);
  big.dest_adapter = 1;
  a_->Send(big, 0);
  struct NullSink : LinkSink {
    void Receive(Frame) override { ++frames; }
    int frames = 0;
  } sink;
  for (int spin = 0; spin < 10'000'000 && b_->counters().total_drops() == 0; ++spin) {
    b_->Poll(sink);
  }
  EXPECT_EQ(sink.frames, 0);
  EXPECT_EQ(b_->counters().drop(VerbsPortDrop::kOverMtu), 1u);
}

TEST_F(VerbsDeviceTest, SendsToAnUnknownAdapterAreDroppedByReason) {
  NICSIM_REQUIRE_RDMA_DEVICE();
  ASSERT_NO_FATAL_FAILURE(Open(0, 0));
  Frame f;
  f.bytes.assign(64, 0);
  f.dest_adapter = 7;
  a_->Send(f, 0);
  f.bytes.assign(a_->mtu_bytes() + 1, 0);
  f.dest_adapter = 1;
  a_->Send(f, 0);
  a_->Stop();
  f.bytes.assign(64, 0);
  a_->Send(f, 0);
  EXPECT_EQ(a_->counters().drop(VerbsPortDrop::kTxUnknownPeer), 1u);
  EXPECT_EQ(a_->counters().drop(VerbsPortDrop::kTxOverMtu), 1u);
  EXPECT_EQ(a_->counters().drop(VerbsPortDrop::kTxPortStopped), 1u);
  EXPECT_EQ(a_->counters().tx_frames, 0u);
}

}  // namespace
}  // namespace nicsim::hw::verbs
