// SPDX-License-Identifier: Apache-2.0
// dlm_blocks end to end: a block service whose blocks move by third-party RDMA. A clean run
// moves each block by exactly one read that completes at its manager and at its requester; a
// lossy one still delivers each block exactly once, by redrives; a seed gives the same run
// every time. The point-to-point transfer it is compared with (fetch_order) is held to the
// same: one read per block, every block once under loss.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/cluster/cluster.h"
#include "sim/workloads/dlm_blocks.h"
#include "tests/support/link_faults.h"
#include "ulp/dlm/block_service.h"

namespace nicsim::sim {
namespace {

struct ServiceRun {
  std::unique_ptr<Cluster> cluster;
  WorkloadResult result;
};

ServiceRun RunService(ClusterConfig config, const DlmBlocksConfig& dlm) {
  config.rdma_host_bytes = DlmBlocksHostBytes(dlm, config.nodes);
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
  EXPECT_TRUE(cluster.ok()) << cluster.status().message();
  ServiceRun run{std::move(*cluster), {}};
  Result<WorkloadResult> r = RunDlmBlocks(*run.cluster, dlm);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) run.result = std::move(*r);
  for (const std::string& e : run.result.errors) ADD_FAILURE() << e;
  return run;
}

ServiceRun RunService(uint32_t nodes, const DlmBlocksConfig& dlm, double loss = 0,
                      uint64_t seed = 1) {
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = nodes;
  config.seed = seed;
  config.fabric.loss = loss;
  return RunService(config, dlm);
}

uint64_t Counter(Cluster& c, uint32_t adapter, uint64_t fw::Counters::*member) {
  return c.adapter(adapter).firmware_counters().*member;
}

TEST(ThirdPartyWorkloadTest, RolesAreThreeDifferentNodes) {
  for (uint32_t nodes : {3u, 4u, 7u}) {
    for (uint32_t b = 0; b < 100; ++b) {
      EXPECT_NE(ulp::BlockManager(b, nodes), ulp::BlockOwner(b, nodes)) << b;
      EXPECT_LT(ulp::BlockOwner(b, nodes), nodes);
    }
  }
}

/**
 * One block on three nodes (node 0 manages it, node 1 owns it, node 2 asks for it), asked
 * for ten times by `transfer`; checks what both transfers share: each block once, one
 * request and one "done" each, every read served by the owner's adapter and landed by the
 * requester's.
 */
ServiceRun RunOneBlockTenTimes(ulp::BlockTransfer transfer) {
  DlmBlocksConfig dlm;
  dlm.transfer = transfer;
  dlm.blocks = 1;
  dlm.block_size = 100'000;
  dlm.requests = 10;
  ServiceRun run = RunService(3, dlm);
  const WorkloadResult& r = run.result;
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.messages_delivered, 10u);
  EXPECT_EQ(r.bytes_delivered, 10u * 100'000);
  EXPECT_EQ(r.results["request_packets"], 10u);
  EXPECT_EQ(r.results["dones_sent"], 10u);
  EXPECT_EQ(r.results["bytes_moved"], 10u * 100'000);
  Cluster& c = *run.cluster;
  EXPECT_EQ(Counter(c, 1, &fw::Counters::rdma_read_requests_served), 10u);
  EXPECT_EQ(Counter(c, 0, &fw::Counters::rdma_read_requests_served), 0u);
  EXPECT_EQ(Counter(c, 2, &fw::Counters::rdma_transfers_landed), 10u);
  return run;
}

TEST(ThirdPartyWorkloadTest, EachRequestIsOneReadCompletingAtManagerAndRequester) {
  ServiceRun run = RunOneBlockTenTimes(ulp::BlockTransfer::kThirdParty);
  const nlohmann::json& w = run.result.results;
  EXPECT_EQ(w["transfer"], "third_party");
  EXPECT_EQ(w["third_party_reads"], 10u);
  EXPECT_EQ(w["redrives"], 0u);
  EXPECT_EQ(w["completions_at_managers"], 10u);
  EXPECT_EQ(w["fetch_orders_saved"], 10u);
  EXPECT_EQ(w["orders_sent"], 0u);
  EXPECT_EQ(w["reports_sent"], 0u);
  // No software on the owner saw anything. The requester's adapter sent each completion to
  // the manager and wrote one for its own window: the requester had each block before the
  // manager's "done".
  Cluster& c = *run.cluster;
  EXPECT_EQ(Counter(c, 2, &fw::Counters::rdma_completions_sent), 10u);
  EXPECT_EQ(Counter(c, 0, &fw::Counters::rdma_completions_written), 10u);
  EXPECT_EQ(Counter(c, 1, &fw::Counters::rdma_completions_written), 0u);
  EXPECT_EQ(Counter(c, 2, &fw::Counters::rdma_completions_written), 10u);
  EXPECT_EQ(w["landed_before_done"], 10u);
  EXPECT_EQ(w["late_landings"], 0u);
  // Request, third-party read request, completion to the manager, "done"; the requester's
  // software is woken by its own completion record and by "done".
  EXPECT_EQ(w["control_packets"], 40u);
  EXPECT_EQ(w["software_wakeups"], 40u);
}

TEST(ThirdPartyWorkloadTest, FetchOrderIsOneReadByTheRequesterAndOneMoreHandshake) {
  ServiceRun run = RunOneBlockTenTimes(ulp::BlockTransfer::kFetchOrder);
  const nlohmann::json& w = run.result.results;
  EXPECT_EQ(w["transfer"], "fetch_order");
  EXPECT_EQ(w["orders_sent"], 10u);
  EXPECT_EQ(w["fetch_reads"], 10u);
  EXPECT_EQ(w["fetch_redrives"], 0u);
  EXPECT_EQ(w["reports_sent"], 10u);
  EXPECT_EQ(w["third_party_reads"], 0u);
  EXPECT_EQ(w["completions_at_managers"], 0u);
  EXPECT_EQ(w["fetch_orders_saved"], 0u);
  // Request, order, read request, report, "done"; the read completes where it was posted.
  EXPECT_EQ(w["control_packets"], 50u);
  EXPECT_EQ(w["software_wakeups"], 50u);
  Cluster& c = *run.cluster;
  EXPECT_EQ(Counter(c, 2, &fw::Counters::rdma_completions_written), 10u);
  EXPECT_EQ(Counter(c, 0, &fw::Counters::rdma_completions_written), 0u);
  EXPECT_EQ(Counter(c, 1, &fw::Counters::rdma_completions_written), 0u);
}

TEST(ThirdPartyWorkloadTest, CleanRunMovesEveryBlockByExactlyOneRead) {
  DlmBlocksConfig dlm;
  dlm.blocks = 40;
  dlm.block_size = 16 << 10;
  dlm.requests = 300;
  ServiceRun run = RunService(5, dlm);
  const WorkloadResult& r = run.result;
  ASSERT_TRUE(r.passed());
  EXPECT_EQ(r.messages_sent, 300u);
  EXPECT_EQ(r.messages_delivered, 300u);
  EXPECT_EQ(r.messages_duplicated, 0u);
  const nlohmann::json& w = r.results;
  EXPECT_EQ(w["requests"], 300u);
  EXPECT_EQ(w["request_packets"], 300u);
  EXPECT_EQ(w["third_party_reads"], 300u);
  EXPECT_EQ(w["redrives"], 0u);
  EXPECT_EQ(w["completions_at_managers"], 300u);
  EXPECT_EQ(w["stray_completions"], 0u);
  EXPECT_EQ(w["bytes_moved"], 300u * (16 << 10));
  uint64_t served = 0, written = 0;
  for (uint32_t a = 0; a < run.cluster->adapter_count(); ++a) {
    served += Counter(*run.cluster, a, &fw::Counters::rdma_read_requests_served);
    written += Counter(*run.cluster, a, &fw::Counters::rdma_completions_written);
  }
  EXPECT_EQ(served, 300u);
  EXPECT_EQ(written, 600u);  // one per read at its manager, one at its requester
  EXPECT_EQ(w["landed_before_done"], 300u);
}

/** Every block once, none damaged, with 5% of the frames to and from node `lossy` lost (and
 *  2% duplicated, 2% held back). */
void ExpectEveryBlockOnceWithALossyLink(ulp::BlockTransfer transfer, uint32_t lossy,
                                        uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", lossy node " << lossy);
  DlmBlocksConfig dlm;
  dlm.transfer = transfer;
  dlm.blocks = 48;
  dlm.block_size = 16 << 10;
  dlm.requests = 240;
  dlm.timeout_ps = 200'000'000;
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 6;
  config.seed = seed;
  FaultRates faults;
  faults.loss = 0.05;
  faults.duplicate = 0.02;
  faults.reorder = 0.02;
  AddLinkFaults(config, lossy, faults);
  ServiceRun run = RunService(config, dlm);
  const WorkloadResult& r = run.result;
  ASSERT_TRUE(r.passed());
  EXPECT_EQ(r.messages_delivered, 240u);
  EXPECT_EQ(r.messages_duplicated, 0u);
  EXPECT_EQ(r.messages_damaged, 0u);
  EXPECT_EQ(r.results["bytes_moved"], 240u * (16 << 10));
  EXPECT_EQ(r.results["requests_abandoned"], 0u);
  ASSERT_EQ(run.cluster->fabric().counters().drops.count("link_loss"), 1u);
  EXPECT_GT(run.cluster->fabric().counters().drops.at("link_loss"), 0u);
  const uint64_t redrives = r.results["redrives"].get<uint64_t>() +
                            r.results["fetch_redrives"].get<uint64_t>() +
                            r.results["request_resends"].get<uint64_t>();
  EXPECT_GT(redrives, 0u);
}

TEST(ThirdPartyWorkloadTest, LossOnOneLinkStillDeliversEveryBlockOnce) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    ExpectEveryBlockOnceWithALossyLink(ulp::BlockTransfer::kThirdParty, 2, seed);
  }
}

