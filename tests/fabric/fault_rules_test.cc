// SPDX-License-Identifier: Apache-2.0
// Tests for fabric.faults: parsing (exact rules and exact error messages), scope checks, and
// the fabric applying a rule only to frames through its path or over its adapter's links,
// with exact counters; no rules leaves every draw as it was.
#include "sim/config/fault_rules.h"

#include <gtest/gtest.h>

#include <vector>

#include "sim/config/param_table.h"
#include "sim/config/scenario.h"
#include "sim/fabric/switch_fabric.h"
#include "sim/run/run_scenario.h"
#include "tests/fabric/fabric_bench.h"

namespace nicsim::sim {
namespace {

// ---------------------------------------------------------------------------------------------
// Parsing

TEST(FaultRulesTest, ParsesPathAndLinkRulesWithEveryKind) {
  Result<std::vector<FaultRule>> rules = ParseFaultRules(
      " path 2: loss=0.1, corrupt = 0.01 ;link 3: duplicate=0.5; link 1/0: reorder=1, loss=0, "
      "reorder_delay=2.5us;");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 3u);
  EXPECT_EQ((*rules)[0].scope, FaultRule::Scope::kPath);
  EXPECT_EQ((*rules)[0].id, 2u);
  EXPECT_EQ((*rules)[0].rates, (FaultRates{0.1, 0, 0, 0.01}));
  EXPECT_EQ((*rules)[0].text, "path 2: loss=0.1, corrupt = 0.01");
  EXPECT_EQ((*rules)[1].scope, FaultRule::Scope::kLink);
  EXPECT_EQ((*rules)[1].id, 3u);
  EXPECT_EQ((*rules)[1].plane, FaultRule::kAllPlanes);
  EXPECT_EQ((*rules)[1].rates, (FaultRates{0, 0.5, 0, 0}));
  EXPECT_EQ((*rules)[2].id, 1u);
  EXPECT_EQ((*rules)[2].plane, 0u);
  EXPECT_EQ((*rules)[2].rates, (FaultRates{0, 0, 1, 0, 2'500'000}));
}

TEST(FaultRulesTest, BlankTextIsNoRules) {
  for (const char* text : {"", "  ", " ; ;"}) {
    Result<std::vector<FaultRule>> rules = ParseFaultRules(text);
    ASSERT_TRUE(rules.ok()) << text;
    EXPECT_TRUE(rules->empty()) << text;
  }
}

TEST(FaultRulesTest, ErrorsNameTheRuleAndWhatIsWrong) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"path 2 loss=0.1", "rule 1 ('path 2 loss=0.1'): expected 'SCOPE: KIND=PROBABILITY, ...'"},
      {"path 1: loss=0.1; plane 2: loss=1",
       "rule 2 ('plane 2: loss=1'): 'plane 2' is not a scope: expected 'path N', 'link A' or "
       "'link A/P'"},
      {"path x: loss=1", "rule 1 ('path x: loss=1'): path 'x' is not a number"},
      {"path -1: loss=1", "rule 1 ('path -1: loss=1'): path '-1' is not a number"},
      {"link 3/x: loss=0.1", "rule 1 ('link 3/x: loss=0.1'): plane 'x' is not a number"},
      {"link : loss=0.1", "rule 1 ('link : loss=0.1'): adapter '' is not a number"},
      {"path 0: drop=0.1",
       "rule 1 ('path 0: drop=0.1'): 'drop' is not a fault: expected loss, duplicate, reorder, "
       "corrupt or reorder_delay"},
      {"path 0: loss=1.5",
       "rule 1 ('path 0: loss=1.5'): loss must be a probability in [0, 1], "
       "got '1.5'"},
      {"path 0: loss=nan",
       "rule 1 ('path 0: loss=nan'): loss must be a probability in [0, 1], "
       "got 'nan'"},
      {"path 0: loss", "rule 1 ('path 0: loss'): 'loss' is not KIND=VALUE"},
      {"path 0: reorder=1, reorder_delay=5",
       "rule 1 ('path 0: reorder=1, reorder_delay=5'): reorder_delay: bad duration '5': missing "
       "unit (expected ps, ns, us, ms or s)"},
      {"path 0: reorder=1, reorder_delay=0ns",
       "rule 1 ('path 0: reorder=1, reorder_delay=0ns'): reorder_delay must be above 0 (leave it "
       "out for fabric.reorder_delay)"},
      {"path 0: loss=1, reorder_delay=1us",
       "rule 1 ('path 0: loss=1, reorder_delay=1us'): reorder_delay needs reorder in the rule"},
      {"path 0: loss=0.1, loss=0.2", "rule 1 ('path 0: loss=0.1, loss=0.2'): loss is given twice"},
      {"path 0:", "rule 1 ('path 0:'): no faults after ':'"},
  };
  for (const auto& [text, message] : cases) {
    Result<std::vector<FaultRule>> rules = ParseFaultRules(text);
    ASSERT_FALSE(rules.ok()) << text;
    EXPECT_EQ(rules.status().message(), message) << text;
  }
}

