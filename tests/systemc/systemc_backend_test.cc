// SPDX-License-Identifier: Apache-2.0
// The SystemC backend: exact single-packet latency on an idle system, cycle costs counted
// only on the critical path, link-rate streaming, multi-path delivery, and the same messages
// delivered as on the functional model. SystemC elaborates once per process: ctest runs each
// test in its own process; run by hand with --gtest_filter to pick one.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string_view>
#include <tuple>

#include "abi/limits.h"
#include "abi/rdma.h"
#include "base/crc32.h"
#include "hw/systemc/kernel.h"
#include "sim/cluster/cluster.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

#define SKIP_IF_KERNEL_USED()                                                   \
  if (hw::systemc::Kernel::Claimed()) {                                         \
    GTEST_SKIP() << "SystemC elaborates once per process; run this test alone"; \
  }

ClusterConfig SystemcConfig() {
  ClusterConfig c;
  c.backend = BackendKind::kSystemc;
  return c;
}

/** Zero microcode and SRAM costs: only the bus, link and fabric take time. */
ClusterConfig FreeMicrocode() {
  ClusterConfig c = SystemcConfig();
  c.systemc.rx_cycles.fill(0);
  c.systemc.tx_cycles.fill(0);
  c.systemc.sram_word_ps = 0;
  return c;
}

/** Time from posting one packet of `len` bytes until the receiving process has it. */
uint64_t OneWayPs(const ClusterConfig& config, uint32_t len) {
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(config);
  EXPECT_TRUE(made.ok()) << made.status().message();
  Cluster& cluster = **made;
  cluster.events().RunWhile([] { return true; });  // settle the open-window commands
  const uint64_t t0 = cluster.events().now_ps();
  uint64_t got = 0;
  cluster.endpoint(1, 0).OnReceive([&](const hal::RecvPacket& p) {
    EXPECT_EQ(p.header.len_bytes, len);
    got = cluster.events().now_ps();
  });
  std::vector<uint8_t> buf(len, 0x42);
  cluster.endpoint(0, 0).Send(cluster.endpoint(1, 0).addr(), buf.data(), len, 1);
  cluster.events().RunWhile([] { return true; });
  EXPECT_NE(got, 0u);
  return got - t0;
}

/** The sum of the configured components for one packet on an idle system. */
uint64_t ExpectedOneWayPs(const ClusterConfig& c, uint32_t len) {
  const auto dma = [&](uint64_t bytes) {
    return c.systemc.bus_latency_ps + static_cast<uint64_t>(bytes * c.systemc.bus_ps_per_byte);
  };
  const auto wire = [&](uint64_t bytes) {
    return static_cast<uint64_t>(bytes * c.timing.link_ps_per_byte);
  };
  const uint64_t frame = sizeof(abi::WireHeader) + len;
  uint64_t t = c.timing.mmio_latency_ps;                  // StartTransmit reaches the microcode
  t += dma(abi::kSlotFetchBytes);                         // fetch the slot header (and a request)
  t += dma(len);                                          // fetch the payload into a DTB
  t += wire(frame);                                       // serialise onto the adapter's link
  t += c.fabric.link_delay_ps + c.fabric.hop_latency_ps;  // into the switch and across
  t += c.fabric.link_delay_ps;                            // header reaches the receiving adapter
  t += wire(len);                                         // the payload streams in behind it
  const uint64_t in_frame = abi::kRecvHeaderBytes + len;
  if (in_frame > c.line_bytes) t += dma(in_frame - c.line_bytes);  // body first
  t += dma(std::min<uint64_t>(in_frame, c.line_bytes));            // then the first line
  t += c.poll_latency_ps;                                          // the spinning CPU notices
  return t;
}

TEST(SystemcTimingTest, SinglePacketLatencyIsTheSumOfItsParts) {
  SKIP_IF_KERNEL_USED();
  const ClusterConfig c = FreeMicrocode();
  EXPECT_EQ(OneWayPs(c, 1000), ExpectedOneWayPs(c, 1000));
}

TEST(SystemcTimingTest, SmallPacketLatencyIsTheSumOfItsParts) {
  SKIP_IF_KERNEL_USED();
  const ClusterConfig c = FreeMicrocode();
  EXPECT_EQ(OneWayPs(c, 40), ExpectedOneWayPs(c, 40));
}

TEST(SystemcTimingTest, CyclesOnTheCriticalPathAddExactly) {
  SKIP_IF_KERNEL_USED();
  ClusterConfig c = FreeMicrocode();
  c.systemc.rx_cycles[4] = 100;  // signal: issues the first-line DMA, on the critical path
  EXPECT_EQ(OneWayPs(c, 1000), ExpectedOneWayPs(c, 1000) + 100 * c.systemc.cycle_ps);
}

TEST(SystemcTimingTest, CyclesHiddenBehindThePayloadCostNothing) {
  SKIP_IF_KERNEL_USED();
  ClusterConfig c = FreeMicrocode();
  // Admission runs while the 1000-byte payload is still arriving (500 ns at 2 GB/s).
  c.systemc.rx_cycles[2] = 50;
  ASSERT_LT(50 * c.systemc.cycle_ps, static_cast<uint64_t>(1000 * c.timing.link_ps_per_byte));
  EXPECT_EQ(OneWayPs(c, 1000), ExpectedOneWayPs(c, 1000));
}