TEST(ThirdPartyWorkloadTest, FetchOrderWithLossOnOneLinkStillDeliversEveryBlockOnce) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    ExpectEveryBlockOnceWithALossyLink(ulp::BlockTransfer::kFetchOrder, 2, seed);
  }
}

TEST(ThirdPartyWorkloadTest, LossyRunDeliversEveryBlockOnceByRedrives) {
  DlmBlocksConfig dlm;
  dlm.blocks = 40;
  dlm.block_size = 16 << 10;
  dlm.requests = 200;
  dlm.timeout_ps = 200'000'000;
  dlm.max_tries = 64;
  ServiceRun run = RunService(4, dlm, 0.05, 7);
  const WorkloadResult& r = run.result;
  ASSERT_TRUE(r.passed());
  EXPECT_EQ(r.messages_delivered, 200u);
  EXPECT_EQ(r.messages_duplicated, 0u);
  EXPECT_EQ(r.messages_damaged, 0u);
  const nlohmann::json& w = r.results;
  EXPECT_GT(w["redrives"].get<uint64_t>(), 0u);
  EXPECT_EQ(w["third_party_reads"].get<uint64_t>(), 200u + w["redrives"].get<uint64_t>());
  EXPECT_EQ(w["completions_at_managers"], 200u);
  EXPECT_EQ(w["bytes_moved"], 200u * (16 << 10));
  EXPECT_GT(run.cluster->fabric().counters().drops.at("fabric_loss"), 0u);
}

