// SPDX-License-Identifier: Apache-2.0
// Benchmark: receive-path throughput of the microcode on hw/func with the DTB and receive
// task counts swept, as ratios to the same stream with unlimited resources in the same run.
// Two figures per point: packets per wall-second (simulator speed under contention) and
// packets per simulated second (the modelled adapter's receive throughput).
#include <fmt/format.h>

#include "bench/bench_report.h"
#include "bench/timed_stream.h"

namespace {

constexpr uint64_t kPackets = 50000;
constexpr uint32_t kSize = 1024;

struct Point {
  double wall_pps;
  double sim_pps;
};

Point Measure(uint32_t dtbs, uint32_t rx_tasks, bool unlimited) {
  nicsim::sim::ClusterConfig config;
  config.backend = nicsim::sim::BackendKind::kFunc;
  config.resources.dtbs = dtbs;
  config.microcode.rx_tasks = rx_tasks;
  if (unlimited) {
    config.microcode.tasks = 64;
    config.microcode.tx_tasks = 32;
    config.microcode.channel_buffers = 64;
    config.resources.header_buffers = 64;
  }
  const nicsim::bench::TimedStream t = nicsim::bench::RunTimedStream(config, kPackets, kSize);
  return {kPackets / t.wall_s, kPackets / t.sim_s};
}

}  // namespace

int main() {
  nicsim::bench::Report report(
      "rx_resource_sweep",
      "2-node 1 KiB stream; DTBs x receive tasks swept; ratios to unlimited resources");
  const Point unlimited = Measure(64, 32, true);
  report.Figure("unlimited_wall_pps", unlimited.wall_pps);
  report.Figure("unlimited_sim_pps", unlimited.sim_pps);
  for (uint32_t dtbs : {1u, 2u, 4u, 8u}) {
    for (uint32_t rx : {1u, 2u, 4u}) {
      const Point p = Measure(dtbs, rx, false);
      const std::string key = fmt::format("dtb{}_rx{}", dtbs, rx);
      report.Figure(key + "_wall_pps", p.wall_pps);
      report.Figure(key + "_sim_pps", p.sim_pps);
      // The simulator must not slow down much per packet when tasks wait for resources.
      report.Ratio(key + "_wall_vs_unlimited", p.wall_pps / unlimited.wall_pps, 0.5);
      // Modelled throughput: informative except for the default (8 DTBs, 4 receive tasks),
      // which must keep the receive pipeline as full as unlimited resources do.
      report.Ratio(key + "_sim_vs_unlimited", p.sim_pps / unlimited.sim_pps,
                   dtbs == 8 && rx == 4 ? 0.95 : 0.0);
    }
  }
  return report.Finish();
}
