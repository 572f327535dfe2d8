// SPDX-License-Identifier: Apache-2.0
// The switch fabric: 1..16 independent planes, each one switch stage with a link to every
// adapter, finite output-port buffers, per-packet path choice, broadcast replication, seeded
// faults, and a test hook that holds frames back inside the network.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/counter_table.h"
#include "base/rng.h"
#include "base/status.h"
#include "hw/common/link.h"
#include "kernel/event_queue.h"
#include "sim/config/fault_rules.h"
#include "sim/fabric/hand_over.h"
#include "sim/fabric/keyed_streams.h"

namespace nicsim::sim {

class FrameCapture;

/** Most planes (independent paths) a fabric can have. */
inline constexpr uint32_t kMaxFabricPaths = 16;

/** How a frame's plane is chosen, per packet. */
enum class RoutingPolicy {
  /** plane = FixedPlane(src, dest): one plane per adapter pair, even when it is down. */
  kFixed,
  /** Each source adapter cycles through the planes, skipping planes that are down. */
  kRoundRobin,
  /** A uniform draw from the path's seeded stream among the planes that are up. */
  kRandom,
};

/** "fixed", "round_robin" or "random". */
std::string_view ToString(RoutingPolicy policy);

/** Fabric parameters. */
struct FabricConfig {
  /**
   * Latency through one plane's switch to its output queue: from the frame's last byte in
   * (store and forward), or from its header in when cut_through is set.
   */
  uint64_t hop_latency_ps = 300'000;
  /** Cut-through switching: a frame is forwarded once its header has arrived. */
  bool cut_through = false;
  /** Serialisation time of one byte on any link (the link bandwidth). */
  double link_ps_per_byte = 500.0;
  /** Propagation delay of one link (adapter to switch, or switch to adapter). */
  uint64_t link_delay_ps = 50'000;
  /** Independent planes, 1..kMaxFabricPaths; every adapter has one link into each. */
  uint32_t paths = 1;
  /** How each frame picks its plane. */
  RoutingPolicy routing = RoutingPolicy::kFixed;
  /** Plane p adds p * path_skew_ps to the propagation delay of every frame through it. */
  uint64_t path_skew_ps = 0;
  /** Bytes each output port (plane x destination) can hold, the frame on the wire included;
   *  0 means unlimited. */
  uint64_t port_buffer_bytes = 1024 * 1024;
  /**
   * Scheduled plane outages. They are read when frames are routed, not run as events, so a
   * late outage does not stretch a run's simulated time.
   */
  std::vector<PathOutage> outages;
  double loss = 0;
  double duplicate = 0;
  double reorder = 0;
  double corrupt = 0;
  /**
   * Faults of single paths and single adapters' links, drawn after the fabric-wide ones (and
   * only where a rate is set, so without rules the draws are as before).
   */
  std::vector<FaultRule> fault_rules;
  uint64_t reorder_delay_ps = 2'000'000;
  uint64_t seed = 1;
};

/** Why the fabric dropped a frame (kFabricDrops says each). */
enum class FabricDrop : uint8_t {
  kFabricLoss,
  kLinkLoss,
  kNoRoute,
  kPathDown,
  kPathLoss,
  kPortBufferFull,
  kCount,
};

/** Each FabricDrop, in enum order: its key in stats.json's drops table and its meaning. */
inline constexpr std::array<CounterDoc, static_cast<size_t>(FabricDrop::kCount)> kFabricDrops = {{
    {"fabric_loss", "fabric.loss: lost anywhere on the way"},
    {"link_loss", "a link fault rule's loss (the source's or the destination's link)"},
    {"no_route", "no adapter attached at the destination"},
    {"path_down", "the plane it was routed to is down"},
    {"path_loss", "a plane fault rule's loss"},
    {"port_buffer_full", "the output port's buffer had no room (fabric.port_buffer)"},
}};

inline constexpr auto kFabricDropNames = NamesOf(kFabricDrops);

constexpr std::string_view ToString(FabricDrop reason) {
  return kFabricDropNames[static_cast<size_t>(reason)];
}

/** Fabric counters; drops are keyed by kFabricDropNames and hold only reasons that happened. */
struct FabricCounters {
  /** Frames that entered a plane (not lost to loss or a down plane at routing). */
  uint64_t frames_routed = 0;
  /** frames_routed split by plane; one entry per plane. */
  std::vector<uint64_t> frames_per_path;
  uint64_t frames_duplicated = 0;
  uint64_t frames_reordered = 0;
  uint64_t frames_corrupted = 0;
  /** Most bytes any one output port held at once (to size fabric.port_buffer). */
  uint64_t port_buffer_peak_bytes = 0;
  /**
   * Broadcast frames (dest abi::kBroadcastAdapter) that entered the fabric, counted once
   * each; their per-destination copies are then counted like unicast frames.
   */
  uint64_t frames_broadcast = 0;
  /** Frames the trickle hold kept aside at an output port (SetHoldFraction). */
  uint64_t frames_held = 0;
  std::map<std::string, uint64_t> drops;
};

/**
 * A fabric of `paths` single-stage switch planes connecting every adapter port.
 *
 * A frame sent to abi::kBroadcastAdapter (abi/rdma.h) is replicated by the switch to every
 * attached adapter but its source, in adapter id order. Each copy is routed as a unicast
 * frame to its adapter (its own plane choice, fault draws and output-port admission) and
 * carries that adapter in Frame::dest_adapter; its bytes, wire header included, are the
 * original's. Any other destination that is not attached is dropped as "no_route".
 */
class SwitchFabric {
 public:
  SwitchFabric(kernel::EventQueue& events, const FabricConfig& config);
  ~SwitchFabric();

