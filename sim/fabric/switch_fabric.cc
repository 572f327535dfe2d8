// SPDX-License-Identifier: Apache-2.0
// Switch fabric routing, broadcast replication, output-port buffering, fault injection and the
// trickle hold. Every random choice comes from a stream of the scenario seed of its own path
// (source and destination adapter) or output port, so runs replay exactly and a path's draws do
// not depend on other paths' traffic.
#include "sim/fabric/switch_fabric.h"

#include "abi/packet.h"

#include <algorithm>

#include "abi/rdma.h"
#include "base/check.h"
#include "hw/common/frame_codec.h"
#include "sim/fabric/frame_capture.h"

namespace nicsim::sim {

std::string_view ToString(RoutingPolicy policy) {
  switch (policy) {
    case RoutingPolicy::kFixed:
      return "fixed";
    case RoutingPolicy::kRoundRobin:
      return "round_robin";
    case RoutingPolicy::kRandom:
      return "random";
  }
  return "?";
}

/** The device-to-fabric side of one adapter's links (one into each plane). */
class SwitchFabric::AdapterLink final : public hw::FabricLink {
 public:
  AdapterLink(SwitchFabric& fabric, uint16_t adapter_id)
      : fabric_(fabric), adapter_id_(adapter_id) {}
  void Send(hw::Frame frame, uint64_t depart_ps) override {
    frame.src_adapter = adapter_id_;
    fabric_.Route(std::move(frame), depart_ps);
  }

