// SPDX-License-Identifier: Apache-2.0
// What the timeline tests share: trace events made by hand, and the smallest run with every
// kind of track (one 300-byte packet from adapter 0 to adapter 1) traced into a sink.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "firmware/states.h"
#include "sim/cluster/cluster.h"

namespace nicsim::sim {

/** A trace event of `kind` with the given task, state and value (no window, CB or DTB). */
inline fw::TraceEvent Ev(fw::TraceKind kind, fw::TaskId task = fw::kNoTask, uint32_t state = 0,
                         uint64_t value = 0) {
  fw::TraceEvent e;
  e.kind = kind;
  e.task = task;
  e.state = state;
  e.value = value;
  return e;
}

/** A receive state as a trace event's state field. */
inline uint32_t Rx(fw::RxState s) { return static_cast<uint32_t>(s); }

/** Runs one 300-byte packet from adapter 0 to adapter 1 to the end, tracing into `sink`. */
inline void RunOnePacket(hw::func::TraceSink* sink) {
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.trace = sink;
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  std::vector<uint8_t> buf(300, 1);
  (*cluster)->endpoint(0, 0).Send((*cluster)->endpoint(1, 0).addr(), buf.data(), 300, 5);
  (*cluster)->events().RunWhile([] { return true; });
}

}  // namespace nicsim::sim
