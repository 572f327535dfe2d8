// SPDX-License-Identifier: Apache-2.0
// ip_exchange on the simulated cluster (func backend): with no fault every datagram arrives
// exactly once at each of its receivers, with exact counts; with loss, duplication,
// reordering and corruption on the fabric nothing wrong or doubled is ever delivered and the
// missing arrivals are counted as lost to faults and fail the run.
#include "sim/workloads/ip_exchange.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/cluster/cluster.h"

namespace nicsim::sim {
namespace {

struct IpRun {
  std::unique_ptr<Cluster> cluster;
  WorkloadResult result;
};

IpRun RunIp(ClusterConfig config, const IpExchangeConfig& ip) {
  config.backend = BackendKind::kFunc;
  config.rdma_host_bytes = IpExchangeHostBytes();
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
  EXPECT_TRUE(cluster.ok()) << cluster.status().message();
  IpRun run{std::move(*cluster), {}};
  Result<WorkloadResult> r = RunIpExchange(*run.cluster, ip);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) run.result = std::move(*r);
  return run;
}

uint64_t Ip(const WorkloadResult& r, const char* name) { return r.results["ip"][name]; }

TEST(IpExchangeTest, WithoutFaultsEveryDatagramArrivesOnce) {
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 4;
  config.seed = 3;
  IpExchangeConfig ip;
  ip.datagrams = 400;
  ip.max_size = 20000;
  ip.broadcast_percent = 20;
  IpRun run = RunIp(config, ip);
  const WorkloadResult& r = run.result;
  for (const std::string& e : r.errors) ADD_FAILURE() << e;
  EXPECT_TRUE(r.passed());
  const uint64_t broadcasts = r.results["broadcasts"];
  EXPECT_GT(broadcasts, 0u);
  EXPECT_GT(static_cast<uint64_t>(r.results["large_unicast"]), 0u);
  EXPECT_GT(static_cast<uint64_t>(r.results["small_unicast"]), 0u);
  EXPECT_EQ(r.messages_sent, 400u);
  // A broadcast reaches the three other nodes.
  EXPECT_EQ(r.messages_delivered, 400u - broadcasts + 3 * broadcasts);
  EXPECT_EQ(r.messages_lost, 0u);
  EXPECT_EQ(Ip(r, "datagrams_sent"), 400u);
  EXPECT_EQ(Ip(r, "broadcast_sent"), broadcasts);
  EXPECT_EQ(Ip(r, "datagrams_delivered"), r.messages_delivered);
  EXPECT_EQ(Ip(r, "bytes_delivered"), r.bytes_delivered);
  // A broadcast's frames go once to the fabric, which copies each to the three other nodes.
  EXPECT_GT(Ip(r, "broadcast_frames"), 0u);
  EXPECT_GE(Ip(r, "broadcast_frames"), broadcasts);
  EXPECT_EQ(run.cluster->fabric().counters().frames_broadcast, Ip(r, "broadcast_frames"));
  // Every frame arrives (a broadcast frame at three nodes), and each read's completion at its
  // reader.
  EXPECT_EQ(Ip(r, "frames_received"),
            Ip(r, "frames_sent") + 2 * Ip(r, "broadcast_frames") + Ip(r, "rdma_landed"));
  EXPECT_GT(Ip(r, "rdma_offers"), 0u);
  EXPECT_EQ(Ip(r, "rdma_reads") + Ip(r, "rdma_declined"), Ip(r, "rdma_offers"));
  EXPECT_EQ(Ip(r, "rdma_landed"), Ip(r, "rdma_reads"));
  EXPECT_EQ(Ip(r, "rdma_fallbacks"), Ip(r, "rdma_declined"));
  for (const char* none : {"rdma_read_timeouts", "rdma_stray", "rdma_source_expired"}) {
    EXPECT_EQ(Ip(r, none), 0u) << none;
  }
  for (const char* drop : {"drop_not_ip", "drop_malformed", "drop_bad_checksum", "drop_bad_source",
                           "drop_not_for_us", "drop_too_big", "drop_inconsistent", "drop_timeout",
                           "drop_duplicate", "drop_late", "duplicate_fragments"}) {
    EXPECT_EQ(Ip(r, drop), 0u) << drop;
  }
  EXPECT_GT(Ip(r, "reassembled"), 0u);
}

TEST(IpExchangeTest, WithoutRdmaLargeUnicastGoInFragments) {
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 3;
  config.seed = 5;
  IpExchangeConfig ip;
  ip.datagrams = 200;
  ip.max_size = 30000;
  ip.broadcast_percent = 0;
  ip.rdma_threshold = 65515;
  IpRun run = RunIp(config, ip);
  const WorkloadResult& r = run.result;
  for (const std::string& e : r.errors) ADD_FAILURE() << e;
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.messages_delivered, 200u);
  EXPECT_EQ(Ip(r, "rdma_offers"), 0u);
  EXPECT_EQ(Ip(r, "rdma_no_slot"), 0u);
  EXPECT_EQ(Ip(r, "fragmented_sent"), static_cast<uint64_t>(r.results["large_unicast"]));
  EXPECT_EQ(Ip(r, "reassembled"), Ip(r, "fragmented_sent"));
  EXPECT_EQ(Ip(r, "frames_received"), Ip(r, "frames_sent"));
}

