// SPDX-License-Identifier: Apache-2.0
// Tests for the switch fabric: exact idle timing, multi-path routing policies and the
// reordering they cause, path outages, finite output buffers, broadcast replication, the
// trickle hold, replay, and end to end runs.
#include "sim/fabric/switch_fabric.h"

#include <gtest/gtest.h>

#include "tests/support/backends.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "abi/rdma.h"
#include "base/rng.h"
#include "hw/common/frame_codec.h"
#include "hw/func/event_queue.h"
#include "sim/cluster.h"
#include "sim/run_scenario.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

constexpr uint64_t kNs = 1000;

/** One frame as a sink saw it. */
struct Arrival {
  uint64_t time_ps;
  uint16_t src;
  uint32_t seq;
  /** When the sender says the frame's last byte left it (carried in the frame). */
  uint64_t depart_ps;
  std::vector<uint8_t> bytes;
  /** The adapter the fabric routed the frame to (Frame::dest_adapter). */
  uint16_t dest = 0;
  bool operator==(const Arrival& o) const {
    return time_ps == o.time_ps && src == o.src && seq == o.seq && bytes == o.bytes;
  }
};

/** A LinkSink that records every frame with its arrival time. */
class RecordingSink final : public hw::LinkSink {
 public:
  explicit RecordingSink(hw::func::EventQueue& events) : events_(events) {}
  void Receive(hw::Frame frame) override {
    Arrival a{events_.now_ps(), frame.src_adapter, 0, 0, frame.bytes, frame.dest_adapter};
    if (frame.bytes.size() >= 12) {
      std::memcpy(&a.seq, frame.bytes.data(), 4);
      std::memcpy(&a.depart_ps, frame.bytes.data() + 4, 8);
    }
    arrivals.push_back(std::move(a));
  }
  std::vector<Arrival> arrivals;

 private:
  hw::func::EventQueue& events_;
};

/** A fabric on a bare event queue with `adapters` recording sinks attached. */
class Bench {
 public:
  Bench(const FabricConfig& config, uint16_t adapters) : fabric(events, config) {
    for (uint16_t a = 0; a < adapters; ++a) {
      sinks.push_back(std::make_unique<RecordingSink>(events));
      ports.push_back(fabric.Attach(a, sinks.back().get()));
    }
  }

  /** The bytes SendAt puts in frame `seq` of `size` bytes from `src` leaving at `depart`. */
  static std::vector<uint8_t> FrameBytes(uint16_t src, uint32_t seq, uint32_t size,
                                         uint64_t depart) {
    std::vector<uint8_t> bytes(size, static_cast<uint8_t>(seq * 7 + src));
    std::memcpy(bytes.data(), &seq, 4);
    std::memcpy(bytes.data() + 4, &depart, 8);
    return bytes;
  }

  /** Picoseconds to serialise `bytes` onto a link. */
  uint64_t WirePs(uint64_t bytes) const {
    return static_cast<uint64_t>(bytes * fabric.config().link_ps_per_byte);
  }

  /**
   * At `send_ps`, adapter `src` starts sending frame `seq` of `size` bytes to `dest`, as an
   * adapter does: its last byte leaves one serialisation time later.
   */
  void SendAt(uint64_t send_ps, uint16_t src, uint16_t dest, uint32_t seq, uint32_t size) {
    events.At(send_ps, [this, src, dest, seq, size] {
      hw::Frame f;
      f.src_adapter = src;
      f.dest_adapter = dest;
      const uint64_t depart = events.now_ps() + WirePs(size);
      f.bytes = FrameBytes(src, seq, size, depart);
      ports[src]->Send(std::move(f), depart);
    });
  }

  /** `count` back-to-back frames from `src` to `dest`, the first starting at `first_ps`. */
  void SendStream(uint16_t src, uint16_t dest, uint32_t count, uint32_t size,
                  uint64_t first_ps = 0) {
    for (uint32_t i = 0; i < count; ++i) SendAt(first_ps + i * WirePs(size), src, dest, i, size);
  }

  void RunAll() {
    events.RunWhile([] { return true; });
  }

  /** Delivery time of a frame that met no queue: uplink, hop, downlink, plane skew. */
  uint64_t IdleTransitPs(uint32_t plane) const {
    const FabricConfig& c = fabric.config();
    return 2 * c.link_delay_ps + c.hop_latency_ps + plane * c.path_skew_ps;
  }

  hw::func::EventQueue events;
  SwitchFabric fabric;
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  std::vector<hw::FabricPort*> ports;
};

FabricConfig BaseConfig() {
  FabricConfig c;
  c.hop_latency_ps = 300 * kNs;
  c.link_delay_ps = 50 * kNs;
  c.link_ps_per_byte = 500.0;
  return c;
}

size_t Inversions(const std::vector<Arrival>& arrivals) {
  size_t n = 0;
  for (size_t i = 1; i < arrivals.size(); ++i) n += arrivals[i].seq < arrivals[i - 1].seq;
  return n;
}

/** Every seq in [0, count) arrived exactly once. */
void ExpectEachOnce(const std::vector<Arrival>& arrivals, uint32_t count) {
  std::map<uint32_t, int> seen;
  for (const Arrival& a : arrivals) ++seen[a.seq];
  EXPECT_EQ(arrivals.size(), count);
  ASSERT_EQ(seen.size(), count);
  for (const auto& [seq, n] : seen) {
    EXPECT_LT(seq, count);
    EXPECT_EQ(n, 1) << "seq " << seq;
  }
}

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
  EXPECT_EQ(b.sinks[1]->arrivals[1].time_ps,
            100'000 * kNs + b.WirePs(kSize) + b.IdleTransitPs(0));
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
  // taken in adapter id order from the fabric's stream.
  Rng replay(c.seed, "fabric");
  uint64_t lost = 0;
  for (uint16_t d = 1; d < kAdapters; ++d) {
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
  EXPECT_EQ(b.fabric.counters().drops,
            (std::map<std::string, uint64_t>{{"port_buffer_full", 1}}));
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
  EXPECT_EQ(b.fabric.counters().drops,
            (std::map<std::string, uint64_t>{{"port_buffer_full", 1}}));
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
  Rng replay(c.seed, "fabric.hold");
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
// End to end through a cluster

std::unique_ptr<Cluster> MakeCluster(const ClusterConfig& config) {
  Result<std::unique_ptr<Cluster>> c = Cluster::Create(config);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(*c) : nullptr;
}

ClusterConfig SkewedFourPathConfig(RoutingPolicy policy) {
  ClusterConfig config;
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
  Result<std::pair<Endpoint*, Endpoint*>> pair = PickPair(*cluster);
  ASSERT_TRUE(pair.ok());
  Endpoint& a = *pair->first;
  Endpoint& b = *pair->second;
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

}  // namespace
}  // namespace nicsim::sim
