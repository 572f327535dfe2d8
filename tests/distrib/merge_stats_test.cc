// SPDX-License-Identifier: Apache-2.0
// The merge of partitions' stats: counters summed, peaks maximal, per-adapter entries in id
// order, shared figures from rank 0, and the partitions field.
#include "sim/distrib/merge_stats.h"

#include <gtest/gtest.h>

namespace nicsim::sim::distrib {
namespace {

nlohmann::json Part(uint64_t events, uint64_t adapter, uint64_t peak, double wall_s) {
  return {{"events", events},
          {"packets_delivered", events / 2},
          {"sim_time_ns", 777},
          {"verdict", "pass"},
          {"wall_time_s", wall_s},
          {"wall_events_per_second", 0},
          {"drops", {{"fabric_loss", 1}, {"duplicate_delivery", 4}}},
          {"fabric",
           {{"frames_routed", 10},
            {"frames_duplicated", 1},
            {"frames_reordered", 2},
            {"frames_corrupted", 3},
            {"frames_per_path", {6, 4}},
            {"port_buffer_peak_bytes", peak}}},
          {"adapters", {{{"adapter", adapter}, {"rx_packets", adapter + 1}}}},
          {"host_memory",
           {{"reserved_bytes", 100},
            {"touched_bytes", 10},
            {"touched_peak_bytes", 10},
            {"nodes", {{{"node", adapter}}}}}}};
}

TEST(MergeStatsTest, SumsCountersKeepsPeaksAndOrdersAdaptersById) {
  const nlohmann::json merged = MergeStats({Part(100, 1, 500, 2.0), Part(60, 0, 900, 4.0)});
  EXPECT_EQ(merged["events"], 160);
  EXPECT_EQ(merged["packets_delivered"], 80);
  EXPECT_EQ(merged["sim_time_ns"], 777);
  EXPECT_EQ(merged["drops"]["fabric_loss"], 2);
  // Already the whole run's figure on every partition (MergeResults).
  EXPECT_EQ(merged["drops"]["duplicate_delivery"], 4);
  EXPECT_EQ(merged["fabric"]["frames_routed"], 20);
  EXPECT_EQ(merged["fabric"]["frames_per_path"], nlohmann::json({12, 8}));
  EXPECT_EQ(merged["fabric"]["port_buffer_peak_bytes"], 900);
  ASSERT_EQ(merged["adapters"].size(), 2u);
  EXPECT_EQ(merged["adapters"][0]["adapter"], 0);
  EXPECT_EQ(merged["adapters"][1]["rx_packets"], 2);
  EXPECT_EQ(merged["host_memory"]["nodes"][0]["node"], 0);
  EXPECT_EQ(merged["host_memory"]["reserved_bytes"], 200);
  EXPECT_EQ(merged["wall_time_s"], 4.0);
  EXPECT_EQ(merged["wall_events_per_second"], 40.0);
  EXPECT_EQ(merged["partitions"], 2);
}

}  // namespace
}  // namespace nicsim::sim::distrib
