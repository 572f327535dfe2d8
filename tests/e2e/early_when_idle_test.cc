// SPDX-License-Identifier: Apache-2.0
// hal.wait_mode = early_when_idle: each sleep is armed with early interrupts while the
// process's CPU is idle and with normal ones while it is busy, so a ping-pong of waiting
// processes runs exactly as in early mode, and one whose CPUs are busy exactly as in
// interrupt mode; the mode command goes to the adapter only when the choice changes.
#include <gtest/gtest.h>

#include <functional>

#include "sim/cluster/cluster.h"
#include "sim/cluster/mpi_job.h"
#include "sim/workloads/mpi_workloads.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

struct PingPongRun {
  double latency_ns = 0;
  uint64_t early_arms = 0;
  uint64_t coherent_arms = 0;
  uint64_t mode_commands = 0;
  uint64_t mode_writes = 0;
  /** Per endpoint (adapter 0, then 1): sleeps armed. */
  uint64_t arms[2] = {0, 0};
};

/**
 * A 1 KiB ping-pong between adapter 0 and 1 (window 0 each), `idle` probing both CPUs
 * (`idle1`, if given, probes adapter 1's).
 */
PingPongRun PingPong(WaitMode mode, std::function<bool()> idle,
                     std::function<bool()> idle1 = nullptr) {
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.wait_mode = mode;
  if (idle) {
    config.host_cpu = [idle, idle1](uint32_t adapter, uint32_t) {
      return HostCpu{adapter == 1 && idle1 ? idle1 : idle, nullptr};
    };
  }
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(config);
  EXPECT_TRUE(made.ok()) << made.status().message();
  Cluster& cluster = **made;
  PingPongConfig pp;
  pp.sizes = {1024};
  pp.iterations = 50;
  pp.stream_packets = 10;
  Result<WorkloadResult> r = RunPingPongSweep(cluster, pp);
  EXPECT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  PingPongRun run;
  run.latency_ns = r->results["table"][0]["latency_ns"].get<double>();
  for (WindowProcess* ep : cluster.endpoints()) {
    run.early_arms += ep->early_arms();
    run.coherent_arms += ep->coherent_arms();
    run.mode_writes += ep->interrupt_mode_writes();
  }
  for (uint32_t a = 0; a < 2; ++a) {
    const WindowProcess& ep = cluster.endpoint(a, 0);
    run.arms[a] = ep.early_arms() + ep.coherent_arms();
  }
  for (uint32_t a = 0; a < cluster.adapter_count(); ++a) {
    run.mode_commands += cluster.adapter(a).firmware_counters().mmio_commands;
  }
  return run;
}

TEST(EarlyWhenIdleTest, IdleCpusGetEarlyInterruptsEveryTime) {
  const PingPongRun early = PingPong(WaitMode::kEarlyInterrupt, nullptr);
  const PingPongRun adaptive = PingPong(WaitMode::kEarlyWhenIdle, [] { return true; });
  EXPECT_EQ(adaptive.latency_ns, early.latency_ns);
  EXPECT_EQ(adaptive.coherent_arms, 0u);
  EXPECT_EQ(adaptive.early_arms, early.early_arms);
  EXPECT_GT(adaptive.early_arms, 100u);
  // Same MMIO commands: the mode was written once per window, as early mode writes it.
  EXPECT_EQ(adaptive.mode_commands, early.mode_commands);
  EXPECT_EQ(adaptive.mode_writes, 2u);
}

TEST(EarlyWhenIdleTest, WithoutAProbeTheCpuCountsAsIdle) {
  const PingPongRun early = PingPong(WaitMode::kEarlyInterrupt, nullptr);
  const PingPongRun adaptive = PingPong(WaitMode::kEarlyWhenIdle, nullptr);
  EXPECT_EQ(adaptive.latency_ns, early.latency_ns);
  EXPECT_EQ(adaptive.coherent_arms, 0u);
}