TEST(FaultRulesTest, ScopesAreCheckedAgainstPathsAndAdapters) {
  auto check = [](const char* text) {
    Result<std::vector<FaultRule>> rules = ParseFaultRules(text);
    EXPECT_TRUE(rules.ok()) << text;
    return CheckFaultRuleScopes(*rules, /*paths=*/4, /*adapters=*/2);
  };
  EXPECT_TRUE(check("path 3: loss=1; link 1/3: loss=1; link 0: loss=1").ok());
  EXPECT_EQ(check("path 1: loss=1; path 4: loss=1").message(),
            "rule 2 ('path 4: loss=1'): path 4 is not in [0, fabric.paths) = [0, 4)");
  EXPECT_EQ(check("link 2: loss=1").message(),
            "rule 1 ('link 2: loss=1'): adapter 2 is not in [0, 2) (the cluster's adapters)");
  EXPECT_EQ(check("link 1/4: loss=1").message(),
            "rule 1 ('link 1/4: loss=1'): plane 4 is not in [0, fabric.paths) = [0, 4)");
}

TEST(FaultRulesTest, TheParameterRefusesBadRulesAndTheConfigChecksScopes) {
  ParamValues p = ParamValues::Defaults();
  EXPECT_EQ(p.SetFromText("fabric.faults", "path 0: lose=1").message(),
            "fabric.faults: rule 1 ('path 0: lose=1'): 'lose' is not a fault: expected loss, "
            "duplicate, reorder, corrupt or reorder_delay");
  EXPECT_EQ(p.String("fabric.faults"), "");  // unchanged by the refused value
  ASSERT_TRUE(p.SetFromText("fabric.faults", "path 3: loss=0.5; link 1/2: corrupt=1").ok());
  Result<ClusterConfig> c = ClusterConfigFromParams(p);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->fabric.fault_rules.size(), 2u);
  EXPECT_EQ(c->fabric.fault_rules[1].rates.corrupt, 1.0);
  ASSERT_TRUE(p.SetFromText("fabric.paths", "2").ok());
  EXPECT_EQ(ClusterConfigFromParams(p).status().message(),
            "fabric.faults: rule 1 ('path 3: loss=0.5'): path 3 is not in [0, fabric.paths) = "
            "[0, 2)");
}