/** A backend counter of adapter `a` from ExtraCounters (absent: a failure, and 0). */
uint64_t Extra(Cluster& cluster, uint32_t a, std::string_view name) {
  for (const auto& [key, value] : cluster.adapter(a).ExtraCounters()) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

/** Streams `packets` packets from adapter 0 to adapter 1; the cluster stays for inspection. */
std::unique_ptr<Cluster> Stream(const ClusterConfig& config, uint64_t packets) {
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(config);
  EXPECT_TRUE(made.ok()) << made.status().message();
  StreamConfig s;
  s.packets = packets;
  s.size = 700;
  Result<WorkloadResult> r = RunStream(**made, s);
  EXPECT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_delivered, packets);
  return std::move(*made);
}

TEST(SystemcDecouplingTest, WithAQuantumIdleUnitsRunCallsOnTheCallersStack) {
  SKIP_IF_KERNEL_USED();
  ClusterConfig c = SystemcConfig();
  ASSERT_GT(c.systemc.quantum_ps, 0u);
  std::unique_ptr<Cluster> cluster = Stream(c, 2000);
  for (uint32_t a = 0; a < 2; ++a) {
    const uint64_t steps = Extra(*cluster, a, "processor_steps");
    EXPECT_GT(steps, 2000u) << "adapter " << a;
    const uint64_t direct = Extra(*cluster, a, "processor_direct_steps");
    if (a == 1) {
      // The receiver's processor is never busy when a call comes: every call runs directly.
      EXPECT_EQ(direct, steps);
    } else {
      // The sender's StartTransmits that find every transmit task busy also run the work
      // manager task, and now and then the next call comes while that runs and queues.
      EXPECT_GE(direct * 100, steps * 99) << direct << " of " << steps;
    }
    EXPECT_EQ(Extra(*cluster, a, "dma_direct_transfers"), Extra(*cluster, a, "dma_transactions"));
  }
}

TEST(SystemcDecouplingTest, LockStepSendsEveryCallThroughTheThreadsWithTheSameTimes) {
  SKIP_IF_KERNEL_USED();
  ClusterConfig c = FreeMicrocode();
  c.systemc.quantum_ps = 0;
  // The exact idle latency holds in lock-step too: decoupling changes no simulated time.
  EXPECT_EQ(OneWayPs(c, 1000), ExpectedOneWayPs(c, 1000));
}

TEST(SystemcDecouplingTest, LockStepStreamRunsNoCallDirectly) {
  SKIP_IF_KERNEL_USED();
  ClusterConfig c = SystemcConfig();
  c.systemc.quantum_ps = 0;
  std::unique_ptr<Cluster> cluster = Stream(c, 500);
  for (uint32_t a = 0; a < 2; ++a) {
    EXPECT_GT(Extra(*cluster, a, "processor_steps"), 500u);
    EXPECT_EQ(Extra(*cluster, a, "processor_direct_steps"), 0u);
    EXPECT_GT(Extra(*cluster, a, "processor_syncs"), 0u);
    EXPECT_EQ(Extra(*cluster, a, "dma_direct_transfers"), 0u);
  }
}

TEST(SystemcBandwidthTest, StreamReachesTheLinkRateLessHeaders) {
  SKIP_IF_KERNEL_USED();
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(SystemcConfig());
  ASSERT_TRUE(made.ok()) << made.status().message();
  StreamConfig s;
  s.packets = 20000;
  s.size = abi::MaxPacketPayload(128);
  Result<WorkloadResult> r = RunStream(**made, s);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  const double link_bytes_per_s = 1e12 / (*made)->config().timing.link_ps_per_byte;
  const double best = link_bytes_per_s * s.size / (s.size + sizeof(abi::WireHeader)) / 1e6;
  EXPECT_GE(r->results["bandwidth_mbps"].get<double>(), 0.95 * best);
}

TEST(SystemcFabricTest, RoundRobinOverFourPathsDeliversEveryByte) {
  SKIP_IF_KERNEL_USED();
  ClusterConfig c = SystemcConfig();
  c.nodes = 4;
  c.fabric.paths = 4;
  c.fabric.routing = RoutingPolicy::kRoundRobin;
  c.fabric.path_skew_ps = 700'000;
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(c);
  ASSERT_TRUE(made.ok()) << made.status().message();
  ExchangeConfig ex;
  ex.messages = 4000;
  Result<WorkloadResult> r = RunRandomExchange(**made, ex);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const std::string& e : r->errors) ADD_FAILURE() << e;
  EXPECT_EQ(r->messages_delivered, 4000u);
}

using Outcomes = std::map<std::pair<size_t, uint32_t>, std::tuple<size_t, uint32_t, uint32_t>>;

Outcomes Exchange(BackendKind backend, uint64_t* sim_ps) {
  ClusterConfig c;
  c.backend = backend;
  c.nodes = 3;
  c.windows_per_adapter = 2;
  c.seed = 11;
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(c);
  EXPECT_TRUE(made.ok()) << made.status().message();
  Outcomes out;
  ExchangeConfig ex;
  ex.messages = 3000;
  ex.on_delivered = [&](size_t src, uint32_t seq, size_t dest, const uint8_t* data, uint32_t len) {
    out[{src, seq}] = {dest, len, Crc32(0, data, len)};
  };
  Result<WorkloadResult> r = RunRandomExchange(**made, ex);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r->error_count, 0u);
  *sim_ps = (*made)->events().now_ps();
  return out;
}

TEST(SystemcEquivalenceTest, SameMessagesAndBytesAsTheFunctionalModel) {
  SKIP_IF_KERNEL_USED();
  uint64_t func_ps = 0, systemc_ps = 0;
  const Outcomes func = Exchange(BackendKind::kFunc, &func_ps);
  const Outcomes systemc = Exchange(BackendKind::kSystemc, &systemc_ps);
  EXPECT_EQ(func.size(), 3000u);
  EXPECT_EQ(func, systemc);
  EXPECT_NE(func_ps, systemc_ps);  // only the times differ
}

}  // namespace
}  // namespace nicsim::sim
