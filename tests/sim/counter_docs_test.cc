// SPDX-License-Identifier: Apache-2.0
// The counter tables are what stats.json reports and what docs/stats.md says: each adapter's
// entry has exactly the declared counters, the drops table exactly the declared reasons, and
// the document holds the generated text.
#include "app/counter_docs.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>

#include "firmware/counters.h"
#include "hw/func/adapter_model.h"
#include "sim/cluster/cluster.h"
#include "sim/config/scenario.h"
#include "sim/fabric/switch_fabric.h"
#include "sim/run/run_scenario.h"
#include "tests/support/generated_block.h"

namespace nicsim::sim {
namespace {

std::set<std::string> Keys(const nlohmann::json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

TEST(CounterDocsTest, StatsReportExactlyTheDeclaredCountersAndReasons) {
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  Result<Scenario> scenario = ParseScenario("", "t");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  const nlohmann::json stats = BuildStats(**cluster, *scenario, WorkloadResult{}, 0);

  std::set<std::string> adapter = {"adapter", "waits"};
  for (const auto& f : fw::kCounterFields) adapter.insert(std::string(f.name));
  for (const auto& f : hw::func::kAdapterCounterFields) adapter.insert(std::string(f.name));
  ASSERT_EQ(stats["adapters"].size(), 2u);
  EXPECT_EQ(Keys(stats["adapters"][0]), adapter);

  std::set<std::string> waits;
  for (size_t r = 1; r < fw::kResources.size(); ++r)
    waits.insert(std::string(fw::kResources[r].name));
  EXPECT_EQ(Keys(stats["adapters"][0]["waits"]), waits);

  std::set<std::string> drops = {"duplicate_delivery"};
  for (const auto& r : fw::kDropReasons) drops.insert(std::string(r.name));
  for (const auto& r : kFabricDrops) drops.insert(std::string(r.name));
  EXPECT_EQ(Keys(stats["drops"]), drops);
}

TEST(CounterDocsTest, EveryTableRowIsDocumentedOnce) {
  const std::string text = CountersText();
  // Each name with its description, e.g. the microcode's bad_crc drop.
  EXPECT_NE(text.find("bad_crc                    the link CRC did not match"), std::string::npos)
      << text;
  EXPECT_NE(text.find("port_buffer_full"), std::string::npos);
  EXPECT_NE(text.find("rdma_redrives_timeout"), std::string::npos);
  EXPECT_NE(text.find("tx_ring_full"), std::string::npos);
  // "none" is not a resource anything waits for.
  EXPECT_EQ(text.find(" none "), std::string::npos);
}

TEST(CounterDocsTest, StatsMdHoldsTheGeneratedTables) {
  const std::optional<std::string> block = testing::GeneratedBlock(
      NICSIM_SOURCE_DIR "/docs/stats.md",
      "<!-- counters:begin (generated: build/nicsim counters --markdown) -->\n",
      "<!-- counters:end -->");
  ASSERT_TRUE(block.has_value()) << "docs/stats.md or its markers are missing";
  EXPECT_EQ(*block, CountersMarkdown()) << "regenerate with: build/nicsim counters --markdown";
}

}  // namespace
}  // namespace nicsim::sim