TEST(ThirdPartyWorkloadTest, ATimeoutShorterThanATransferStillEnds) {
  // 64 KiB take 33 us on the link alone; a redrive after 10 us re-armed the manager's one
  // rCxt with a tid the transfer in flight did not carry, so every completion came stale
  // and no block ever arrived. Posts now take turns on rCxts and the waits double.
  DlmBlocksConfig dlm;
  dlm.requests = 50;
  dlm.timeout_ps = 10'000'000;
  ServiceRun run = RunService(4, dlm);
  const WorkloadResult& r = run.result;
  ASSERT_TRUE(r.passed());
  EXPECT_EQ(r.messages_delivered, 50u);
  EXPECT_GT(r.results["redrives"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.results["completions_at_managers"], 50u);
}

TEST(ThirdPartyWorkloadTest, TheSameSeedGivesTheSameRun) {
  DlmBlocksConfig dlm;
  dlm.blocks = 16;
  dlm.block_size = 8 << 10;
  dlm.requests = 100;
  dlm.timeout_ps = 200'000'000;
  dlm.max_tries = 64;
  ServiceRun a = RunService(4, dlm, 0.05, 11);
  ServiceRun b = RunService(4, dlm, 0.05, 11);
  EXPECT_EQ(a.result.results.dump(), b.result.results.dump());
  EXPECT_EQ(a.cluster->events().now_ps(), b.cluster->events().now_ps());
  EXPECT_EQ(a.cluster->events().events_run(), b.cluster->events().events_run());
}

TEST(ThirdPartyWorkloadTest, EverythingLostFailsWithEveryRequestLost) {
  DlmBlocksConfig dlm;
  dlm.blocks = 4;
  dlm.block_size = 4096;
  dlm.requests = 5;
  dlm.max_tries = 3;
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 3;
  config.fabric.loss = 1;
  config.rdma_host_bytes = DlmBlocksHostBytes(dlm, 3);
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
  ASSERT_TRUE(cluster.ok());
  Result<WorkloadResult> r = RunDlmBlocks(**cluster, dlm);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->passed());
  EXPECT_EQ(r->messages_lost, 5u);
  EXPECT_EQ(r->results["requests_abandoned"], 5u);
  EXPECT_EQ(r->results["request_packets"], 15u);
}

}  // namespace
}  // namespace nicsim::sim
