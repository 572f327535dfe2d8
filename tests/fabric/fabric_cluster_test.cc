// SPDX-License-Identifier: Apache-2.0
// The fabric end to end through a cluster: reordered streams over skewed paths, random
// exchanges over random paths, a path outage mid-stream, the fabric's stats, and MPI over
// fault rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "sim/cluster/cluster.h"
#include "sim/run/run_scenario.h"
#include "sim/workloads/workload.h"
#include "tests/fabric/fabric_bench.h"
#include "tests/support/backends.h"

namespace nicsim::sim {
namespace {

// ---------------------------------------------------------------------------------------------
// End to end through a cluster

std::unique_ptr<Cluster> MakeCluster(const ClusterConfig& config) {
  Result<std::unique_ptr<Cluster>> c = Cluster::Create(config);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(*c) : nullptr;
}

ClusterConfig SkewedFourPathConfig(RoutingPolicy policy) {
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.fabric.paths = 4;
  config.fabric.routing = policy;
  config.fabric.path_skew_ps = 2000 * kNs;
  return config;
}

TEST(FabricClusterTest, StreamOverFourSkewedPathsChecksEveryByte) {
  auto cluster = MakeCluster(SkewedFourPathConfig(RoutingPolicy::kRoundRobin));
  ASSERT_NE(cluster, nullptr);
  StreamConfig s;
  s.packets = 4000;
  s.size = 1024;
  Result<WorkloadResult> r = RunStream(*cluster, s);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const std::string& e : r->errors) ADD_FAILURE() << e;
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_delivered, 4000u);
  EXPECT_TRUE(cluster->fabric().counters().drops.empty());
  for (uint64_t n : cluster->fabric().counters().frames_per_path) EXPECT_EQ(n, 1000u);
}

TEST(FabricClusterTest, EndpointSeesAReorderedStreamAndEveryPacketOnce) {
  auto cluster = MakeCluster(SkewedFourPathConfig(RoutingPolicy::kRoundRobin));
  ASSERT_NE(cluster, nullptr);
  Result<std::pair<WindowProcess*, WindowProcess*>> pair = PickPair(*cluster);
  ASSERT_TRUE(pair.ok());
  WindowProcess& a = *pair->first;
  WindowProcess& b = *pair->second;
  constexpr uint32_t kPackets = 1000;
  constexpr uint32_t kSize = 512;
  std::vector<uint8_t> buf(kSize);
  uint32_t sent = 0;
  std::vector<uint32_t> order;
  uint64_t damaged = 0;
  auto pump = [&] {
    while (sent < kPackets && a.backlog() == 0) {
      FillPattern(buf.data(), kSize, sent);
      a.Send(b.addr(), buf.data(), kSize, sent);
      ++sent;
    }
  };
  a.OnSendable(pump);
  b.OnReceive([&](const hal::RecvPacket& p) {
    damaged += !CheckPattern(p.payload, p.header.len_bytes, p.header.ulp_word);
    order.push_back(p.header.ulp_word);
  });
  pump();
  Status s = RunUntil(
      *cluster, [&] { return order.size() >= kPackets; }, "reordered stream");
  a.OnSendable(nullptr);
  b.OnReceive(nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(damaged, 0u);
  size_t inversions = 0;
  for (size_t i = 1; i < order.size(); ++i) inversions += order[i] < order[i - 1];
  EXPECT_GT(inversions, 0u);
  std::vector<uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t i = 0; i < kPackets; ++i) ASSERT_EQ(sorted[i], i);
}

TEST(FabricClusterTest, RandomExchangeOverRandomPathsDeliversEveryMessageOnce) {
  ClusterConfig config = SkewedFourPathConfig(RoutingPolicy::kRandom);
  config.nodes = 4;
  config.windows_per_adapter = 2;
  auto cluster = MakeCluster(config);
  ASSERT_NE(cluster, nullptr);
  ExchangeConfig ex;
  ex.messages = 5000;
  Result<WorkloadResult> r = RunRandomExchange(*cluster, ex);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const std::string& e : r->errors) ADD_FAILURE() << e;
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_delivered, 5000u);
  EXPECT_TRUE(cluster->fabric().counters().drops.empty());
}

