// SPDX-License-Identifier: Apache-2.0
// The raw RDMA figures other benchmarks compare against, on the hps preset (hw/func, two
// nodes): the cluster, the time of one RDMA write (posted until the target's completion
// record) and of one RDMA read (posted until the initiator's completion record).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/config/param_table.h"
#include "sim/config/presets.h"
#include "sim/run/run_scenario.h"
#include "tests/e2e/rdma_harness.h"

namespace nicsim::bench {

inline sim::ClusterConfig HpsConfig(uint32_t adapters_per_node) {
  sim::ParamValues params = sim::ParamValues::Defaults();
  NICSIM_CHECK(sim::ApplyPreset(params, "hps").ok(), "hps preset");
  Result<sim::ClusterConfig> c = sim::ClusterConfigFromParams(params);
  NICSIM_CHECK(c.ok(), "config");
  c->backend = sim::BackendKind::kFunc;
  c->nodes = 2;
  c->adapters_per_node = adapters_per_node;
  c->rdma_host_bytes = uint64_t{160} << 20;
  c->microcode.rcxts = 1024;
  return *c;
}

/** Simulated seconds to write `len` bytes from node 0 to node 1, split over `stripes` adapters. */
inline double WriteSeconds(uint32_t len, uint32_t stripes) {
  sim::RdmaHarness h(HpsConfig(stripes));
  sim::RdmaBuffer src = h.Alloc(0, len, abi::kPageShift16M);
  sim::RdmaBuffer dst = h.Alloc(1, len, abi::kPageShift16M);
  const uint64_t start = h.cluster().events().now_ps();
  // Node-global TCE tables: one registration serves every adapter of the node.
  const uint32_t chunk = len / stripes;
  for (uint32_t s = 0; s < stripes; ++s) {
    const uint32_t from = s, to = stripes + s;  // adapter ids: node * stripes + index
    h.Post(from, 0, abi::SlotType::kRdmaWrite, static_cast<uint16_t>(to), 0,
           sim::Request(h.Rcxt(from), h.Rcxt(to), 1, src.pvo() + s * chunk, dst.pvo() + s * chunk,
                        chunk, abi::kReqNotifyTarget));
  }
  h.Run();
  // Done when the last stripe's completion record reaches the target process.
  uint64_t end = 0;
  for (uint32_t s = 0; s < stripes; ++s) {
    const std::vector<sim::Received>& inbox = h.Inbox(stripes + s);
    NICSIM_CHECK(inbox.size() == 1, "stripe %u: %zu completions", s, inbox.size());
    end = std::max(end, inbox[0].time_ps);
  }
  return static_cast<double>(end - start) * 1e-12;
}

/** Simulated seconds to read `len` bytes of node 1's memory into node 0's. */
inline double ReadSeconds(uint32_t len) {
  sim::RdmaHarness h(HpsConfig(1));
  sim::RdmaBuffer local = h.Alloc(0, len, abi::kPageShift16M);
  sim::RdmaBuffer remote = h.Alloc(1, len, abi::kPageShift16M);
  const uint64_t start = h.cluster().events().now_ps();
  h.Post(0, 0, abi::SlotType::kRdmaRead, 1, 0,
         sim::Request(h.Rcxt(0), h.Rcxt(1), 1, local.pvo(), remote.pvo(), len,
                      abi::kReqNotifyInitiator));
  h.Run();
  const std::vector<sim::Received>& inbox = h.Inbox(0);
  NICSIM_CHECK(inbox.size() == 1, "%zu completions of a read", inbox.size());
  return static_cast<double>(inbox[0].time_ps - start) * 1e-12;
}

}  // namespace nicsim::bench
