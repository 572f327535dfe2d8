// SPDX-License-Identifier: Apache-2.0
// Shared workload helpers: byte patterns, the run-until loop, choosing a sender/receiver pair.
#include "sim/workloads/workload.h"

#include "base/rng.h"

namespace nicsim::sim {

void FillPattern(uint8_t* dst, uint32_t len, uint64_t key) {
  uint64_t state = key * 0x2545F4914F6CDD1Dull + len;
  for (uint32_t i = 0; i < len; i += 8) {
    const uint64_t word = SplitMix64(state);
    for (uint32_t b = 0; b < 8 && i + b < len; ++b) dst[i + b] = static_cast<uint8_t>(word >> (8 * b));
  }
}

bool CheckPattern(const uint8_t* data, uint32_t len, uint64_t key) {
  uint64_t state = key * 0x2545F4914F6CDD1Dull + len;
  for (uint32_t i = 0; i < len; i += 8) {
    const uint64_t word = SplitMix64(state);
    for (uint32_t b = 0; b < 8 && i + b < len; ++b) {
      if (data[i + b] != static_cast<uint8_t>(word >> (8 * b))) return false;
    }
  }
  return true;
}

Status RunUntil(Cluster& cluster, const std::function<bool()>& done, const std::string& what) {
  hw::func::EventQueue& events = cluster.events();
  events.RunWhile([&] { return !done(); });
  if (!done()) {
    return Status::Error(what + ": stalled with no events left at t=" +
                         std::to_string(events.now_ps() / 1000) + "ns");
  }
  return Status();
}

Result<std::pair<Endpoint*, Endpoint*>> PickPair(Cluster& cluster) {
  const ClusterConfig& c = cluster.config();
  Endpoint* a = &cluster.endpoint(0, 0);
  if (c.nodes >= 2) return std::make_pair(a, &cluster.endpoint(c.adapters_per_node, 0));
  if (c.adapters_per_node >= 2) return std::make_pair(a, &cluster.endpoint(1, 0));
  if (c.windows_per_adapter >= 2) return std::make_pair(a, &cluster.endpoint(0, 1));
  return Status::Error("a two-party workload needs two windows: raise nodes, "
                       "adapters_per_node or windows_per_adapter");
}

}  // namespace nicsim::sim
