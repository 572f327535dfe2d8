// SPDX-License-Identifier: Apache-2.0
// The smallest run with every kind of timeline track: one 300-byte packet from adapter 0 to
// adapter 1 on a default cluster, traced into a sink (shared by the timeline tests).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/cluster/cluster.h"

namespace nicsim::sim {

/** Runs one 300-byte packet from adapter 0 to adapter 1 to the end, tracing into `sink`. */
inline void RunOnePacket(hw::func::TraceSink* sink) {
  ClusterConfig config;
  config.trace = sink;
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  std::vector<uint8_t> buf(300, 1);
  (*cluster)->endpoint(0, 0).Send((*cluster)->endpoint(1, 0).addr(), buf.data(), 300, 5);
  (*cluster)->events().RunWhile([] { return true; });
}

}  // namespace nicsim::sim
