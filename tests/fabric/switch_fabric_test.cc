// SPDX-License-Identifier: Apache-2.0
// Tests for the switch fabric: exact idle timing, multi-path routing policies and the
// reordering they cause, path outages, finite output buffers, replay, per-path streams and
// parameters.
// Broadcast and the trickle hold are in switch_fabric_broadcast_test.cc, end to end runs in
// fabric_cluster_test.cc.
#include "sim/fabric/switch_fabric.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/rng.h"
#include "hw/common/frame_codec.h"
#include "kernel/event_queue.h"
#include "sim/run/run_scenario.h"
#include "tests/fabric/fabric_bench.h"

namespace nicsim::sim {
namespace {

// ---------------------------------------------------------------------------------------------
// Timing

TEST(SwitchFabricTest, IdleFrameArrivesAfterSerialisationLinkDelaysAndHop) {
  Bench b(BaseConfig(), 2);
  constexpr uint32_t kSize = 1000;
  b.SendAt(0, 0, 1, 0, kSize);
  b.RunAll();
  ASSERT_EQ(b.sinks[1]->arrivals.size(), 1u);
  // 1000 B at 500 ps/B, uplink 50 ns, hop 300 ns, downlink 50 ns: the header arrives then.
  const uint64_t expected = kSize * 500 + 50 * kNs + 300 * kNs + 50 * kNs;
  EXPECT_EQ(b.sinks[1]->arrivals[0].time_ps, expected);
  EXPECT_EQ(b.sinks[1]->arrivals[0].time_ps, b.WirePs(kSize) + b.IdleTransitPs(0));
  EXPECT_EQ(b.sinks[1]->arrivals[0].src, 0u);
  EXPECT_EQ(b.fabric.counters().frames_routed, 1u);
  EXPECT_EQ(b.fabric.counters().frames_per_path, (std::vector<uint64_t>{1}));
  EXPECT_TRUE(b.fabric.counters().drops.empty());
}

TEST(SwitchFabricTest, PathPAddsPTimesTheSkewToAnIdleFrame) {
  FabricConfig c = BaseConfig();
  c.paths = 4;
  c.routing = RoutingPolicy::kRoundRobin;
  c.path_skew_ps = 700 * kNs;
  Bench b(c, 2);
  constexpr uint32_t kSize = 256;
  // Far apart, so every frame meets an idle fabric; round robin puts frame i on plane i.
  for (uint32_t i = 0; i < 4; ++i) b.SendAt(i * 100'000 * kNs, 0, 1, i, kSize);
  b.RunAll();
  ASSERT_EQ(b.sinks[1]->arrivals.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    const uint64_t expected =
        i * 100'000 * kNs + kSize * 500 + 50 * kNs + 300 * kNs + 50 * kNs + i * 700 * kNs;
    EXPECT_EQ(b.sinks[1]->arrivals[i].time_ps, expected) << "plane " << i;
  }
  EXPECT_EQ(b.fabric.counters().frames_per_path, (std::vector<uint64_t>{1, 1, 1, 1}));
}

TEST(SwitchFabricTest, OutputLinkSerialisesFramesFromTwoSourcesToOneDestination) {
  Bench b(BaseConfig(), 3);
  constexpr uint32_t kSize = 1000;
  b.SendAt(0, 0, 2, 0, kSize);
  b.SendAt(0, 1, 2, 1, kSize);
  b.RunAll();
  ASSERT_EQ(b.sinks[2]->arrivals.size(), 2u);
  const uint64_t first = b.WirePs(kSize) + b.IdleTransitPs(0);
  EXPECT_EQ(b.sinks[2]->arrivals[0].time_ps, first);
  // The second waits for the first to leave the output port.
  EXPECT_EQ(b.sinks[2]->arrivals[1].time_ps, first + b.WirePs(kSize));
}

// ---------------------------------------------------------------------------------------------
// Multi-path routing

TEST(SwitchFabricTest, RoundRobinOverSkewedPathsReordersYetDeliversEachFrameOnce) {
  FabricConfig c = BaseConfig();
  c.paths = 4;
  c.routing = RoutingPolicy::kRoundRobin;
  c.path_skew_ps = 1000 * kNs;
  Bench b(c, 2);
  constexpr uint32_t kFrames = 400;
  b.SendStream(0, 1, kFrames, 1000);
  b.RunAll();
  const std::vector<Arrival>& got = b.sinks[1]->arrivals;
  EXPECT_GT(Inversions(got), 0u);
  ExpectEachOnce(got, kFrames);
  EXPECT_EQ(b.fabric.counters().frames_per_path, (std::vector<uint64_t>{100, 100, 100, 100}));
  EXPECT_EQ(b.fabric.counters().frames_routed, kFrames);
  EXPECT_TRUE(b.fabric.counters().drops.empty());
}

TEST(SwitchFabricTest, RoundRobinIsPerSourceAdapter) {
  FabricConfig c = BaseConfig();
  c.paths = 2;
  c.routing = RoutingPolicy::kRoundRobin;
  Bench b(c, 3);
  // Sources alternate; a shared pointer would put all of source 0's frames on one plane.
  for (uint32_t i = 0; i < 4; ++i) {
    b.SendAt(i * 100'000 * kNs, 0, 2, i, 64);
    b.SendAt(i * 100'000 * kNs + 1, 1, 2, i, 64);
  }
  b.RunAll();
  EXPECT_EQ(b.fabric.counters().frames_per_path, (std::vector<uint64_t>{4, 4}));
}

TEST(SwitchFabricTest, FixedRoutingKeepsEachPairOnOnePathAndInOrder) {
  FabricConfig c = BaseConfig();
  c.paths = 4;
  c.routing = RoutingPolicy::kFixed;
  c.path_skew_ps = 1000 * kNs;
  Bench b(c, 2);
  b.SendStream(0, 1, 200, 1000);
  b.RunAll();
  EXPECT_EQ(Inversions(b.sinks[1]->arrivals), 0u);
  ExpectEachOnce(b.sinks[1]->arrivals, 200);
  std::vector<uint64_t> expected(4, 0);
  expected[SwitchFabric::FixedPlane(0, 1, 4)] = 200;
  EXPECT_EQ(b.fabric.counters().frames_per_path, expected);
}

TEST(SwitchFabricTest, FixedPlaneSpreadsPairsOverEveryPath) {
  std::set<uint32_t> used;
  for (uint16_t s = 0; s < 16; ++s) {
    for (uint16_t d = 0; d < 16; ++d) {
      const uint32_t p = SwitchFabric::FixedPlane(s, d, 4);
      EXPECT_LT(p, 4u);
      used.insert(p);
    }
  }
  EXPECT_EQ(used.size(), 4u);
}

// ---------------------------------------------------------------------------------------------
// Path outages

/** The plane a frame took, recovered from its transit time (valid on an unqueued fabric). */
uint32_t PlaneOf(const Arrival& a, const Bench& b) {
  const uint64_t extra = a.time_ps - a.depart_ps - b.IdleTransitPs(0);
  EXPECT_EQ(extra % b.fabric.config().path_skew_ps, 0u);
  return static_cast<uint32_t>(extra / b.fabric.config().path_skew_ps);
}

TEST(SwitchFabricTest, RoundRobinAvoidsADownPathAndLosesNothing) {
  FabricConfig c = BaseConfig();
  c.paths = 4;
  c.routing = RoutingPolicy::kRoundRobin;
  c.path_skew_ps = 10 * kNs;
  // Times chosen off the 500 ns send grid, so no send falls on an outage boundary.
  const uint64_t down_ps = 50'250 * kNs;
  const uint64_t up_ps = 150'250 * kNs;
  c.outages = {{2, down_ps, up_ps}};
  Bench b(c, 2);
  constexpr uint32_t kFrames = 400;
  constexpr uint32_t kSize = 1000;  // one frame every 500 ns
  b.SendStream(0, 1, kFrames, kSize);
  std::vector<bool> state_seen;
  for (uint64_t t : {down_ps - 1, down_ps + 1, up_ps - 1, up_ps + 1}) {
    b.events.At(t, [&] { state_seen.push_back(b.fabric.path_down(2)); });
  }
  b.RunAll();
  EXPECT_EQ(state_seen, (std::vector<bool>{false, true, true, false}));
  const std::vector<Arrival>& got = b.sinks[1]->arrivals;
  ExpectEachOnce(got, kFrames);
  EXPECT_TRUE(b.fabric.counters().drops.empty());
  uint32_t on_two_before = 0, on_two_during = 0, on_two_after = 0, during = 0;
  for (const Arrival& a : got) {
    const uint64_t sent = a.depart_ps - b.WirePs(kSize);
    const uint32_t plane = PlaneOf(a, b);
    if (sent < down_ps) {
      on_two_before += plane == 2;
    } else if (sent < up_ps) {
      ++during;
      on_two_during += plane == 2;
    } else {
      on_two_after += plane == 2;
    }
  }
  EXPECT_GT(during, 0u);
  EXPECT_GT(on_two_before, 0u);
  EXPECT_EQ(on_two_during, 0u);  // traffic continued on the other three
  EXPECT_GT(on_two_after, 0u);   // and came back when the path did
  const std::vector<uint64_t>& per_path = b.fabric.counters().frames_per_path;
  EXPECT_LT(per_path[2], per_path[0]);
  EXPECT_EQ(per_path[0] + per_path[1] + per_path[2] + per_path[3], kFrames);
}

TEST(SwitchFabricTest, RandomRoutingAvoidsADownPath) {
  FabricConfig c = BaseConfig();
  c.paths = 4;
  c.routing = RoutingPolicy::kRandom;
  c.path_skew_ps = 10 * kNs;
  c.outages = {{1, 0, PathOutage::kNever}};
  Bench b(c, 2);
  b.SendStream(0, 1, 300, 1000);
  b.RunAll();
  ExpectEachOnce(b.sinks[1]->arrivals, 300);
  EXPECT_TRUE(b.fabric.counters().drops.empty());
  const std::vector<uint64_t>& per_path = b.fabric.counters().frames_per_path;
  EXPECT_EQ(per_path[1], 0u);
  EXPECT_GT(per_path[0], 0u);
  EXPECT_GT(per_path[2], 0u);
  EXPECT_GT(per_path[3], 0u);
  EXPECT_TRUE(b.fabric.path_down(1));
}

TEST(SwitchFabricTest, ScheduledOutagesAreNotEventsAndDoNotStretchARun) {
  FabricConfig c = BaseConfig();
  c.paths = 2;
  c.outages = {{1, 1'000'000'000 * kNs, PathOutage::kNever}};  // at 1 s
  Bench b(c, 2);
  EXPECT_TRUE(b.events.empty());
  b.SendStream(0, 1, 10, 100);
  b.RunAll();
  EXPECT_LT(b.events.now_ps(), 1'000'000 * kNs);
  EXPECT_FALSE(b.fabric.path_down(1));
  // SetPathDown holds a plane down until it is released.
  b.fabric.SetPathDown(0, true);
  EXPECT_TRUE(b.fabric.path_down(0));
  b.fabric.SetPathDown(0, false);
  EXPECT_FALSE(b.fabric.path_down(0));
}

TEST(SwitchFabricTest, FixedRoutingLosesFramesToADownPathUntilItComesBack) {
  FabricConfig c = BaseConfig();
  c.paths = 4;
  c.routing = RoutingPolicy::kFixed;
  // Find a destination whose pair with source 0 uses plane 1 and one that does not.
  uint16_t on_plane = 0, elsewhere = 0;
  for (uint16_t d = 1; d < 64 && (on_plane == 0 || elsewhere == 0); ++d) {
    const bool uses_plane = SwitchFabric::FixedPlane(0, d, 4) == 1;
    if (uses_plane && on_plane == 0) on_plane = d;
    if (!uses_plane && elsewhere == 0) elsewhere = d;
  }
  ASSERT_NE(on_plane, 0u);
  ASSERT_NE(elsewhere, 0u);
  ASSERT_EQ(SwitchFabric::FixedPlane(0, on_plane, 4), 1u);
  ASSERT_NE(SwitchFabric::FixedPlane(0, elsewhere, 4), 1u);
  const uint64_t down_ps = 20'250 * kNs;
  const uint64_t up_ps = 60'250 * kNs;
  c.outages = {{1, down_ps, up_ps}};
  Bench b(c, static_cast<uint16_t>(std::max(on_plane, elsewhere) + 1));
  constexpr uint32_t kFrames = 200;
  constexpr uint32_t kSize = 1000;  // frame i is sent at i * 500 ns
  // Both streams share source 0's timeline: even sends go to one, odd to the other.
  for (uint32_t i = 0; i < kFrames; ++i) {
    b.SendAt(2 * i * b.WirePs(kSize), 0, on_plane, i, kSize);
    b.SendAt((2 * i + 1) * b.WirePs(kSize), 0, elsewhere, i, kSize);
  }
  b.RunAll();
  uint64_t lost_expected = 0;
  for (uint32_t i = 0; i < kFrames; ++i) {
    const uint64_t sent = 2 * i * b.WirePs(kSize);
    lost_expected += sent >= down_ps && sent < up_ps;
  }
  ASSERT_GT(lost_expected, 0u);
  EXPECT_EQ(b.fabric.counters().drops.at("path_down"), lost_expected);
  EXPECT_EQ(b.sinks[on_plane]->arrivals.size(), kFrames - lost_expected);
  ExpectEachOnce(b.sinks[elsewhere]->arrivals, kFrames);  // other pairs are untouched
  // The frames that did arrive are exactly those sent outside the outage.
  for (const Arrival& a : b.sinks[on_plane]->arrivals) {
    const uint64_t sent = a.depart_ps - b.WirePs(kSize);
    EXPECT_TRUE(sent < down_ps || sent >= up_ps) << "seq " << a.seq;
  }
  EXPECT_FALSE(b.fabric.path_down(1));
}

TEST(SwitchFabricTest, EveryPathDownLosesFramesWhateverThePolicy) {
  for (RoutingPolicy policy : {RoutingPolicy::kRoundRobin, RoutingPolicy::kRandom}) {
    SCOPED_TRACE(std::string(ToString(policy)));
    FabricConfig c = BaseConfig();
    c.paths = 2;
    c.routing = policy;
    Bench b(c, 2);
    b.fabric.SetPathDown(0, true);
    b.fabric.SetPathDown(1, true);
    b.SendStream(0, 1, 10, 100);
    b.RunAll();
    EXPECT_TRUE(b.sinks[1]->arrivals.empty());
    EXPECT_EQ(b.fabric.counters().drops.at("path_down"), 10u);
    EXPECT_EQ(b.fabric.counters().frames_routed, 0u);
  }
}

// ---------------------------------------------------------------------------------------------
// Output buffers

TEST(SwitchFabricTest, BurstLargerThanThePortBufferDropsExactlyTheFramesThatDoNotFit) {
  FabricConfig c = BaseConfig();
  c.port_buffer_bytes = 64 * 1024;
  constexpr uint16_t kSources = 40;
  constexpr uint32_t kSize = 2000;
  Bench b(c, kSources + 1);
  // Every source sends one frame at t = 0: all reach the one output port together.
  for (uint16_t s = 0; s < kSources; ++s) b.SendAt(0, s, kSources, s, kSize);
  b.RunAll();
  // The port holds whole frames, the one on the wire included: floor(65536 / 2000) = 32.
  const uint64_t fit = c.port_buffer_bytes / kSize;
  ASSERT_EQ(fit, 32u);
  EXPECT_EQ(b.fabric.counters().drops.at("port_buffer_full"), kSources - fit);
  const std::vector<Arrival>& got = b.sinks[kSources]->arrivals;
  ASSERT_EQ(got.size(), fit);
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].src, k) << "the first frames to arrive are the ones kept";
    EXPECT_EQ(got[k].time_ps, b.WirePs(kSize) + b.IdleTransitPs(0) + k * b.WirePs(kSize));
  }
}

TEST(SwitchFabricTest, PortBufferSpaceFreesAsFramesLeave) {
  FabricConfig c = BaseConfig();
  constexpr uint32_t kSize = 2000;
  c.port_buffer_bytes = 2 * kSize;
  Bench b(c, 5);
  // Three at once: two fit. A fourth arrives after the first has left: it fits again.
  for (uint16_t s = 0; s < 3; ++s) b.SendAt(0, s, 4, s, kSize);
  b.SendAt(b.WirePs(kSize) + 1, 3, 4, 3, kSize);
  b.RunAll();
  EXPECT_EQ(b.fabric.counters().drops.at("port_buffer_full"), 1u);
  ASSERT_EQ(b.sinks[4]->arrivals.size(), 3u);
  EXPECT_EQ(b.sinks[4]->arrivals[2].src, 3u);
}

TEST(SwitchFabricTest, ZeroPortBufferMeansUnlimited) {
  FabricConfig c = BaseConfig();
  c.port_buffer_bytes = 0;
  Bench b(c, 41);
  for (uint16_t s = 0; s < 40; ++s) b.SendAt(0, s, 40, s, 2000);
  b.RunAll();
  EXPECT_EQ(b.sinks[40]->arrivals.size(), 40u);
  EXPECT_TRUE(b.fabric.counters().drops.empty());
}

// ---------------------------------------------------------------------------------------------
// Replay

/** Eight random planes and every fault, three sources streaming into adapter 3. */
FabricConfig FaultyConfig(uint64_t seed) {
  FabricConfig c = BaseConfig();
  c.paths = 8;
  c.routing = RoutingPolicy::kRandom;
  c.path_skew_ps = 300 * kNs;
  c.loss = 0.02;
  c.duplicate = 0.02;
  c.reorder = 0.02;
  c.corrupt = 0.02;
  c.seed = seed;
  return c;
}

std::vector<Arrival> RandomRun(uint64_t seed) {
  Bench b(FaultyConfig(seed), 4);
  for (uint16_t s = 0; s < 3; ++s) b.SendStream(s, 3, 300, 600, s * 7 * kNs);
  b.RunAll();
  return b.sinks[3]->arrivals;
}

TEST(SwitchFabricTest, SameSeedReplaysTheArrivalSequenceExactly) {
  const std::vector<Arrival> first = RandomRun(7);
  const std::vector<Arrival> second = RandomRun(7);
  ASSERT_FALSE(first.empty());
  EXPECT_TRUE(first == second);
}

TEST(SwitchFabricTest, DifferentSeedGivesADifferentArrivalSequence) {
  EXPECT_FALSE(RandomRun(7) == RandomRun(8));
}

TEST(SwitchFabricTest, HoldingLeavesEveryRoutingAndFaultDrawUnchanged) {
  // The same faulty run with and without the hold (all held frames released at the end)
  // routes the same frames the same way, with the same faults: only timing differs.
  auto run = [](double hold, FabricCounters* counters) {
    FabricConfig c = FaultyConfig(7);
    c.port_buffer_bytes = 0;  // so late releases cannot change what fits
    Bench b(c, 4);
    b.fabric.SetHoldFraction(hold);
    for (uint16_t s = 0; s < 3; ++s) b.SendStream(s, 3, 300, 600, s * 7 * kNs);
    b.RunAll();
    b.fabric.ReleaseHeld();
    b.RunAll();
    *counters = b.fabric.counters();
    std::vector<std::vector<uint8_t>> frames;
    for (const Arrival& a : b.sinks[3]->arrivals) frames.push_back(a.bytes);
    std::sort(frames.begin(), frames.end());
    return frames;
  };
  FabricCounters plain, holding;
  const std::vector<std::vector<uint8_t>> without = run(0, &plain);
  const std::vector<std::vector<uint8_t>> with = run(0.3, &holding);
  EXPECT_EQ(plain.frames_held, 0u);
  EXPECT_GT(holding.frames_held, 100u);
  EXPECT_EQ(with, without);
  EXPECT_EQ(holding.frames_routed, plain.frames_routed);
  EXPECT_EQ(holding.frames_per_path, plain.frames_per_path);
  EXPECT_EQ(holding.frames_duplicated, plain.frames_duplicated);
  EXPECT_EQ(holding.frames_reordered, plain.frames_reordered);
  EXPECT_EQ(holding.frames_corrupted, plain.frames_corrupted);
  EXPECT_EQ(holding.drops, plain.drops);
  EXPECT_GT(plain.drops.at("fabric_loss"), 0u);
  EXPECT_GT(plain.frames_corrupted, 0u);
}

// ---------------------------------------------------------------------------------------------
// Parameters

TEST(FabricParamsTest, PathDownListIsNoneOrTriples) {
  Result<std::vector<PathOutage>> none = PathOutagesFromList({-1}, 4);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  Result<std::vector<PathOutage>> two = PathOutagesFromList({1, 100, 200, 3, 50, -1}, 4);
  ASSERT_TRUE(two.ok()) << two.status().message();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].plane, 1u);
  EXPECT_EQ((*two)[0].down_at_ps, 100 * kNs);
  EXPECT_EQ((*two)[0].up_at_ps, 200 * kNs);
  EXPECT_EQ((*two)[1].up_at_ps, PathOutage::kNever);
  EXPECT_EQ(PathOutagesFromList({1, 100}, 4).status().message(),
            "fabric.path_down: expected [-1] or triples [plane, down_at_ns, up_at_ns, ...], got 2 "
            "numbers");
  EXPECT_EQ(PathOutagesFromList({4, 100, 200}, 4).status().message(),
            "fabric.path_down[0]: plane 4 is not in [0, fabric.paths) = [0, 4)");
  EXPECT_EQ(PathOutagesFromList({0, 100, 200, 1, 300, 300}, 4).status().message(),
            "fabric.path_down[1]: up_at_ns must be after down_at_ns (or -1 for never), got 300");
}

TEST(FabricParamsTest, ScenarioParamsReachTheFabricConfig) {
  ParamValues p = ParamValues::Defaults();
  Result<ClusterConfig> defaults = ClusterConfigFromParams(p);
  ASSERT_TRUE(defaults.ok()) << defaults.status().message();
  EXPECT_EQ(defaults->fabric.paths, 4u);
  EXPECT_EQ(defaults->fabric.routing, RoutingPolicy::kRoundRobin);
  EXPECT_EQ(defaults->fabric.link_delay_ps, 50 * kNs);
  EXPECT_EQ(defaults->fabric.path_skew_ps, 0u);
  EXPECT_EQ(defaults->fabric.port_buffer_bytes, 1024u * 1024);
  EXPECT_TRUE(defaults->fabric.outages.empty());
  for (auto [name, text] :
       std::vector<std::pair<const char*, const char*>>{{"fabric.paths", "4"},
                                                        {"fabric.routing", "round_robin"},
                                                        {"fabric.path_skew", "1us"},
                                                        {"fabric.link_delay", "20ns"},
                                                        {"fabric.port_buffer", "16KiB"},
                                                        {"fabric.path_down", "[3, 1000, 2000]"}}) {
    ASSERT_TRUE(p.SetFromText(name, text).ok()) << name;
  }
  Result<ClusterConfig> c = ClusterConfigFromParams(p);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->fabric.paths, 4u);
  EXPECT_EQ(c->fabric.routing, RoutingPolicy::kRoundRobin);
  EXPECT_EQ(c->fabric.path_skew_ps, 1000 * kNs);
  EXPECT_EQ(c->fabric.link_delay_ps, 20 * kNs);
  EXPECT_EQ(c->fabric.port_buffer_bytes, 16u * 1024);
  ASSERT_EQ(c->fabric.outages.size(), 1u);
  EXPECT_EQ(c->fabric.outages[0].plane, 3u);
  EXPECT_EQ(c->fabric.outages[0].down_at_ps, 1000 * kNs);
  ASSERT_TRUE(p.SetFromText("fabric.paths", "2").ok());
  EXPECT_EQ(ClusterConfigFromParams(p).status().message(),
            "fabric.path_down[0]: plane 3 is not in [0, fabric.paths) = [0, 2)");
}

// ---------------------------------------------------------------------------------------------
// Per-path streams

/** What adapter 1 receives from adapter 0 under every fault, with or without other traffic. */
std::vector<Arrival> PathUnderFaults(uint64_t seed, bool other_traffic) {
  // FaultyConfig's random planes, with every fault five times as likely.
  FabricConfig c = FaultyConfig(seed);
  c.loss = c.duplicate = c.reorder = c.corrupt = 0.1;
  c.port_buffer_bytes = 0;
  Bench b(c, 4);
  constexpr uint32_t kSize = 300;
  constexpr uint32_t kFrames = 200;
  for (uint32_t i = 0; i < kFrames; ++i) {
    // Other paths' frames leave at the same times and are routed first (scheduled first).
    if (other_traffic) {
      b.SendAt(i * b.WirePs(kSize), 2, 3, i, kSize);
      b.SendAt(i * b.WirePs(kSize), 0, 2, i, kSize);
    }
    b.SendAt(i * b.WirePs(kSize), 0, 1, i, kSize);
  }
  b.RunAll();
  return b.sinks[1]->arrivals;
}

TEST(SwitchFabricTest, APathDrawsTheSameFaultsWhateverOtherPathsCarry) {
  // Other paths' traffic (from another source, and from the same source to another
  // destination) takes draws in between; the path 0 -> 1 must see exactly the same losses,
  // copies, delays, flipped bits and planes.
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<Arrival> alone = PathUnderFaults(seed, false);
    ASSERT_GT(alone.size(), 150u);
    ASSERT_LT(alone.size(), 250u);
    EXPECT_TRUE(PathUnderFaults(seed, true) == alone);
  }
}

}  // namespace
}  // namespace nicsim::sim