  /**
   * Attaches an adapter: returns the port it transmits into. Ids must be 0, 1, 2, ... and
   * never abi::kBroadcastAdapter. `owner` is the event owner of the adapter's node: a frame
   * for the adapter is handed to it when it reaches the adapter's output port, so the port's
   * queue and everything after it run as that node (docs/architecture.md, "Event order").
   */
  hw::FabricLink* Attach(uint16_t adapter_id, hw::LinkSink* sink,
                         kernel::EventQueue::Owner owner = kernel::EventQueue::kGlobalOwner);
  /** Delivers a raw frame to an adapter as if it came off the fabric (for tests). */
  void InjectRaw(uint16_t dest_adapter, std::vector<uint8_t> bytes);

  /**
   * Takes a plane down or brings it back, from now on. A plane is down while this holds it
   * down or a scheduled outage covers the time. Routing checks a plane's state when a frame
   * is routed; frames already inside a plane when it goes down drain normally.
   */
  void SetPathDown(uint32_t plane, bool down);
  /** True while `plane` is down (now, by SetPathDown or a scheduled outage). */
  bool path_down(uint32_t plane) const;

  /**
   * Captures every frame handed to a destination adapter into `capture` (null: stop), at its
   * arrival time and as it arrives: duplicates and corrupted bytes included; only the frames
   * the writer Wants() (its TraceSelection). Not owned.
   */
  void SetCapture(FrameCapture* capture) { capture_ = capture; }

  /**
   * Test hook modelling trickle traffic stuck in the network (across an adapter recovery or
   * a node reboot): while `fraction` (in [0, 1]) is above 0, each frame reaching an output
   * port is kept aside instead with that probability, drawn from the port's own "fabric.hold/"
   * stream (one per destination adapter), so the routing and fault draws stay as they were. Held
   * frames take no buffer space and wait, in arrival order, for ReleaseHeld. At 0 (the default)
   * nothing is held and nothing is drawn; lowering the fraction does not release frames already
   * held.
   */
  void SetHoldFraction(double fraction);
  /**
   * Sends every held frame on from its output port now, in the order they were held, through
   * the normal output path (serialisation, buffer admission, faults drawn when it was routed);
   * none is held again. Returns how many were released.
   */
  size_t ReleaseHeld();
  /** Frames held now, waiting for ReleaseHeld. */
  size_t held() const { return held_.size(); }

  /**
   * A split run (docs/architecture.md, "Distribution over MPI"): this process runs the nodes
   * marked in `local` (indexed by node). A frame routed for another node goes to `outbox`
   * with its event key instead of into the queue; a frame sent by another node (its set-up
   * replayed here) is not routed at all, since its own process routes it. Not owned.
   */
  void SetPartition(const std::vector<uint8_t>* local, std::vector<HandOver>* outbox) {
    local_ = local;
    outbox_ = outbox;
  }
  /** A hand-over from another partition: runs at its time, with its key, as its node. */
  void Import(HandOver h);

  /** The plane the fixed policy gives frames from `src` to `dest` (a seed-free hash). */
  static uint32_t FixedPlane(uint16_t src, uint16_t dest, uint32_t paths);

  const FabricConfig& config() const { return config_; }
  const FabricCounters& counters() const { return counters_; }

