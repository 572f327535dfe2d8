// SPDX-License-Identifier: Apache-2.0
// Benchmark: RDMA write throughput on the hps preset (hw/func), as a fraction of the
// configured link bandwidth, for 64 KiB .. 64 MiB; and striping one 64 MiB write across 1, 2
// and 4 adapters of a node (each adapter its own path into the fabric), as a speed-up over
// one adapter measured in the same run. Throughput is in simulated time: from posting the
// request to the target's completion record.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "bench/bench_report.h"
#include "sim/config/param_table.h"
#include "sim/config/presets.h"
#include "sim/run/run_scenario.h"
#include "tests/e2e/rdma_harness.h"

namespace {

using nicsim::sim::ClusterConfig;
using nicsim::sim::RdmaBuffer;
using nicsim::sim::RdmaHarness;

ClusterConfig HpsConfig(uint32_t adapters_per_node) {
  nicsim::sim::ParamValues params = nicsim::sim::ParamValues::Defaults();
  NICSIM_CHECK(nicsim::sim::ApplyPreset(params, "hps").ok(), "hps preset");
  nicsim::Result<ClusterConfig> c = nicsim::sim::ClusterConfigFromParams(params);
  NICSIM_CHECK(c.ok(), "config");
  c->backend = nicsim::sim::BackendKind::kFunc;
  c->nodes = 2;
  c->adapters_per_node = adapters_per_node;
  c->rdma_host_bytes = uint64_t{160} << 20;
  c->microcode.rcxts = 1024;
  return *c;
}

/** Simulated seconds to write `len` bytes from node 0 to node 1, split over `stripes` adapters. */
double WriteSeconds(uint32_t len, uint32_t stripes) {
  RdmaHarness h(HpsConfig(stripes));
  RdmaBuffer src = h.Alloc(0, len, nicsim::abi::kPageShift16M);
  RdmaBuffer dst = h.Alloc(1, len, nicsim::abi::kPageShift16M);
  const uint64_t start = h.cluster().events().now_ps();
  // Node-global TCE tables: one registration serves every adapter of the node.
  const uint32_t chunk = len / stripes;
  for (uint32_t s = 0; s < stripes; ++s) {
    const uint32_t from = s, to = stripes + s;  // adapter ids: node * stripes + index
    h.Post(from, 0, nicsim::abi::SlotType::kRdmaWrite, static_cast<uint16_t>(to), 0,
           nicsim::sim::Request(h.Rcxt(from), h.Rcxt(to), 1, src.pvo() + s * chunk,
                                dst.pvo() + s * chunk, chunk, nicsim::abi::kReqNotifyTarget));
  }
  h.Run();
  // Done when the last stripe's completion record reaches the target process.
  uint64_t end = 0;
  for (uint32_t s = 0; s < stripes; ++s) {
    const std::vector<nicsim::sim::Received>& inbox = h.Inbox(stripes + s);
    NICSIM_CHECK(inbox.size() == 1, "stripe %u: %zu completions", s, inbox.size());
    end = std::max(end, inbox[0].time_ps);
  }
  return static_cast<double>(end - start) * 1e-12;
}

}  // namespace

int main() {
  nicsim::bench::Report report(
      "rdma_throughput",
      "RDMA write on the hps preset: fraction of link bandwidth by size; striping over adapters");
  const ClusterConfig hps = HpsConfig(1);
  const double link_bytes_per_s = 1e12 / hps.timing.link_ps_per_byte;
  report.Figure("link_MBps", link_bytes_per_s / 1e6);
  for (uint32_t kib : {64u, 256u, 1024u, 4096u, 16384u, 65536u}) {
    const uint32_t len = kib * 1024;
    const double s = WriteSeconds(len, 1);
    const double fraction = len / s / link_bytes_per_s;
    report.Figure(fmt::format("write_{}KiB_MBps", kib), len / s / 1e6);
    // The target applies from 1 MiB up; smaller transfers are reported against a 0 floor.
    report.Ratio(fmt::format("write_{}KiB_of_link", kib), fraction, kib >= 1024 ? 0.97 : 0.0);
  }
  const uint32_t big = 64u << 20;
  const double one = WriteSeconds(big, 1);
  for (uint32_t stripes : {2u, 4u}) {
    const double t = WriteSeconds(big, stripes);
    report.Ratio(fmt::format("striping_{}_adapters_speedup", stripes), one / t,
                 stripes == 4 ? 3.8 : 0.0);
  }
  return report.Finish();
}