TEST(FaultRulesTest, ARunReportsAScopeErrorAtTheLineThatWroteTheRules) {
  Result<Scenario> scenario = ParseScenario(
      "workload = \"stream\"\n[fabric]\npaths = 2\n"
      "faults = \"link 0: loss=0.1; path 2: corrupt=1\"\n",
      "t.toml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  Result<RunOutcome> run = RunScenario(*scenario);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "t.toml:4:10: fabric.faults: rule 2 ('path 2: corrupt=1'): path 2 is not in [0, "
            "fabric.paths) = [0, 2)");
}

TEST(FaultRatesTest, CombiningDrawsIndependentlyAndKeepsTheLongerDelay) {
  FaultRates a{0.5, 0, 1, 0, 3000};
  a.Combine(FaultRates{0.5, 0.25, 0, 0, 2000});
  EXPECT_EQ(a, (FaultRates{0.75, 0.25, 1, 0, 3000}));
}

// ---------------------------------------------------------------------------------------------
// The fabric

FabricConfig FourPaths(const char* rules) {
  FabricConfig c = BaseConfig();
  c.paths = 4;
  c.routing = RoutingPolicy::kRoundRobin;
  Result<std::vector<FaultRule>> parsed = ParseFaultRules(rules);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  c.fault_rules = *parsed;
  return c;
}

TEST(FabricFaultRulesTest, PathLossDropsExactlyTheFramesThroughThatPath) {
  Bench b(FourPaths("path 2: loss=1"), 2);
  b.SendStream(0, 1, 100, 256);
  b.RunAll();
  // Round robin puts frames 2, 6, 10, ... on plane 2: a quarter of them, all lost.
  EXPECT_EQ(b.fabric.counters().drops.at("path_loss"), 25u);
  EXPECT_EQ(b.fabric.counters().frames_per_path, (std::vector<uint64_t>{25, 25, 0, 25}));
  ASSERT_EQ(b.sinks[1]->arrivals.size(), 75u);
  for (const Arrival& a : b.sinks[1]->arrivals) EXPECT_NE(a.seq % 4, 2u) << a.seq;
}

TEST(FabricFaultRulesTest, LinkLossHitsFramesToAndFromItsAdapterOnly) {
  Bench b(FourPaths("link 1: loss=1"), 3);
  b.SendStream(0, 1, 10, 256);  // into adapter 1: lost
  b.SendStream(1, 2, 10, 256);  // out of adapter 1: lost
  b.SendStream(2, 0, 10, 256);  // neither: delivered
  b.RunAll();
  EXPECT_EQ(b.fabric.counters().drops.at("link_loss"), 20u);
  EXPECT_TRUE(b.sinks[1]->arrivals.empty());
  EXPECT_TRUE(b.sinks[2]->arrivals.empty());
  EXPECT_EQ(b.sinks[0]->arrivals.size(), 10u);
  EXPECT_EQ(b.fabric.counters().frames_routed, 10u);
}

TEST(FabricFaultRulesTest, LinkRuleOnOnePlaneLeavesTheAdaptersOtherLinksAlone) {
  Bench b(FourPaths("link 1/3: duplicate=1"), 2);
  b.SendStream(0, 1, 40, 256);
  b.RunAll();
  // Plane 3 carries frames 3, 7, 11, ...: each arrives twice.
  EXPECT_EQ(b.fabric.counters().frames_duplicated, 10u);
  EXPECT_EQ(b.sinks[1]->arrivals.size(), 50u);
  std::vector<uint32_t> count(40, 0);
  for (const Arrival& a : b.sinks[1]->arrivals) ++count[a.seq];
  for (uint32_t seq = 0; seq < 40; ++seq) EXPECT_EQ(count[seq], seq % 4 == 3 ? 2u : 1u) << seq;
  EXPECT_TRUE(b.fabric.counters().drops.empty());
}

TEST(FabricFaultRulesTest, PathCorruptionFlipsOneBitOfEachFrameThroughIt) {
  Bench b(FourPaths("path 0: corrupt=1"), 2);
  b.SendStream(0, 1, 8, 256);
  b.RunAll();
  EXPECT_EQ(b.fabric.counters().frames_corrupted, 2u);
  ASSERT_EQ(b.sinks[1]->arrivals.size(), 8u);
  // The flipped bit may be in the sequence number or departure time the frame carries, so
  // frames are matched by arrival order (equal paths keep send order) and rebuilt from it.
  uint32_t damaged = 0;
  for (size_t i = 0; i < b.sinks[1]->arrivals.size(); ++i) {
    const Arrival& a = b.sinks[1]->arrivals[i];
    const std::vector<uint8_t> sent =
        Bench::FrameBytes(0, static_cast<uint32_t>(i), 256, (i + 1) * b.WirePs(256));
    uint32_t bits = 0;
    for (size_t k = 0; k < sent.size(); ++k) bits += __builtin_popcount(sent[k] ^ a.bytes[k]);
    EXPECT_EQ(bits, i % 4 == 0 ? 1u : 0u) << "frame " << i;
    damaged += bits;
  }
  EXPECT_EQ(damaged, 2u);
}

TEST(FabricFaultRulesTest, ReorderRuleDelaysOnlyItsPathsFrames) {
  FabricConfig c = FourPaths("path 1: reorder=1");
  c.reorder_delay_ps = 10'000 * kNs;
  Bench b(c, 2);
  b.SendStream(0, 1, 8, 256);
  b.RunAll();
  EXPECT_EQ(b.fabric.counters().frames_reordered, 2u);
  ASSERT_EQ(b.sinks[1]->arrivals.size(), 8u);
  // Frames 1 and 5 (plane 1) come last, in order.
  EXPECT_EQ(b.sinks[1]->arrivals[6].seq, 1u);
  EXPECT_EQ(b.sinks[1]->arrivals[7].seq, 5u);
}

TEST(FabricFaultRulesTest, ARuleCanHoldItsReorderedFramesForItsOwnTime) {
  // Plane 1 holds its frames back 10 us, plane 2 for fabric.reorder_delay (20 us).
  FabricConfig c = FourPaths("path 1: reorder=1, reorder_delay=10us; path 2: reorder=1");
  c.reorder_delay_ps = 20'000 * kNs;
  Bench b(c, 2);
  b.SendAt(0, 0, 1, 0, 256);              // plane 0
  b.SendAt(100'000 * kNs, 0, 1, 1, 256);  // plane 1
  b.SendAt(200'000 * kNs, 0, 1, 2, 256);  // plane 2
  b.RunAll();
  ASSERT_EQ(b.sinks[1]->arrivals.size(), 3u);
  const uint64_t idle = b.WirePs(256) + b.IdleTransitPs(0);
  EXPECT_EQ(b.sinks[1]->arrivals[0].time_ps, idle);
  EXPECT_EQ(b.sinks[1]->arrivals[1].time_ps, 100'000 * kNs + idle + 10'000 * kNs);
  EXPECT_EQ(b.sinks[1]->arrivals[2].time_ps, 200'000 * kNs + idle + 20'000 * kNs);
  EXPECT_EQ(b.fabric.counters().frames_reordered, 2u);
}

TEST(FabricFaultRulesTest, WithoutRulesEveryDrawIsAsBefore) {
  // Fabric-wide faults only, then the same plus a rule whose rates are all zero: a zero rate
  // draws nothing, so both runs see the same arrivals.
  FabricConfig plain = FourPaths("");
  plain.loss = 0.2;
  plain.duplicate = 0.2;
  plain.reorder = 0.2;
  plain.corrupt = 0.2;
  plain.seed = 7;
  FabricConfig zero = plain;
  zero.fault_rules = *ParseFaultRules("path 0: loss=0, corrupt=0; link 1: duplicate=0");
  Bench a(plain, 2);
  Bench b(zero, 2);
  a.SendStream(0, 1, 200, 256);
  b.SendStream(0, 1, 200, 256);
  a.RunAll();
  b.RunAll();
  EXPECT_EQ(a.sinks[1]->arrivals, b.sinks[1]->arrivals);
  EXPECT_EQ(a.fabric.counters().drops, b.fabric.counters().drops);
  EXPECT_GT(a.fabric.counters().drops.at("fabric_loss"), 0u);
}

TEST(FabricFaultRulesTest, SameSeedReplaysARunWithRulesExactly) {
  auto run = [](uint64_t seed) {
    FabricConfig c = FourPaths("path 1: loss=0.3, duplicate=0.3; link 1/2: corrupt=0.5");
    c.seed = seed;
    Bench b(c, 2);
    b.SendStream(0, 1, 300, 256);
    b.RunAll();
    return std::make_pair(b.sinks[1]->arrivals, b.fabric.counters().drops);
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11).first, run(12).first);
}

}  // namespace
}  // namespace nicsim::sim
