// SPDX-License-Identifier: Apache-2.0
// The rtl backend: the SystemC adapter with the Verilated allocator and receive DMA sequencer
// checking it live delivers the same messages as the functional model, with no mismatch.
// SystemC elaborates once per process: ctest runs each test in its own process.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "base/crc32.h"
#include "hw/systemc/kernel.h"
#include "hw/systemc/rtl_adapter.h"
#include "sim/cluster/cluster.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

using Outcomes = std::map<std::pair<size_t, uint32_t>, std::tuple<size_t, uint32_t, uint32_t>>;

constexpr uint64_t kMessages = 2000;

/** A 2-node random exchange on `backend`; every message delivered, by (sender, sequence). */
Outcomes Exchange(BackendKind backend, std::unique_ptr<Cluster>* keep) {
  ClusterConfig c;
  c.backend = backend;
  c.nodes = 2;
  c.seed = 5;
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(c);
  EXPECT_TRUE(made.ok()) << made.status().message();
  if (!made.ok()) return {};
  Outcomes out;
  ExchangeConfig ex;
  ex.messages = kMessages;
  ex.on_delivered = [&](size_t src, uint32_t seq, size_t dest, const uint8_t* data, uint32_t len) {
    EXPECT_TRUE(
        out.emplace(std::make_pair(src, seq), std::make_tuple(dest, len, Crc32(0, data, len)))
            .second)
        << "message " << src << "/" << seq << " delivered twice";
  };
  Result<WorkloadResult> r = RunRandomExchange(**made, ex);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) {
    for (const std::string& e : r->errors) ADD_FAILURE() << e;
    EXPECT_EQ(r->messages_delivered, kMessages);
  }
  *keep = std::move(*made);
  return out;
}

TEST(RtlBackendTest, RandomExchangeMatchesFunctionalModelWithNoRtlMismatch) {
  if (hw::systemc::Kernel::Claimed()) GTEST_SKIP() << "SystemC elaborates once per process";
  std::unique_ptr<Cluster> func_cluster, rtl_cluster;
  const Outcomes func = Exchange(BackendKind::kFunc, &func_cluster);
  const Outcomes rtl = Exchange(BackendKind::kRtl, &rtl_cluster);
  ASSERT_TRUE(rtl_cluster);
  EXPECT_EQ(func.size(), kMessages);
  EXPECT_EQ(rtl, func);
  for (uint32_t id = 0; id < rtl_cluster->adapter_count(); ++id) {
    const auto* a = dynamic_cast<const hw::systemc::RtlAdapter*>(&rtl_cluster->adapter(id));
    ASSERT_NE(a, nullptr) << "adapter " << id << " is not an RtlAdapter";
    EXPECT_GT(a->rtl_ops(), 0u) << "adapter " << id;
    EXPECT_EQ(a->rtl_mismatches(), 0u) << "adapter " << id << ": " << a->first_mismatch();
    // Every frame the microcode delivered went through the sequencer too.
    EXPECT_EQ(a->rtl_frames(), a->firmware_counters().rx_packets) << "adapter " << id;
  }
}

}  // namespace
}  // namespace nicsim::sim
