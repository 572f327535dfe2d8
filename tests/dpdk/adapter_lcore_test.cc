// SPDX-License-Identifier: Apache-2.0
// The adapter's poll loop on an EAL worker lcore of its own, the host on the main lcore, MMIO
// through the lock-free ring: a checked exchange with an adapter on one thread, over net_ring.
#include <gtest/gtest.h>

#include <rte_lcore.h>
#include <rte_mempool.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "hw/dpdk/dpdk_port.h"
#include "hw/dpdk/eal.h"
#include "hw/dpdk/lcore_launcher.h"
#include "hw/dpdk/ring_link.h"
#include "realport/port/node.h"
#include "tests/dpdk/checked_exchange.h"
#include "tests/support/test_seed.h"

namespace nicsim::hw::dpdk {
namespace {

using sim::PolledPort;
using sim::WireNode;

using nicsim::testing::TestSeed;

/** As kUnprivilegedEalArgs, with worker lcore 1 for the adapter's loop. */
constexpr const char* kTwoLcoreEal =
    "--no-huge -m 256 --no-pci --no-shconf -l 0-1 --no-telemetry --log-level=lib.eal:warning";
constexpr unsigned kAdapterLcore = 1;

/**
 * Adapter 0 on port a runs its loop on lcore 1 (its host spins on the main lcore); adapter 1
 * on port b runs everything on the main lcore. Each has its own event queue.
 */
class AdapterLcoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Status eal = InitEal(kTwoLcoreEal);
    if (!eal.ok()) GTEST_SKIP() << "the EAL cannot start with two lcores here: " << eal.message();
    Result<std::unique_ptr<RingLink>> link = RingLink::Create();
    ASSERT_TRUE(link.ok()) << link.status().message();
    link_ = std::move(*link);
    sim::WireNodeConfig split;
    split.adapter_core = true;
    node0_ = std::make_unique<WireNode>(events0_, 0, link_->a(), split);
    node1_ = std::make_unique<WireNode>(events1_, 1, link_->b());
    ASSERT_TRUE(node0_->Open().ok());
    ASSERT_TRUE(node1_->Open().ok());
    ports0_ = {{&link_->a(), &node0_->adapter()}};
    ports1_ = {{&link_->b(), &node1_->adapter()}};
    sim::Settle(events0_, ports0_);
    sim::Settle(events1_, ports1_);
    pool_start_ = {rte_mempool_avail_count(link_->a().pool()),
                   rte_mempool_avail_count(link_->b().pool())};
  }
  void TearDown() override {
    node0_.reset();
    node1_.reset();
    link_.reset();
  }

  kernel::EventQueue events0_;
  kernel::EventQueue events1_;
  std::unique_ptr<RingLink> link_;
  std::unique_ptr<WireNode> node0_;
  std::unique_ptr<WireNode> node1_;
  std::vector<PolledPort> ports0_;
  std::vector<PolledPort> ports1_;
  std::array<unsigned, 2> pool_start_{};
};

TEST_F(AdapterLcoreTest, ExchangesFiftyThousandMessagesExactlyOnce) {
  constexpr uint64_t kMessages = 50'000;
  const uint64_t seed = TestSeed();
  LcoreLauncher lcore(kAdapterLcore);
  // Half a receive FIFO per direction in flight: the adapters run at their own speeds now.
  const uint64_t window = node0_->config().recv_frames / 2;
  nicsim::testing::CheckedExchange exchange(node0_->endpoint(), node1_->endpoint(), kMessages, seed,
                                            window);
  ASSERT_TRUE(node0_->StartAdapterLoop(ports0_, lcore).ok());
  exchange.Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!exchange.Finished() && std::chrono::steady_clock::now() < deadline) {
    node0_->Turn(ports0_);
    node1_->Turn(ports1_);
  }
  node0_->StopAdapterLoop();
  // Both adapters on this thread again: let whatever is in flight land (a late duplicate too).
  sim::Settle(events0_, ports0_);
  sim::Settle(events1_, ports1_);
  const sim::WorkloadResult& out = exchange.result();
  ASSERT_TRUE(exchange.Finished()) << "timed out: " << out.messages_delivered << " of " << kMessages
                                   << " delivered (seed " << seed << ")";
  for (const std::string& e : out.errors) ADD_FAILURE() << e << " (seed " << seed << ")";
  EXPECT_EQ(out.error_count, 0u);
  EXPECT_EQ(exchange.Lost(), 0u);
  EXPECT_EQ(out.messages_delivered, kMessages);
  EXPECT_EQ(link_->a().counters().tx_frames, exchange.quota());
  EXPECT_EQ(link_->b().counters().rx_frames, exchange.quota());
  EXPECT_EQ(link_->a().counters().total_drops() + link_->b().counters().total_drops(), 0u);
  // The host reached its adapter only through the ring: a StartTransmit per turn that sent
  // (at most one per send), a ReturnRecvFrames per return batch, nothing else.
  const hw::func::RingedDeviceAccess& ring = node0_->mmio_ring();
  EXPECT_GT(ring.commands_sent(), exchange.quota() / 16);
  EXPECT_LE(ring.commands_sent(), exchange.quota() + exchange.quota() / 8 + 1);
  EXPECT_EQ(ring.interrupts_while_ringed(), 0u);
  EXPECT_FALSE(ring.ringed());
  EXPECT_EQ(rte_mempool_avail_count(link_->a().pool()), pool_start_[0]);
  EXPECT_EQ(rte_mempool_avail_count(link_->b().pool()), pool_start_[1]);
}

TEST_F(AdapterLcoreTest, RefusesTheMainLcoreAndOneOutsideTheCoreList) {
  LcoreLauncher main_lcore(rte_get_main_lcore());
  Status s = node0_->StartAdapterLoop(ports0_, main_lcore);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("main lcore"), std::string::npos) << s.message();
  LcoreLauncher absent(5);
  s = node0_->StartAdapterLoop(ports0_, absent);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not in the EAL's core list"), std::string::npos) << s.message();
  // A refused start leaves the node on direct MMIO.
  EXPECT_FALSE(node0_->mmio_ring().ringed());
}

TEST_F(AdapterLcoreTest, ANodeBuiltForOneThreadRefusesTheLoop) {
  LcoreLauncher lcore(kAdapterLcore);
  const Status s = node1_->StartAdapterLoop(ports1_, lcore);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("caller's thread"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace nicsim::hw::dpdk
