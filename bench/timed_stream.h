// SPDX-License-Identifier: Apache-2.0
// Runs a 2-node packet-mode stream on a fresh cluster and times it on the wall clock.
// Shared by the benchmarks; exits the process if the stream does not complete correctly.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/cluster/cluster.h"
#include "sim/workloads/workload.h"

namespace nicsim::bench {

/** What one timed stream measured. */
struct TimedStream {
  double wall_s;
  double sim_s;
  uint64_t events;
};

/** Runs and times the stream; `schedule`, if given, receives every scheduling call. */
inline TimedStream RunTimedStream(const sim::ClusterConfig& config, uint64_t packets, uint32_t size,
                                  std::vector<kernel::EventQueue::Scheduled>* schedule = nullptr) {
  Result<std::unique_ptr<sim::Cluster>> cluster = sim::Cluster::Create(config);
  if (!cluster.ok()) {
    std::fprintf(stderr, "bench: %s\n", cluster.status().message().c_str());
    std::exit(1);
  }
  sim::StreamConfig stream;
  stream.packets = packets;
  stream.size = size;
  (*cluster)->events().RecordSchedule(schedule);
  const auto start = std::chrono::steady_clock::now();
  Result<sim::WorkloadResult> r = sim::RunStream(**cluster, stream);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.ok() || r->error_count != 0 || r->messages_delivered != packets) {
    std::fprintf(stderr, "bench: the stream did not complete correctly\n");
    std::exit(1);
  }
  return {wall_s, static_cast<double>((*cluster)->events().now_ps()) * 1e-12,
          (*cluster)->events().events_run()};
}

}  // namespace nicsim::bench
