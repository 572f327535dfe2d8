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
#include "bench/hps_rdma.h"

using nicsim::bench::HpsConfig;
using nicsim::bench::WriteSeconds;
using nicsim::sim::ClusterConfig;

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