 private:
  SwitchFabric& fabric_;
  uint16_t adapter_id_;
};

SwitchFabric::SwitchFabric(kernel::EventQueue& events, const FabricConfig& config)
    : events_(events),
      config_(config),
      path_rngs_(config.seed, "fabric.path/"),
      no_draws_(config.seed, "fabric.none"),
      hold_rngs_(config.seed, "fabric.hold/") {
  draws_ = config_.loss > 0 || config_.duplicate > 0 || config_.reorder > 0 ||
           config_.corrupt > 0 || config_.routing == RoutingPolicy::kRandom ||
           !config_.fault_rules.empty();
  NICSIM_CHECK(config_.paths >= 1 && config_.paths <= kMaxFabricPaths,
               "fabric paths must be in [1, %u], got %u", kMaxFabricPaths, config_.paths);
  planes_.resize(config_.paths);
  counters_.frames_per_path.assign(config_.paths, 0);
  path_faults_.resize(config_.paths);
  for (const FaultRule& r : config_.fault_rules) {
    NICSIM_CHECK(r.scope != FaultRule::Scope::kPath || r.id < config_.paths,
                 "fault rule for path %u of %u", r.id, config_.paths);
    if (r.scope == FaultRule::Scope::kPath) path_faults_[r.id].Combine(Resolved(r.rates));
  }
  for (const PathOutage& o : config_.outages) {
    NICSIM_CHECK(o.plane < config_.paths && o.up_at_ps > o.down_at_ps,
                 "bad outage: plane %u down at %llu ps up at %llu ps", o.plane,
                 static_cast<unsigned long long>(o.down_at_ps),
                 static_cast<unsigned long long>(o.up_at_ps));
    planes_[o.plane].outages.push_back(o);
  }
}

SwitchFabric::~SwitchFabric() = default;

hw::FabricLink* SwitchFabric::Attach(uint16_t adapter_id, hw::LinkSink* sink,
                                     kernel::EventQueue::Owner owner) {
  NICSIM_CHECK(adapter_id == sinks_.size(), "adapters must attach in id order");
  NICSIM_CHECK(adapter_id != abi::kBroadcastAdapter, "adapter id %u is the broadcast id",
               static_cast<unsigned>(adapter_id));
  sinks_.push_back(sink);
  owners_.push_back(owner);
  for (Plane& plane : planes_) plane.out.emplace_back();
  next_plane_.push_back(0);
  std::vector<FaultRates>& links = link_faults_.emplace_back(planes_.size());
  for (const FaultRule& r : config_.fault_rules) {
    if (r.scope != FaultRule::Scope::kLink || r.id != adapter_id) continue;
    for (uint32_t p = 0; p < links.size(); ++p) {
      if (r.plane == FaultRule::kAllPlanes || r.plane == p) links[p].Combine(Resolved(r.rates));
    }
  }
  links_.push_back(std::make_unique<AdapterLink>(*this, adapter_id));
  return links_.back().get();
}

void SwitchFabric::InjectRaw(uint16_t dest_adapter, std::vector<uint8_t> bytes) {
  hw::Frame frame;
  frame.dest_adapter = dest_adapter;
  frame.bytes = std::move(bytes);
  Deliver(std::move(frame), events_.now_ps());
}

void SwitchFabric::SetPathDown(uint32_t plane, bool down) {
  NICSIM_CHECK(plane < planes_.size(), "no fabric plane %u (paths = %zu)", plane, planes_.size());
  planes_[plane].forced_down = down;
}

void SwitchFabric::SetHoldFraction(double fraction) {
  NICSIM_CHECK(fraction >= 0 && fraction <= 1, "hold fraction must be in [0, 1], got %g", fraction);
  hold_fraction_ = fraction;
}

size_t SwitchFabric::ReleaseHeld() {
  // Taken out first: Transmit never holds, but the list must be empty whatever it does.
  std::vector<HeldFrame> held = std::move(held_);
  held_.clear();
  for (HeldFrame& h : held) Transmit(h.plane, std::move(h.frame), h.faults);
  return held.size();
}

bool SwitchFabric::path_down(uint32_t plane) const {
  NICSIM_CHECK(plane < planes_.size(), "no fabric plane %u (paths = %zu)", plane, planes_.size());
  const Plane& p = planes_[plane];
  if (p.forced_down) return true;
  // An outage covers [down_at, up_at): at its up time the plane routes again.
  const uint64_t now = events_.now_ps();
  for (const PathOutage& o : p.outages) {
    if (o.down_at_ps <= now && now < o.up_at_ps) return true;
  }
  return false;
}

uint32_t SwitchFabric::FixedPlane(uint16_t src, uint16_t dest, uint32_t paths) {
  // A fixed mix of the pair, not std::hash: the mapping must not depend on the library.
  uint64_t state = (uint64_t{src} << 16) | dest;
  return static_cast<uint32_t>(SplitMix64(state) % paths);
}

Rng& SwitchFabric::PathRng(uint16_t src, uint16_t dest) {
  return draws_ ? path_rngs_.For((uint64_t{src} << 16) | dest) : no_draws_;
}

uint32_t SwitchFabric::ChoosePlane(Rng& rng, uint16_t src, uint16_t dest) {
  const auto paths = static_cast<uint32_t>(planes_.size());
  switch (config_.routing) {
    case RoutingPolicy::kFixed: {
      // A fixed route does not know about failures: a down plane loses the pair's frames.
      const uint32_t p = FixedPlane(src, dest, paths);
      return path_down(p) ? kNoPlane : p;
    }
    case RoutingPolicy::kRoundRobin: {
      uint32_t& next = next_plane_[src];
      for (uint32_t i = 0; i < paths; ++i) {
        const uint32_t p = (next + i) % paths;
        if (!path_down(p)) {
          next = (p + 1) % paths;
          return p;
        }
      }
      return kNoPlane;
    }
    case RoutingPolicy::kRandom: {
      uint32_t up[kMaxFabricPaths];
      uint32_t n = 0;
      for (uint32_t p = 0; p < paths; ++p) {
        if (!path_down(p)) up[n++] = p;
      }
      // No draw when nothing is up: the stream advances only for real choices.
      return n == 0 ? kNoPlane : up[rng.Below(n)];
    }
  }
  return kNoPlane;
}

void SwitchFabric::Route(hw::Frame frame, uint64_t depart_ps) {
  // A split run replays every node's set-up; only the sender's own process routes its frames.
  if (local_ != nullptr && events_.owner() < local_->size() && (*local_)[events_.owner()] == 0) {
    return;
  }
  if (frame.dest_adapter == abi::kBroadcastAdapter) {
    Broadcast(frame, depart_ps);
    return;
  }
  RouteUnicast(std::move(frame), depart_ps);
}

void SwitchFabric::Broadcast(const hw::Frame& frame, uint64_t depart_ps) {
  ++counters_.frames_broadcast;
  // In id order; each copy draws from its own path's stream.
  for (size_t dest = 0; dest < sinks_.size(); ++dest) {
    if (dest == frame.src_adapter) continue;
    // Only the routing field changes: the wire header still names the broadcast id.
    hw::Frame copy = frame;
    copy.dest_adapter = static_cast<uint16_t>(dest);
    RouteUnicast(std::move(copy), depart_ps);
  }
}

void SwitchFabric::RouteUnicast(hw::Frame frame, uint64_t depart_ps) {
  if (frame.dest_adapter >= sinks_.size()) {
    Drop(FabricDrop::kNoRoute);
    return;
  }
  Rng& rng = PathRng(frame.src_adapter, frame.dest_adapter);
  if (rng.Chance(config_.loss)) {
    Drop(FabricDrop::kFabricLoss);
    return;
  }
  const uint32_t plane = ChoosePlane(rng, frame.src_adapter, frame.dest_adapter);
  if (plane == kNoPlane) {
    Drop(FabricDrop::kPathDown);
    return;
  }
  Faults faults;
  if (rng.Chance(config_.corrupt)) Corrupt(rng, frame, faults);
  faults.duplicate = rng.Chance(config_.duplicate);
  faults.reorder = rng.Chance(config_.reorder);
  if (faults.reorder) faults.reorder_delay_ps = config_.reorder_delay_ps;
  if (!config_.fault_rules.empty() && !DrawScopedFaults(rng, frame, plane, faults)) return;
  ++counters_.frames_routed;
  ++counters_.frames_per_path[plane];
  // Store and forward: the switch has the whole frame one link delay after its last byte
  // left the adapter, and the hop latency later it reaches the output port. Cut through: it
  // goes on once the header is in; with links of one speed the output never overtakes the
  // input.
  uint64_t in_ps = depart_ps;
  if (config_.cut_through) {
    const auto wire = static_cast<uint64_t>(frame.bytes.size() * config_.link_ps_per_byte);
    const auto header = static_cast<uint64_t>(
        std::min<size_t>(frame.bytes.size(), sizeof(abi::WireHeader)) * config_.link_ps_per_byte);
    in_ps = depart_ps - std::min(depart_ps, wire) + header;
  }
  const uint64_t at_output =
      in_ps + config_.link_delay_ps + plane * config_.path_skew_ps + config_.hop_latency_ps;
  // The hand-over to the destination's node: the output port and what follows are its state.
  // The event is keyed by the sender (the running owner), so its place among the
  // destination's events does not depend on when the destination's node ran.
  const kernel::EventQueue::Owner dest_owner = owners_[frame.dest_adapter];
  if (outbox_ != nullptr && dest_owner < local_->size() && (*local_)[dest_owner] == 0) {
    HandOver h;
    h.time_ps = at_output;
    h.tie = events_.TakeTie();
    h.runs_as = dest_owner;
    h.plane = plane;
    h.corrupted = faults.corrupted;
    h.duplicate = faults.duplicate;
    h.reorder = faults.reorder;
    h.reorder_delay_ps = faults.reorder_delay_ps;
    h.src_adapter = frame.src_adapter;
    h.dest_adapter = frame.dest_adapter;
    h.crc_deferred = frame.crc_deferred;
    h.bytes = std::move(frame.bytes);
    outbox_->push_back(std::move(h));
    return;
  }
  events_.AtFor(dest_owner, at_output, [this, plane, faults, f = std::move(frame)]() mutable {
    Forward(plane, std::move(f), faults);
  });
}

void SwitchFabric::Import(HandOver h) {
  hw::Frame frame;
  frame.bytes = std::move(h.bytes);
  frame.src_adapter = h.src_adapter;
  frame.dest_adapter = h.dest_adapter;
  frame.crc_deferred = h.crc_deferred;
  Faults faults;
  faults.corrupted = h.corrupted;
  faults.duplicate = h.duplicate;
  faults.reorder = h.reorder;
  faults.reorder_delay_ps = h.reorder_delay_ps;
  events_.AtKeyed(h.time_ps, h.tie, h.runs_as,
                  [this, plane = h.plane, faults, f = std::move(frame)]() mutable {
                    Forward(plane, std::move(f), faults);
                  });
}

FaultRates SwitchFabric::Resolved(const FaultRates& rates) const {
  FaultRates r = rates;
  if (r.reorder_delay_ps == 0) r.reorder_delay_ps = config_.reorder_delay_ps;
  return r;
}

void SwitchFabric::Corrupt(Rng& rng, hw::Frame& frame, Faults& faults) {
  if (frame.bytes.empty()) return;
  // Flip one bit somewhere in the frame; the receiving link's CRC check catches it.
  if (frame.crc_deferred) {
    hw::StampCrc(frame.bytes);
    frame.crc_deferred = false;
  }
  const uint64_t bit = rng.Below(frame.bytes.size() * 8);
  frame.bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  faults.corrupted = true;
}

bool SwitchFabric::DrawScopedFaults(Rng& rng, hw::Frame& frame, uint32_t plane, Faults& faults) {
  // The frame crosses its source's link into the plane, the plane's switch, then the link
  // out to its destination. Rates of 0 draw nothing (Rng::Chance).
  const FaultRates* crossed[3] = {&link_faults_[frame.src_adapter][plane], &path_faults_[plane],
                                  &link_faults_[frame.dest_adapter][plane]};
  constexpr FabricDrop kLossReason[3] = {FabricDrop::kLinkLoss, FabricDrop::kPathLoss,
                                         FabricDrop::kLinkLoss};
  for (int i = 0; i < 3; ++i) {
    if (rng.Chance(crossed[i]->loss)) {
      Drop(kLossReason[i]);
      return false;
    }
  }
  for (const FaultRates* rates : crossed) {
    // One flipped bit per frame is enough for its CRC to fail.
    if (rng.Chance(rates->corrupt) && !faults.corrupted) Corrupt(rng, frame, faults);
    faults.duplicate = rng.Chance(rates->duplicate) || faults.duplicate;
    if (rng.Chance(rates->reorder)) {
      faults.reorder = true;
      faults.reorder_delay_ps = std::max(faults.reorder_delay_ps, rates->reorder_delay_ps);
    }
  }
  return true;
}

void SwitchFabric::Forward(uint32_t plane, hw::Frame frame, Faults faults) {
  // No draw while the hold is off, so seeded runs replay exactly as without the hook.
  if (hold_fraction_ > 0 && hold_rngs_.For(frame.dest_adapter).Chance(hold_fraction_)) {
    ++counters_.frames_held;
    held_.push_back({plane, std::move(frame), faults});
    return;
  }
  Transmit(plane, std::move(frame), faults);
}

void SwitchFabric::Transmit(uint32_t plane, hw::Frame frame, Faults faults) {
  OutputPort& port = planes_[plane].out[frame.dest_adapter];
  const uint64_t now = events_.now_ps();
  // Frames whose last byte has left no longer hold buffer space.
  while (!port.queued.empty() && port.queued.front().first <= now) {
    port.queued_bytes -= port.queued.front().second;
    port.queued.pop_front();
  }
  const uint64_t bytes = frame.bytes.size();
  if (config_.port_buffer_bytes != 0 && port.queued_bytes + bytes > config_.port_buffer_bytes) {
    Drop(FabricDrop::kPortBufferFull);
    return;
  }
  const uint64_t wire_ps = static_cast<uint64_t>(bytes * config_.link_ps_per_byte);
  const uint64_t start = std::max(now, port.busy_until_ps);
  port.busy_until_ps = start + wire_ps;
  port.queued.emplace_back(port.busy_until_ps, bytes);
  port.queued_bytes += bytes;
  counters_.port_buffer_peak_bytes = std::max(counters_.port_buffer_peak_bytes, port.queued_bytes);
  if (faults.corrupted) ++counters_.frames_corrupted;
  // Deliver at header arrival: the receiver models the payload streaming in behind it.
  uint64_t arrive = start + config_.link_delay_ps;
  if (faults.reorder) {
    arrive += faults.reorder_delay_ps;
    ++counters_.frames_reordered;
  }
  if (faults.duplicate) {
    // The copy follows right behind the original and takes no buffer space of its own.
    ++counters_.frames_duplicated;
    Deliver(frame, port.busy_until_ps + config_.link_delay_ps);
  }
  Deliver(std::move(frame), arrive);
}

void SwitchFabric::Deliver(hw::Frame frame, uint64_t arrive_ps) {
  if (frame.dest_adapter >= sinks_.size()) {
    Drop(FabricDrop::kNoRoute);
    return;
  }
  hw::LinkSink* sink = sinks_[frame.dest_adapter];
  // Normally already run as the destination (Transmit runs in its hand-over); InjectRaw and
  // ReleaseHeld come from outside.
  events_.AtFor(owners_[frame.dest_adapter], arrive_ps,
                [this, sink, f = std::move(frame)]() mutable {
                  // Captured at the hand-over itself, so the file is in arrival order with arrival
                  // times.
                  if (capture_ != nullptr &&
                      capture_->Wants(events_.now_ps(), f.src_adapter, f.dest_adapter)) {
                    // The capture inspects the bytes, so it shows the CRC the wire would carry.
                    if (f.crc_deferred) {
                      hw::StampCrc(f.bytes);
                      f.crc_deferred = false;
                    }
                    capture_->Write(events_.now_ps(), f.bytes);
                  }
                  sink->Receive(std::move(f));
                });
}

}  // namespace nicsim::sim
