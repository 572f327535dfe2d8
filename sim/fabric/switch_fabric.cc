// SPDX-License-Identifier: Apache-2.0
// Switch fabric routing and fault injection. Every random choice comes from the fabric's
// own stream of the scenario seed, in event order, so runs replay exactly.
#include "sim/fabric/switch_fabric.h"

#include <algorithm>

#include "base/check.h"

namespace nicsim::sim {

/** The device-to-fabric side of one adapter's link. */
class SwitchFabric::Port final : public hw::FabricPort {
 public:
  explicit Port(SwitchFabric& fabric) : fabric_(fabric) {}
  void Send(hw::Frame frame, uint64_t depart_ps) override {
    fabric_.Route(std::move(frame), depart_ps);
  }

 private:
  SwitchFabric& fabric_;
};

SwitchFabric::SwitchFabric(hw::func::EventQueue& events, const FabricConfig& config)
    : events_(events), config_(config), rng_(config.seed, "fabric") {}

SwitchFabric::~SwitchFabric() = default;

hw::FabricPort* SwitchFabric::Attach(uint16_t adapter_id, hw::LinkSink* sink) {
  NICSIM_CHECK(adapter_id == sinks_.size(), "adapters must attach in id order");
  sinks_.push_back(sink);
  out_busy_until_ps_.push_back(0);
  ports_.push_back(std::make_unique<Port>(*this));
  return ports_.back().get();
}

void SwitchFabric::InjectRaw(uint16_t dest_adapter, std::vector<uint8_t> bytes) {
  hw::Frame frame;
  frame.dest_adapter = dest_adapter;
  frame.bytes = std::move(bytes);
  Deliver(std::move(frame), events_.now_ps());
}

void SwitchFabric::Route(hw::Frame frame, uint64_t depart_ps) {
  if (frame.dest_adapter >= sinks_.size()) {
    ++counters_.drops["no_route"];
    return;
  }
  if (rng_.Chance(config_.loss)) {
    ++counters_.drops["fabric_loss"];
    return;
  }
  if (rng_.Chance(config_.corrupt) && !frame.bytes.empty()) {
    // Flip one bit somewhere in the frame; the receiving link's CRC check catches it.
    const uint64_t bit = rng_.Below(frame.bytes.size() * 8);
    frame.bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    ++counters_.frames_corrupted;
  }
  const bool duplicate = rng_.Chance(config_.duplicate);
  const bool reorder = rng_.Chance(config_.reorder);
  ++counters_.frames_routed;
  // The frame crosses the hop, then queues for the destination's output link.
  const uint64_t wire_ps = static_cast<uint64_t>(frame.bytes.size() * config_.link_ps_per_byte);
  uint64_t& busy = out_busy_until_ps_[frame.dest_adapter];
  const uint64_t start = std::max(depart_ps + config_.hop_latency_ps, busy);
  busy = start + wire_ps;
  // Deliver at header arrival: the receiver models the payload streaming in behind it.
  uint64_t arrive = start;
  if (reorder) {
    arrive += config_.reorder_delay_ps;
    ++counters_.frames_reordered;
  }
  if (duplicate) {
    ++counters_.frames_duplicated;
    Deliver(frame, busy);
  }
  Deliver(std::move(frame), arrive);
}

void SwitchFabric::Deliver(hw::Frame frame, uint64_t arrive_ps) {
  if (frame.dest_adapter >= sinks_.size()) {
    ++counters_.drops["no_route"];
    return;
  }
  hw::LinkSink* sink = sinks_[frame.dest_adapter];
  events_.At(arrive_ps, [sink, f = std::move(frame)]() mutable { sink->Receive(std::move(f)); });
}

}  // namespace nicsim::sim
