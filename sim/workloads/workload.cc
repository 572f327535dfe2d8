// SPDX-License-Identifier: Apache-2.0
// Shared workload helpers: byte patterns, the run-until loop, choosing a sender/receiver pair.
#include "sim/workloads/workload.h"

#include <cstring>

#include "base/rng.h"
#include "sim/progress.h"

namespace nicsim::sim {

namespace {
/** Cheap per-word pattern: a SplitMix64 seed, then a xorshift step per 8 bytes. */
uint64_t PatternSeed(uint64_t key, uint32_t len) {
  uint64_t state = key * 0x2545F4914F6CDD1Dull + len;
  return SplitMix64(state) | 1;
}
uint64_t PatternNext(uint64_t& x) {
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}
}  // namespace

void FillPattern(uint8_t* dst, uint32_t len, uint64_t key) {
  uint64_t x = PatternSeed(key, len);
  uint32_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const uint64_t word = PatternNext(x);
    std::memcpy(dst + i, &word, 8);
  }
  if (i < len) {
    const uint64_t word = PatternNext(x);
    std::memcpy(dst + i, &word, len - i);
  }
}

bool CheckPattern(const uint8_t* data, uint32_t len, uint64_t key) {
  uint64_t x = PatternSeed(key, len);
  uint32_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const uint64_t word = PatternNext(x);
    if (std::memcmp(data + i, &word, 8) != 0) return false;
  }
  if (i < len) {
    const uint64_t word = PatternNext(x);
    if (std::memcmp(data + i, &word, len - i) != 0) return false;
  }
  return true;
}

Status RunUntil(Cluster& cluster, const std::function<bool()>& done, const std::string& what) {
  hw::func::EventQueue& events = cluster.events();
  uint64_t n = 0;
  events.RunWhile([&] {
    if ((++n & 0xFFFF) == 0) Progress::Tick(events.now_ps(), events.events_run());
    return !done();
  });
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