TEST(EarlyWhenIdleTest, BusyCpusGetInterruptsOnceTheDataIsCoherent) {
  const PingPongRun plain = PingPong(WaitMode::kInterrupt, nullptr);
  const PingPongRun adaptive = PingPong(WaitMode::kEarlyWhenIdle, [] { return false; });
  EXPECT_EQ(adaptive.latency_ns, plain.latency_ns);
  EXPECT_EQ(adaptive.early_arms, 0u);
  EXPECT_EQ(adaptive.coherent_arms, plain.coherent_arms);
  EXPECT_EQ(adaptive.mode_commands, plain.mode_commands);
  // Early interrupts would have been faster: the CPU's other work is what they would cost.
  EXPECT_LT(PingPong(WaitMode::kEarlyInterrupt, nullptr).latency_ns, plain.latency_ns);
}

TEST(EarlyWhenIdleTest, TheModeFollowsTheCpuAndIsWrittenOnlyWhenItChanges) {
  // Each CPU alternates: idle at one sleep, busy at the next.
  uint64_t asked[2] = {0, 0};
  const PingPongRun alternating = PingPong(
      WaitMode::kEarlyWhenIdle, [&asked] { return asked[0]++ % 2 == 0; },
      [&asked] { return asked[1]++ % 2 == 0; });
  EXPECT_EQ(alternating.arms[0], asked[0]);
  EXPECT_EQ(alternating.arms[1], asked[1]);
  EXPECT_EQ(alternating.early_arms, (asked[0] + 1) / 2 + (asked[1] + 1) / 2);
  EXPECT_EQ(alternating.coherent_arms, asked[0] / 2 + asked[1] / 2);
  // Every sleep changed the mode, so every sleep wrote it.
  EXPECT_EQ(alternating.mode_writes, asked[0] + asked[1]);
  // A CPU busy only at its first sleep: two writes per window, coherent then early for good.
  uint64_t first[2] = {0, 0};
  const PingPongRun once = PingPong(
      WaitMode::kEarlyWhenIdle, [&first] { return first[0]++ > 0; },
      [&first] { return first[1]++ > 0; });
  EXPECT_EQ(once.mode_writes, 4u);
  EXPECT_EQ(once.coherent_arms, 2u);
}

struct MpiRun {
  double latency_us = 0;
  uint64_t early_arms = 0;
  uint64_t busy_early_spins = 0;
};

/**
 * An MPI ping-pong of 16 KiB messages (several frames each) between two nodes in which each
 * receive is posted and the rank then computes 20 us, so every message lands while its
 * receiver's CPU is busy.
 */
MpiRun BusyPingPong(WaitMode mode) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = 2;
  c.cluster.wait_mode = mode;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  EXPECT_TRUE(job.ok()) << job.status().message();
  MpiPingPongConfig pp;
  pp.sizes = {16384};
  pp.iterations = 20;
  pp.bandwidth_messages = 1;
  pp.window = 1;
  pp.compute_ps = 20'000'000;
  Result<WorkloadResult> r = RunMpiPingPong(**job, pp);
  EXPECT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_count, 0u);
  MpiRun run;
  run.latency_us = r->results["points"][0]["latency_us"].get<double>();
  for (WindowProcess* ep : (*job)->cluster().endpoints()) {
    run.early_arms += ep->early_arms();
    run.busy_early_spins += ep->busy_early_spins();
  }
  return run;
}

TEST(EarlyWhenIdleTest, ComputingRanksGetNormalInterruptsAndLoseNoTimeToPolls) {
  const MpiRun plain = BusyPingPong(WaitMode::kInterrupt);
  const MpiRun early = BusyPingPong(WaitMode::kEarlyInterrupt);
  const MpiRun adaptive = BusyPingPong(WaitMode::kEarlyWhenIdle);
  // Early interrupts wake the receiver while its frames are still being written; the polls
  // for them are taken from the computing, which ends later.
  EXPECT_GT(early.busy_early_spins, 0u);
  EXPECT_GT(early.latency_us, plain.latency_us);
  // early_when_idle re-arms normal interrupts when a rank starts computing: no poll is taken
  // from a busy CPU, and the latency is exactly interrupt mode's.
  EXPECT_EQ(adaptive.busy_early_spins, 0u);
  // (The same to the last bits: the two runs' Wtime differences round the same way.)
  EXPECT_DOUBLE_EQ(adaptive.latency_us, plain.latency_us);
  // It still arms early ones whenever the rank waits idle (between its computing phases).
  EXPECT_GT(adaptive.early_arms, 0u);
}

}  // namespace
}  // namespace nicsim::sim