TEST(FabricClusterTest, StreamSurvivesAPathOutageWithRoundRobin) {
  ClusterConfig config = SkewedFourPathConfig(RoutingPolicy::kRoundRobin);
  config.fabric.outages = {{1, 200'000 * kNs, 600'000 * kNs}};
  auto cluster = MakeCluster(config);
  ASSERT_NE(cluster, nullptr);
  StreamConfig s;
  s.packets = 3000;
  s.size = 1024;
  Result<WorkloadResult> r = RunStream(*cluster, s);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_delivered, 3000u);
  EXPECT_TRUE(cluster->fabric().counters().drops.empty());
  // The run outlasts the outage, and plane 1 carried less than the others.
  EXPECT_GT(cluster->events().now_ps(), 600'000 * kNs);
  const std::vector<uint64_t>& per_path = cluster->fabric().counters().frames_per_path;
  EXPECT_LT(per_path[1], per_path[0]);
  EXPECT_GT(per_path[1], 0u);
}

TEST(FabricClusterTest, StatsJsonReportsPerPathFramesAndFabricDrops) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  Result<Scenario> scenario = ParseScenario(
      "workload = \"stream\"\nstream.packets = 400\n[fabric]\npaths = 4\n"
      "routing = \"round_robin\"\npath_skew = \"1us\"\n",
      "t.toml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  Result<RunOutcome> run = RunScenario(*scenario);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const nlohmann::json& stats = run->stats;
  EXPECT_EQ(stats["fabric"]["frames_per_path"], nlohmann::json::array({100, 100, 100, 100}));
  EXPECT_EQ(stats["drops"]["path_down"], 0);
  EXPECT_EQ(stats["drops"]["port_buffer_full"], 0);
  EXPECT_EQ(stats["params"]["fabric.routing"], "round_robin");
  EXPECT_EQ(stats["params"]["fabric.path_down"], "[-1]");
}

TEST(FabricClusterTest, MpiCompletesOverALossyPathAndACorruptingLink) {
  // Fault rules on one path and on one link of adapter 1: the transport repairs every loss,
  // and every corrupted frame is caught by the receiving adapter's CRC check.
  Result<Scenario> scenario = ParseScenario(
      "workload = \"mpi_pingpong\"\nnodes = 2\n[mpi]\nsizes = [8, 65536, 262144]\n"
      "iterations = 20\n[fabric]\nfaults = \"path 1: loss=0.2; link 1/2: corrupt=0.2\"\n",
      "t.toml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  Result<RunOutcome> run = RunScenario(*scenario);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const nlohmann::json& stats = run->stats;
  EXPECT_EQ(stats["errors"], 0);
  EXPECT_EQ(stats["messages_delivered"], stats["messages_sent"]);
  const uint64_t corrupted = stats["fabric"]["frames_corrupted"];
  EXPECT_GT(corrupted, 0u);
  EXPECT_EQ(stats["drops"]["bad_crc"], corrupted);
  EXPECT_GT(stats["drops"]["path_loss"].get<uint64_t>(), 0u);
  EXPECT_EQ(stats["drops"]["link_loss"], 0);
  EXPECT_EQ(stats["drops"]["fabric_loss"], 0);
  // Each source's round robin gives every plane its turn (counts differ by at most one per
  // source); plane 1 routed only the frames it did not lose.
  const std::vector<uint64_t> per_path = stats["fabric"]["frames_per_path"];
  const uint64_t plane1_turns = per_path[1] + stats["drops"]["path_loss"].get<uint64_t>();
  EXPECT_LE(std::max(plane1_turns, per_path[0]) - std::min(plane1_turns, per_path[0]), 2u);
  EXPECT_LT(per_path[1], per_path[0]);
}

}  // namespace
}  // namespace nicsim::sim
