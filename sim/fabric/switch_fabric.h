// SPDX-License-Identifier: Apache-2.0
// The switch fabric: routes frames between adapter ports through one switch stage, with
// output-port queueing, a hop latency, and injected faults (loss, duplication, reordering,
// corruption) drawn from the scenario seed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/rng.h"
#include "hw/common/link.h"
#include "hw/func/event_queue.h"

namespace nicsim::sim {

/** Fabric parameters. */
struct FabricConfig {
  uint64_t hop_latency_ps = 300'000;
  double link_ps_per_byte = 500.0;
  double loss = 0;
  double duplicate = 0;
  double reorder = 0;
  double corrupt = 0;
  uint64_t reorder_delay_ps = 2'000'000;
  uint64_t seed = 1;
};

/** Fabric counters; drops are keyed by reason. */
struct FabricCounters {
  uint64_t frames_routed = 0;
  uint64_t frames_duplicated = 0;
  uint64_t frames_reordered = 0;
  uint64_t frames_corrupted = 0;
  std::map<std::string, uint64_t> drops;
};

/** A single-stage switch connecting every adapter port. */
class SwitchFabric {
 public:
  SwitchFabric(hw::func::EventQueue& events, const FabricConfig& config);
  ~SwitchFabric();

  /** Attaches an adapter: returns the port it transmits into. Ids must be 0, 1, 2, ... */
  hw::FabricPort* Attach(uint16_t adapter_id, hw::LinkSink* sink);
  /** Delivers a raw frame to an adapter as if it came off the fabric (for tests). */
  void InjectRaw(uint16_t dest_adapter, std::vector<uint8_t> bytes);

  const FabricCounters& counters() const { return counters_; }

 private:
  class Port;
  void Route(hw::Frame frame, uint64_t depart_ps);
  void Deliver(hw::Frame frame, uint64_t arrive_ps);

  hw::func::EventQueue& events_;
  FabricConfig config_;
  Rng rng_;
  std::vector<std::unique_ptr<Port>> ports_;
  std::vector<hw::LinkSink*> sinks_;
  /** Per output port: when its link is next free. */
  std::vector<uint64_t> out_busy_until_ps_;
  FabricCounters counters_;
};

}  // namespace nicsim::sim
