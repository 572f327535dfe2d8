// SPDX-License-Identifier: Apache-2.0
// Switch fabric tests: broadcast replication (each copy routed, faulted and buffered on its
// own) and the trickle hold that keeps frames back until released.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "abi/rdma.h"
#include "base/rng.h"
#include "hw/common/frame_codec.h"
#include "sim/fabric/switch_fabric.h"
#include "tests/fabric/fabric_bench.h"

namespace nicsim::sim {
namespace {

// ---------------------------------------------------------------------------------------------
// Broadcast

TEST(SwitchFabricTest, BroadcastReachesEveryAdapterButItsSourceWithItsOwnDest) {
  Bench b(BaseConfig(), 4);
  constexpr uint32_t kSize = 300;
  b.SendAt(0, 1, abi::kBroadcastAdapter, 5, kSize);
  b.RunAll();
  const std::vector<uint8_t> sent = Bench::FrameBytes(1, 5, kSize, b.WirePs(kSize));
  EXPECT_TRUE(b.sinks[1]->arrivals.empty()) << "the source gets no copy";
  for (uint16_t d : {0, 2, 3}) {
    SCOPED_TRACE(d);
    ASSERT_EQ(b.sinks[d]->arrivals.size(), 1u);
    const Arrival& a = b.sinks[d]->arrivals[0];
    EXPECT_EQ(a.dest, d);
    EXPECT_EQ(a.src, 1u);
    EXPECT_EQ(a.bytes, sent);
    // Each copy has its own output port, so none waits for another.
    EXPECT_EQ(a.time_ps, b.WirePs(kSize) + b.IdleTransitPs(0));
  }
  const FabricCounters& n = b.fabric.counters();
  EXPECT_EQ(n.frames_broadcast, 1u);
  EXPECT_EQ(n.frames_routed, 3u);
  EXPECT_EQ(n.frames_per_path, (std::vector<uint64_t>{3}));
  EXPECT_TRUE(n.drops.empty());
}

TEST(SwitchFabricTest, BroadcastCopiesKeepTheWireHeaderAndItsBroadcastDest) {
  Bench b(BaseConfig(), 3);
  abi::WireHeader h{};
  h.dest_adapter = abi::kBroadcastAdapter;
  h.src_adapter = 2;
  h.len_bytes = 64;
  h.ulp_word = 0xC0FFEE;
  std::vector<uint8_t> payload(64);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 3);
  const std::vector<uint8_t> wire = hw::EncodeFrame(h, payload.data(), 64);
  b.events.At(0, [&] {
    hw::Frame f;
    f.dest_adapter = abi::kBroadcastAdapter;
    f.bytes = wire;
    b.ports[2]->Send(std::move(f), b.WirePs(wire.size()));
  });
  b.RunAll();
  EXPECT_TRUE(b.sinks[2]->arrivals.empty());
  for (uint16_t d : {0, 1}) {
    SCOPED_TRACE(d);
    ASSERT_EQ(b.sinks[d]->arrivals.size(), 1u);
    const Arrival& a = b.sinks[d]->arrivals[0];
    EXPECT_EQ(a.dest, d);
    EXPECT_EQ(a.src, 2u);
    EXPECT_EQ(a.bytes, wire);
    abi::WireHeader got;
    std::memcpy(&got, a.bytes.data(), sizeof(got));
    EXPECT_EQ(got.dest_adapter, abi::kBroadcastAdapter);
    EXPECT_TRUE(hw::FrameCrcOk(a.bytes.data(), a.bytes.size()));
  }
  EXPECT_EQ(b.fabric.counters().frames_broadcast, 1u);
  EXPECT_EQ(b.fabric.counters().frames_routed, 2u);
}

TEST(SwitchFabricTest, EachBroadcastCopyTakesItsOwnRoundRobinPlane) {
  FabricConfig c = BaseConfig();
  c.paths = 4;
  c.routing = RoutingPolicy::kRoundRobin;
  c.path_skew_ps = 700 * kNs;
  Bench b(c, 5);
  constexpr uint32_t kSize = 256;
  b.SendAt(0, 0, abi::kBroadcastAdapter, 0, kSize);
  // Source 0's round robin went once round the planes: its next frame takes plane 0.
  b.SendAt(100'000 * kNs, 0, 1, 1, kSize);
  b.RunAll();
  EXPECT_TRUE(b.sinks[0]->arrivals.empty());
  for (uint16_t d = 1; d <= 4; ++d) {
    SCOPED_TRACE(d);
    // Copies go out in adapter id order: the copy to adapter d takes plane d - 1.
    ASSERT_EQ(b.sinks[d]->arrivals.size(), d == 1 ? 2u : 1u);
    EXPECT_EQ(b.sinks[d]->arrivals[0].seq, 0u);
    EXPECT_EQ(b.sinks[d]->arrivals[0].dest, d);
    EXPECT_EQ(b.sinks[d]->arrivals[0].time_ps, b.WirePs(kSize) + b.IdleTransitPs(d - 1));
  }
  EXPECT_EQ(b.sinks[1]->arrivals[1].seq, 1u);
  EXPECT_EQ(b.sinks[1]->arrivals[1].time_ps, 100'000 * kNs + b.WirePs(kSize) + b.IdleTransitPs(0));
  EXPECT_EQ(b.fabric.counters().frames_per_path, (std::vector<uint64_t>{2, 1, 1, 1}));
  EXPECT_EQ(b.fabric.counters().frames_broadcast, 1u);
  EXPECT_EQ(b.fabric.counters().frames_routed, 5u);
}

TEST(SwitchFabricTest, EachBroadcastCopyDrawsItsOwnLoss) {
  FabricConfig c = BaseConfig();
  c.loss = 0.5;
  c.seed = 11;
  constexpr uint16_t kAdapters = 9;
  Bench b(c, kAdapters);
  b.SendAt(0, 0, abi::kBroadcastAdapter, 0, 100);
  b.RunAll();
  // With one fixed plane and no other faults, the only draws are one loss draw per copy,
  // each the first draw of its own path's stream.
  uint64_t lost = 0;
  for (uint16_t d = 1; d < kAdapters; ++d) {
    Rng replay(c.seed, "fabric.path/" + std::to_string((0u << 16) | d));
    const bool dropped = replay.Chance(c.loss);
    lost += dropped;
    EXPECT_EQ(b.sinks[d]->arrivals.size(), dropped ? 0u : 1u) << "adapter " << d;
  }
  ASSERT_GT(lost, 0u);
  ASSERT_LT(lost, kAdapters - 1u);
  EXPECT_TRUE(b.sinks[0]->arrivals.empty());
  EXPECT_EQ(b.fabric.counters().drops, (std::map<std::string, uint64_t>{{"fabric_loss", lost}}));
  EXPECT_EQ(b.fabric.counters().frames_routed, kAdapters - 1u - lost);
  EXPECT_EQ(b.fabric.counters().frames_broadcast, 1u);
}

TEST(SwitchFabricTest, EachBroadcastCopyIsAdmittedByItsOwnOutputPort) {
  FabricConfig c = BaseConfig();
  constexpr uint32_t kSize = 1000;
  c.port_buffer_bytes = kSize;  // one frame per port
  Bench b(c, 4);
  // Adapter 1's frame fills port 3 just before the broadcast copy for adapter 3 gets there.
  b.SendAt(0, 1, 3, 0, kSize);
  b.SendAt(1, 0, abi::kBroadcastAdapter, 1, kSize);
  b.RunAll();
  EXPECT_EQ(b.fabric.counters().drops, (std::map<std::string, uint64_t>{{"port_buffer_full", 1}}));
  EXPECT_TRUE(b.sinks[0]->arrivals.empty());
  for (uint16_t d : {1, 2}) {
    ASSERT_EQ(b.sinks[d]->arrivals.size(), 1u) << d;
    EXPECT_EQ(b.sinks[d]->arrivals[0].src, 0u);
    EXPECT_EQ(b.sinks[d]->arrivals[0].dest, d);
    EXPECT_EQ(b.sinks[d]->arrivals[0].time_ps, 1 + b.WirePs(kSize) + b.IdleTransitPs(0));
  }
  ASSERT_EQ(b.sinks[3]->arrivals.size(), 1u);
  EXPECT_EQ(b.sinks[3]->arrivals[0].src, 1u);
  EXPECT_EQ(b.fabric.counters().frames_routed, 4u);
  EXPECT_EQ(b.fabric.counters().frames_broadcast, 1u);
}

TEST(SwitchFabricTest, BroadcastFromTheOnlyAdapterMakesNoCopy) {
  Bench b(BaseConfig(), 1);
  b.SendAt(0, 0, abi::kBroadcastAdapter, 0, 100);
  b.RunAll();
  EXPECT_TRUE(b.sinks[0]->arrivals.empty());
  EXPECT_EQ(b.fabric.counters().frames_broadcast, 1u);
  EXPECT_EQ(b.fabric.counters().frames_routed, 0u);
  EXPECT_TRUE(b.fabric.counters().drops.empty());
}

TEST(SwitchFabricTest, OtherUnattachedDestinationsAreStillNoRoute) {
  Bench b(BaseConfig(), 3);
  b.SendAt(0, 0, 3, 0, 100);
  b.SendAt(0, 1, 0xFFFE, 1, 100);
  b.RunAll();
  for (const auto& sink : b.sinks) EXPECT_TRUE(sink->arrivals.empty());
  EXPECT_EQ(b.fabric.counters().drops, (std::map<std::string, uint64_t>{{"no_route", 2}}));
  EXPECT_EQ(b.fabric.counters().frames_broadcast, 0u);
  EXPECT_EQ(b.fabric.counters().frames_routed, 0u);
}

// ---------------------------------------------------------------------------------------------
// Trickle hold

TEST(SwitchFabricTest, HoldFractionOneHoldsEveryFrameUntilReleased) {
  Bench b(BaseConfig(), 2);
  constexpr uint32_t kSize = 1000;
  b.fabric.SetHoldFraction(1.0);
  for (uint32_t i = 0; i < 3; ++i) b.SendAt(i * 100'000 * kNs, 0, 1, i, kSize);
  b.RunAll();
  EXPECT_TRUE(b.sinks[1]->arrivals.empty());
  EXPECT_EQ(b.fabric.held(), 3u);
  EXPECT_EQ(b.fabric.counters().frames_held, 3u);
  EXPECT_EQ(b.fabric.counters().frames_routed, 3u);
  EXPECT_EQ(b.fabric.counters().port_buffer_peak_bytes, 0u) << "held frames take no buffer";
  // Released together, they leave the output port back to back, in the order they came.
  const uint64_t release_ps = 1'000'000 * kNs;
  size_t released = 0;
  b.events.At(release_ps, [&] { released = b.fabric.ReleaseHeld(); });
  b.RunAll();
  EXPECT_EQ(released, 3u);
  EXPECT_EQ(b.fabric.held(), 0u);
  const std::vector<Arrival>& got = b.sinks[1]->arrivals;
  ASSERT_EQ(got.size(), 3u);
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(got[k].seq, k);
    EXPECT_EQ(got[k].dest, 1u);
    EXPECT_EQ(got[k].time_ps, release_ps + b.fabric.config().link_delay_ps + k * b.WirePs(kSize));
  }
  // The fraction is still 1, yet released frames are not held again.
  EXPECT_EQ(b.fabric.counters().frames_held, 3u);
  EXPECT_EQ(b.fabric.counters().port_buffer_peak_bytes, 3u * kSize);
  EXPECT_EQ(b.fabric.ReleaseHeld(), 0u);
  EXPECT_TRUE(b.fabric.counters().drops.empty());
}

TEST(SwitchFabricTest, ReleasedFramesMeetTheOutputPortBuffer) {
  FabricConfig c = BaseConfig();
  constexpr uint32_t kSize = 2000;
  c.port_buffer_bytes = 2 * kSize;
  Bench b(c, 2);
  b.fabric.SetHoldFraction(1.0);
  for (uint32_t i = 0; i < 3; ++i) b.SendAt(i * 100'000 * kNs, 0, 1, i, kSize);
  b.RunAll();
  ASSERT_EQ(b.fabric.held(), 3u);
  EXPECT_EQ(b.fabric.ReleaseHeld(), 3u);
  b.RunAll();
  const std::vector<Arrival>& got = b.sinks[1]->arrivals;
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].seq, 0u);
  EXPECT_EQ(got[1].seq, 1u);
  EXPECT_EQ(b.fabric.counters().drops, (std::map<std::string, uint64_t>{{"port_buffer_full", 1}}));
  EXPECT_EQ(b.fabric.counters().port_buffer_peak_bytes, 2u * kSize);
}

TEST(SwitchFabricTest, HoldDrawsFromItsOwnStreamAndOnlyWhileOn) {
  FabricConfig c = BaseConfig();
  c.seed = 5;
  Bench b(c, 2);
  constexpr uint32_t kSize = 500;
  constexpr uint32_t kOff = 5;
  constexpr uint32_t kOn = 20;
  constexpr uint64_t kGap = 100'000 * kNs;  // every frame meets an idle fabric
  for (uint32_t i = 0; i < kOff; ++i) b.SendAt(i * kGap, 0, 1, i, kSize);
  b.RunAll();
  ASSERT_EQ(b.sinks[1]->arrivals.size(), kOff);
  EXPECT_EQ(b.fabric.counters().frames_held, 0u);
  // The frames above drew nothing: the first frame held on is the stream's first draw.
  b.fabric.SetHoldFraction(0.5);
  const uint64_t start = b.events.now_ps() + kGap;
  for (uint32_t i = 0; i < kOn; ++i) b.SendAt(start + i * kGap, 0, 1, kOff + i, kSize);
  b.RunAll();
  Rng replay(c.seed, "fabric.hold/1");  // the output port to adapter 1
  std::vector<uint32_t> held, passed;
  for (uint32_t i = 0; i < kOn; ++i) (replay.Chance(0.5) ? held : passed).push_back(kOff + i);
  ASSERT_FALSE(held.empty());
  ASSERT_FALSE(passed.empty());
  EXPECT_EQ(b.fabric.held(), held.size());
  EXPECT_EQ(b.fabric.counters().frames_held, held.size());
  std::vector<uint32_t> got;
  for (size_t k = kOff; k < b.sinks[1]->arrivals.size(); ++k) {
    const Arrival& a = b.sinks[1]->arrivals[k];
    got.push_back(a.seq);
    EXPECT_EQ(a.time_ps, a.depart_ps + b.IdleTransitPs(0)) << "passed frames are not delayed";
  }
  EXPECT_EQ(got, passed);
  // Released, the held frames follow in the order they were held.
  b.fabric.SetHoldFraction(0);
  EXPECT_EQ(b.fabric.held(), held.size()) << "lowering the fraction releases nothing";
  EXPECT_EQ(b.fabric.ReleaseHeld(), held.size());
  b.RunAll();
  got.clear();
  for (size_t k = kOff + passed.size(); k < b.sinks[1]->arrivals.size(); ++k) {
    got.push_back(b.sinks[1]->arrivals[k].seq);
  }
  EXPECT_EQ(got, held);
}

TEST(SwitchFabricTest, HeldBroadcastCopiesReleaseToTheirOwnAdapters) {
  Bench b(BaseConfig(), 4);
  b.fabric.SetHoldFraction(1.0);
  b.SendAt(0, 2, abi::kBroadcastAdapter, 0, 100);
  b.RunAll();
  for (const auto& sink : b.sinks) EXPECT_TRUE(sink->arrivals.empty());
  EXPECT_EQ(b.fabric.held(), 3u);
  EXPECT_EQ(b.fabric.counters().frames_held, 3u);
  EXPECT_EQ(b.fabric.ReleaseHeld(), 3u);
  b.RunAll();
  EXPECT_TRUE(b.sinks[2]->arrivals.empty());
  for (uint16_t d : {0, 1, 3}) {
    ASSERT_EQ(b.sinks[d]->arrivals.size(), 1u) << d;
    EXPECT_EQ(b.sinks[d]->arrivals[0].dest, d);
    EXPECT_EQ(b.sinks[d]->arrivals[0].src, 2u);
  }
}

}  // namespace
}  // namespace nicsim::sim
