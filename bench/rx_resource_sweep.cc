// SPDX-License-Identifier: Apache-2.0
// Benchmark: receive-path throughput of the microcode on hw/func with the DTB and receive
// task counts swept, as ratios to the same stream with unlimited resources in the same run.
// Two figures per point: packets per wall-second (simulator speed under contention) and
// packets per simulated second (the modelled adapter's receive throughput).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "bench/bench_report.h"
#include "sim/cluster.h"
#include "sim/workloads/workload.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kPackets = 50000;
constexpr uint32_t kSize = 1024;

struct Point {
  double wall_pps;
  double sim_pps;
};

Point Measure(uint32_t dtbs, uint32_t rx_tasks, bool unlimited) {
  nicsim::sim::ClusterConfig config;
  config.resources.dtbs = dtbs;
  config.microcode.rx_tasks = rx_tasks;
  if (unlimited) {
    config.microcode.tasks = 64;
    config.microcode.tx_tasks = 32;
    config.microcode.channel_buffers = 64;
    config.resources.header_buffers = 64;
  }
  auto cluster = std::move(*nicsim::sim::Cluster::Create(config));
  nicsim::sim::StreamConfig stream;
  stream.packets = kPackets;
  stream.size = kSize;
  const auto start = Clock::now();
  auto r = nicsim::sim::RunStream(*cluster, stream);
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (!r.ok() || r->error_count != 0 || r->messages_delivered != kPackets) {
    std::fprintf(stderr, "rx_resource_sweep: stream failed at dtbs=%u rx_tasks=%u\n", dtbs, rx_tasks);
    std::exit(1);
  }
  const double sim_s = static_cast<double>(cluster->events().now_ps()) * 1e-12;
  return {kPackets / s, kPackets / sim_s};
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