 private:
  class AdapterLink;
  /** One output port of one plane's switch: a FIFO onto the link to one adapter. */
  struct OutputPort {
    /** When the link finishes sending the last queued frame. */
    uint64_t busy_until_ps = 0;
    /** Frames still in the buffer: when each one's last byte leaves, and its size. */
    std::deque<std::pair<uint64_t, uint64_t>> queued;
    uint64_t queued_bytes = 0;
  };
  /** One plane: its state and its switch's output ports, indexed by adapter. */
  struct Plane {
    /** Held down by SetPathDown. */
    bool forced_down = false;
    /** Scheduled outages of this plane. */
    std::vector<PathOutage> outages;
    std::vector<OutputPort> out;
  };
  /** Per-frame fault decisions, drawn when the frame is routed. */
  struct Faults {
    bool corrupted = false;
    bool duplicate = false;
    bool reorder = false;
    /** How long a reordered frame is held back (the longest of the faults that fired). */
    uint64_t reorder_delay_ps = 0;
  };
  /** A frame the trickle hold kept aside at one plane's output port. */
  struct HeldFrame {
    uint32_t plane;
    hw::Frame frame;
    Faults faults;
  };

  /** Entry from an adapter's port: replicates a broadcast frame, routes any other one. */
  void Route(hw::Frame frame, uint64_t depart_ps);
  /** Routes one copy of a broadcast frame to every attached adapter but its source. */
  void Broadcast(const hw::Frame& frame, uint64_t depart_ps);
  /** One frame to one adapter: draws routing and faults, then crosses the uplink. */
  void RouteUnicast(hw::Frame frame, uint64_t depart_ps);
  /** A rule's rates with its reorder delay filled in (fabric.reorder_delay if it has none). */
  FaultRates Resolved(const FaultRates& rates) const;
  /** Flips one bit of the frame drawn from `rng` (its CRC then fails at the receiver). */
  void Corrupt(Rng& rng, hw::Frame& frame, Faults& faults);
  /**
   * Draws the faults of the rules covering this frame's source link, plane and destination
   * link, in that order; false if the frame is lost (counted).
   */
  bool DrawScopedFaults(Rng& rng, hw::Frame& frame, uint32_t plane, Faults& faults);
  /** The plane for this frame, or kNoPlane when the policy finds none that is up. */
  uint32_t ChoosePlane(Rng& rng, uint16_t src, uint16_t dest);
  /**
   * The stream of the path from `src` to `dest`: every routing and fault draw of a frame on
   * that path comes from it, so a path draws the same whatever other paths carry and
   * whichever of their frames were routed first (or in which process).
   */
  Rng& PathRng(uint16_t src, uint16_t dest);
  /** At the plane's output port: hold the frame back (SetHoldFraction) or Transmit it. */
  void Forward(uint32_t plane, hw::Frame frame, Faults faults);
  /** Out of the plane's output port: admit into the buffer or drop, then send downstream. */
  void Transmit(uint32_t plane, hw::Frame frame, Faults faults);
  void Deliver(hw::Frame frame, uint64_t arrive_ps);
  void Drop(FabricDrop reason) { ++counters_.drops[std::string(ToString(reason))]; }

  static constexpr uint32_t kNoPlane = std::numeric_limits<uint32_t>::max();

  kernel::EventQueue& events_;
  FabricConfig config_;
  /** One stream per (source, destination) path ("fabric.path/" + (src << 16 | dest)). */
  KeyedStreams path_rngs_;
  /** False when no rate is set and routing is not random: then nothing is ever drawn. */
  bool draws_ = false;
  /** Handed out instead of a path's stream when nothing is drawn (never drawn from). */
  Rng no_draws_;
  std::vector<std::unique_ptr<AdapterLink>> links_;
  std::vector<hw::LinkSink*> sinks_;
  /** The event owner of each adapter's node, indexed like sinks_. */
  std::vector<kernel::EventQueue::Owner> owners_;
  /** Split runs: the nodes this process runs, and where frames for the others go. */
  const std::vector<uint8_t>* local_ = nullptr;
  std::vector<HandOver>* outbox_ = nullptr;
  std::vector<Plane> planes_;
  /** fabric.faults rates per plane (path rules), and per adapter and plane (link rules). */
  std::vector<FaultRates> path_faults_;
  std::vector<std::vector<FaultRates>> link_faults_;
  /** Round-robin policy: the next plane each source adapter tries. */
  std::vector<uint32_t> next_plane_;
  FabricCounters counters_;
  /** Where delivered frames are captured; null when not capturing. */
  FrameCapture* capture_ = nullptr;
  /** SetHoldFraction's probability; 0 holds nothing and draws nothing. */
  double hold_fraction_ = 0;
  /** The hold's own streams, one per destination adapter, apart from the paths' streams. */
  KeyedStreams hold_rngs_;
  /** Frames held back, in the order they reached their output ports. */
  std::vector<HeldFrame> held_;
};

}  // namespace nicsim::sim
