// SPDX-License-Identifier: Apache-2.0
// A switch fabric on its own event queue with recording sinks, for the fabric tests: frames
// are sent by hand and every arrival is kept with its time, plane and sequence number.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "hw/common/frame_codec.h"
#include "kernel/event_queue.h"
#include "sim/fabric/switch_fabric.h"

namespace nicsim::sim {

inline constexpr uint64_t kNs = 1000;

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
  explicit RecordingSink(kernel::EventQueue& events) : events_(events) {}
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
  kernel::EventQueue& events_;
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

  kernel::EventQueue events;
  SwitchFabric fabric;
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  std::vector<hw::FabricLink*> ports;
};

inline FabricConfig BaseConfig() {
  FabricConfig c;
  c.hop_latency_ps = 300 * kNs;
  c.link_delay_ps = 50 * kNs;
  c.link_ps_per_byte = 500.0;
  return c;
}

inline size_t Inversions(const std::vector<Arrival>& arrivals) {
  size_t n = 0;
  for (size_t i = 1; i < arrivals.size(); ++i) n += arrivals[i].seq < arrivals[i - 1].seq;
  return n;
}

/** Every seq in [0, count) arrived exactly once. */
inline void ExpectEachOnce(const std::vector<Arrival>& arrivals, uint32_t count) {
  std::map<uint32_t, int> seen;
  for (const Arrival& a : arrivals) ++seen[a.seq];
  EXPECT_EQ(arrivals.size(), count);
  ASSERT_EQ(seen.size(), count);
  for (const auto& [seq, n] : seen) {
    EXPECT_LT(seq, count);
    EXPECT_EQ(n, 1) << "seq " << seq;
  }
}

}  // namespace nicsim::sim