TEST(IpExchangeTest, OneRdmaSlotStillDeliversEverythingOnce) {
  // With one slot each way most large sends find it busy (fragments at once) or the
  // receiver's taken (declined, then fragments): every path, and still each datagram once.
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.nodes = 4;
  config.seed = 9;
  IpExchangeConfig ip;
  ip.datagrams = 300;
  ip.max_size = 40000;
  ip.broadcast_percent = 10;
  ip.rdma_threshold = 4096;
  ip.rdma_slots = 1;
  IpRun run = RunIp(config, ip);
  const WorkloadResult& r = run.result;
  for (const std::string& e : r.errors) ADD_FAILURE() << e;
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.messages_lost, 0u);
  EXPECT_GT(Ip(r, "rdma_landed"), 0u);
  EXPECT_GT(Ip(r, "rdma_no_slot"), 0u);
  EXPECT_EQ(Ip(r, "rdma_fallbacks"), Ip(r, "rdma_declined"));
  EXPECT_EQ(Ip(r, "rdma_landed") + Ip(r, "rdma_declined"), Ip(r, "rdma_offers"));
}

TEST(IpExchangeTest, UnderEveryFabricFaultNothingWrongOrDoubledIsDelivered) {
  struct Case {
    const char* name;
    double loss, duplicate, reorder, corrupt;
  };
  for (const Case& c : {Case{"loss", 0.02, 0, 0, 0}, Case{"duplicate", 0, 0.05, 0, 0},
                        Case{"reorder", 0, 0, 0.2, 0}, Case{"corrupt", 0, 0, 0, 0.02},
                        Case{"all", 0.02, 0.05, 0.2, 0.02}}) {
    SCOPED_TRACE(c.name);
    ClusterConfig config;
    config.backend = BackendKind::kFunc;
    config.nodes = 3;
    config.seed = 11;
    config.fabric.loss = c.loss;
    config.fabric.duplicate = c.duplicate;
    config.fabric.reorder = c.reorder;
    config.fabric.corrupt = c.corrupt;
    IpExchangeConfig ip;
    ip.datagrams = 300;
    ip.max_size = 12000;
    ip.broadcast_percent = 20;
    IpRun run = RunIp(config, ip);
    const WorkloadResult& r = run.result;
    // A lost datagram fails the run (exit 1) like any lost message; nothing else may.
    for (const std::string& e : r.errors) {
      if (e.find("lost to the fabric's faults") == std::string::npos) ADD_FAILURE() << e;
    }
    EXPECT_EQ(r.passed(), r.messages_lost == 0);
    EXPECT_EQ(r.messages_damaged, 0u);
    EXPECT_EQ(r.messages_duplicated, 0u);
    const uint64_t expected = r.results["arrivals_expected"];
    EXPECT_EQ(r.messages_delivered + r.messages_lost, expected);
    if (c.loss > 0 || c.corrupt > 0) {
      EXPECT_GT(r.messages_lost, 0u);
      EXPECT_EQ(static_cast<uint64_t>(r.results["lost_to_faults"]), r.messages_lost);
    } else {
      // Duplication and reordering alone lose nothing: copies are dropped, order restored.
      EXPECT_EQ(r.messages_lost, 0u);
    }
    if (c.duplicate > 0) {
      EXPECT_GT(Ip(r, "drop_duplicate") + Ip(r, "duplicate_fragments"), 0u);
    }
    // Large unicast went by RDMA; a read lost on the way was redriven through the FIFOs.
    EXPECT_GT(Ip(r, "rdma_landed"), 0u);
    if (c.loss > 0) {
      EXPECT_GT(Ip(r, "rdma_read_timeouts") + Ip(r, "rdma_source_expired"), 0u);
    }
    EXPECT_EQ(Ip(r, "drop_rdma_crc"), 0u);
  }
}

}  // namespace
}  // namespace nicsim::sim
