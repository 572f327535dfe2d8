// SPDX-License-Identifier: Apache-2.0
// The MPI workloads run and report what they measured.
#include <gtest/gtest.h>

#include <string>

#include "sim/config/builtin_scenarios.h"
#include "sim/config/scenario.h"
#include "sim/run/run_scenario.h"
#include "sim/workloads/mpi_workloads.h"

namespace nicsim::sim {
namespace {

std::unique_ptr<MpiJob> Job(uint32_t ranks) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = ranks;
  c.cluster.nodes = std::min<uint32_t>(ranks, 4);
  c.cluster.microcode.rcxts = 2048;
  return std::move(*MpiJob::Create(c));
}

TEST(MpiWorkloadsTest, PingPongReportsLatencyAndBandwidthPerSize) {
  auto job = Job(2);
  MpiPingPongConfig c;
  c.sizes = {0, 1024, 1 << 20};
  c.iterations = 5;
  c.bandwidth_messages = 8;
  c.window = 4;
  Result<WorkloadResult> r = RunMpiPingPong(*job, c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& points = r->results["points"];
  ASSERT_EQ(points.size(), 3u);
  EXPECT_GT(points[0]["latency_us"].get<double>(), 0.5);
  // Larger messages take longer and move more bytes per second.
  EXPECT_GT(points[2]["latency_us"].get<double>(), points[0]["latency_us"].get<double>());
  EXPECT_GT(points[2]["oneway_mbps"].get<double>(), points[1]["oneway_mbps"].get<double>());
  EXPECT_GT(points[2]["bidirectional_mbps"].get<double>(), points[2]["oneway_mbps"].get<double>());
}

TEST(MpiWorkloadsTest, PingPongChecksTheBytesOfEveryMessageReceived) {
  auto job = Job(2);
  // Rank 1 gets every 100-byte message with its first byte flipped after the transport
  // delivered it intact: only the workload's own check can notice.
  ulp::Transport::DeliverFn mpi = job->transport(1).OnDeliver(nullptr);
  job->transport(1).OnDeliver(
      [mpi](uint32_t src, uint32_t context, uint32_t tag, std::vector<uint8_t> data) {
        if (data.size() == 100) data[0] ^= 1;
        mpi(src, context, tag, std::move(data));
      });
  MpiPingPongConfig c;
  c.sizes = {100};
  c.iterations = 5;
  c.bandwidth_messages = 8;
  c.window = 4;
  Result<WorkloadResult> r = RunMpiPingPong(*job, c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Rank 1 receives 5 + 3 warm-up round-trip messages, 8 one way and 8 both ways; rank 0's
  // 8 + 8 arrive intact.
  EXPECT_EQ(r->messages_sent, 40u);
  EXPECT_EQ(r->messages_damaged, 24u);
  EXPECT_EQ(r->messages_delivered, 16u);
  EXPECT_FALSE(r->passed());
}

TEST(MpiWorkloadsTest, CollectiveTimingsForEachCollective) {
  auto job = Job(4);
  MpiCollectivesConfig c;
  c.sizes = {8, 4096};
  c.iterations = 3;
  Result<WorkloadResult> r = RunMpiCollectives(*job, c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const auto& p : r->results["points"]) {
    for (const char* k :
         {"barrier_us", "bcast_us", "allreduce_us", "allgather_us", "alltoall_us"}) {
      EXPECT_GT(p[k].get<double>(), 0.0) << k;
    }
  }
}

TEST(MpiWorkloadsTest, RandomAlltoallChecksEveryByte) {
  auto job = Job(5);
  MpiAlltoallConfig c;
  c.messages_per_rank = 40;
  c.max_size = 300'000;
  Result<WorkloadResult> r = RunMpiRandomAlltoall(*job, c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_delivered, 200u);
  EXPECT_GT(r->bytes_delivered, 0u);
}

TEST(MpiWorkloadsTest, CompleteExchangeInRoundsSendsLaterRoundsOverEagerRings) {
  MpiJobConfig jc;
  jc.cluster.backend = BackendKind::kFunc;
  jc.ranks = 6;
  jc.cluster.nodes = 6;
  jc.cluster.microcode.rcxts = 2048;
  jc.transport.eager_rdma = true;
  jc.transport.eager_small_slot = 2048;
  jc.transport.eager_large_slot = 64 * 1024 + 32;
  jc.transport.eager_large_slots = 1;
  auto job = std::move(*MpiJob::Create(jc));
  MpiAlltoallConfig c;
  c.large_pairs = 0.3;
  c.max_size = 64 * 1024;
  c.small_size = 256;
  c.rounds = 3;
  c.window = 2;  // a pairwise schedule: 2 of the 5 steps in flight
  Result<WorkloadResult> r = RunMpiRandomAlltoall(*job, c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_delivered, 6u * 5u * 3u);
  EXPECT_EQ(r->results["messages"].get<uint64_t>(), 90u);
  // The first round makes the connections; the two after it go by eager RDMA.
  EXPECT_GE(r->results["transport"]["eager_rdma_messages"].get<uint64_t>(), 6u * 5u * 2u);
}

TEST(MpiWorkloadsTest, AlwaysLargeRingsToEveryPeerFitTheJobsTceTable) {
  // Each rank holds a 15 MiB ring (240 TCEs of 64 KiB) from each of its 11 peers and a staging
  // copy of one to each: 5,280 TCEs, more than the 4,096 of a default 64 KiB table. The job's
  // configuration sizes the table for the rings, so none is refused.
  Result<Scenario> scenario = ParseScenario(*BuiltinScenarioText("default"), "builtin:default");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  for (const std::string s :
       {"workload=mpi_alltoall", "nodes=12", "mpi.ranks=12", "ulp.eager_rdma=true",
        "ulp.eager_small_slot=15MiB", "ulp.eager_slots=1", "ulp.eager_large_slot=15MiB",
        "ulp.eager_large_slots=1", "mpi.alltoall_max_size=64KiB"}) {
    ASSERT_TRUE(ApplySetFlag(*scenario, s).ok()) << s;
  }
  Result<MpiJobConfig> config = MpiJobConfigFromParams(scenario->params);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->cluster.tce.entries_64k, 4096u + 4u * 11u * 240u);
  auto job = std::move(*MpiJob::Create(*config));
  MpiAlltoallConfig c;
  c.large_pairs = 0.1;
  c.max_size = 64 * 1024;
  c.small_size = 256;
  c.rounds = 2;
  Result<WorkloadResult> r = RunMpiRandomAlltoall(*job, c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  EXPECT_EQ(r->messages_delivered, 12u * 11u * 2u);
  const auto& transport = r->results["transport"];
  EXPECT_EQ(transport["eager_refusals"].get<uint64_t>(), 0u);
  EXPECT_EQ(transport["eager_ring_bytes_peak"].get<uint64_t>(), 12u * 2u * 11u * (15u << 20));
  EXPECT_GE(transport["eager_rdma_messages"].get<uint64_t>(), 12u * 11u);
}

}  // namespace
}  // namespace nicsim::sim
