// SPDX-License-Identifier: Apache-2.0
// The lifecycle workloads on the functional backend: a window closed mid-stream gets nothing
// until it is reopened and then every byte; a recovered adapter's rebuilt endpoints get every
// byte; the trace shows each frame written and consumed; bad settings are reported.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "firmware/counters.h"
#include "firmware/states.h"
#include "sim/cluster/cluster.h"
#include "sim/config/scenario.h"
#include "sim/run/run_scenario.h"
#include "sim/observe/trace_writer.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

/** Every firmware and host event of adapter 1 window 0, in the order they were recorded. */
class WindowTrace final : public hw::func::TraceSink, public HostTraceSink {
 public:
  struct Line {
    std::string kind;
    uint64_t time_ps;
    uint64_t value;
  };
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& e) override {
    if (adapter != 1 || e.window != 0) return;
    if (e.kind == fw::TraceKind::kCloseWindow || e.kind == fw::TraceKind::kReset) {
      lines.push_back({std::string(TraceKindName(e.kind)), time_ps, e.value});
    } else if (e.kind == fw::TraceKind::kRxState &&
               e.state == static_cast<uint32_t>(fw::RxState::kFinish)) {
      lines.push_back({"finish", time_ps, 0});
    }
  }
  void RecordHost(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& e) override {
    if (adapter == 1 && e.window == 0) lines.push_back({"frame_consumed", time_ps, e.value});
  }

  /** Index of the first line at or after `time_ps` (lines are in time order on hw/func). */
  size_t At(uint64_t time_ps) const {
    size_t i = 0;
    while (i < lines.size() && lines[i].time_ps < time_ps) ++i;
    return i;
  }

  /** Index of the first line of `kind` (lines.size() if none). */
  size_t Find(const std::string& kind) const {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].kind == kind) return i;
    }
    return lines.size();
  }
  /** How many lines of `kind` lie in [from, to). */
  size_t Count(const std::string& kind, size_t from, size_t to) const {
    size_t n = 0;
    for (size_t i = from; i < to; ++i) n += lines[i].kind == kind;
    return n;
  }
  /** The values of the frame_consumed lines in [from, to). */
  std::vector<uint64_t> Consumed(size_t from, size_t to) const {
    std::vector<uint64_t> out;
    for (size_t i = from; i < to; ++i) {
      if (lines[i].kind == "frame_consumed") out.push_back(lines[i].value);
    }
    return out;
  }

  std::vector<Line> lines;
};

std::vector<uint64_t> Sequence(uint64_t from, uint64_t count) {
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < count; ++i) out.push_back(from + i);
  return out;
}

std::unique_ptr<Cluster> MakeCluster(WindowTrace* trace) {
  ClusterConfig config;  // two nodes, the functional backend
  config.backend = BackendKind::kFunc;
  config.trace = trace;
  config.host_trace = trace;
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(config);
  EXPECT_TRUE(made.ok()) << made.status().message();
  return made.ok() ? std::move(*made) : nullptr;
}

TEST(CloseUnderLoadTest, TheClosedWindowGetsNothingAndTheReopenedOneEveryByte) {
  WindowTrace trace;
  std::unique_ptr<Cluster> cluster = MakeCluster(&trace);
  ASSERT_TRUE(cluster);
  LifecycleConfig config;  // 200 packets of 1 KiB, the close at 20us
  Result<WorkloadResult> r = RunCloseUnderLoad(*cluster, config);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->errors, std::vector<std::string>{});
  const nlohmann::json& w = r->results;
  EXPECT_EQ(w["event_ns"], 20000);
  EXPECT_EQ(w["delivered_before_event"], 31);
  EXPECT_EQ(w["delivered"], 31);
  // One frame was written before the close took effect but never read by the process.
  EXPECT_EQ(w["written"], 32);
  EXPECT_EQ(w["dropped_closed"], 168);
  EXPECT_EQ(w["lost"], 169);
  EXPECT_EQ(w["delivered_after"], 200);
  // The 169 the close discarded are its own (the drops and `lost` above), not sent messages
  // that went missing: sent = delivered + lost.
  EXPECT_EQ(r->messages_sent, 231u);
  EXPECT_EQ(r->messages_delivered, 231u);
  EXPECT_EQ(r->messages_lost, 0u);
  EXPECT_EQ(r->bytes_delivered, 231u * 1024);
  const fw::Counters& fc = cluster->adapter(1).firmware_counters();
  EXPECT_EQ(fc.windows_closed, 1u);
  EXPECT_EQ(fc.rx_packets, 232u);
  EXPECT_EQ(fc.drop(fw::DropReason::kWindowClosed) + fc.drop(fw::DropReason::kClosedInFlight),
            168u);
  EXPECT_EQ(cluster->adapter(1).counters().dma_to_freed_memory, 0u);
  EXPECT_TRUE(cluster->HasEndpoint(1, 0));  // reopened

  // The trace: 31 frames written and consumed (0..30) before the close reached the microcode;
  // one more, already being written, finished before the driver released the window (the
  // process never read it); after the release, only the reopened window's 200 frames,
  // consumed with sequence numbers from 0 again.
  const size_t close = trace.Find("close");
  ASSERT_LT(close, trace.lines.size());
  const size_t release = trace.At(w["released_ns"].get<uint64_t>() * 1000);
  ASSERT_LT(close, release);
  EXPECT_EQ(trace.Count("close", 0, trace.lines.size()), 1u);
  EXPECT_EQ(trace.Count("finish", 0, close), 31u);
  EXPECT_EQ(trace.Consumed(0, close), Sequence(0, 31));
  EXPECT_EQ(trace.Count("finish", close, release), 1u);
  EXPECT_EQ(trace.Count("frame_consumed", close, release), 0u);
  EXPECT_EQ(trace.Count("finish", release, trace.lines.size()), 200u);
  EXPECT_EQ(trace.Consumed(release, trace.lines.size()), Sequence(0, 200));
}

TEST(RecoveryUnderLoadTest, RebuiltEndpointsGetEveryByteThatArrivesAndTheNextStreamExactly) {
  WindowTrace trace;
  std::unique_ptr<Cluster> cluster = MakeCluster(&trace);
  ASSERT_TRUE(cluster);
  LifecycleConfig config;
  Result<WorkloadResult> r = RunRecoveryUnderLoad(*cluster, config);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->errors, std::vector<std::string>{});
  const nlohmann::json& w = r->results;
  EXPECT_EQ(w["event_ns"], 20000);
  EXPECT_EQ(w["delivered_before_event"], 31);
  // 166 packets of the first stream land in the recovered window; 3 die with the reset.
  EXPECT_EQ(w["delivered"], 197);
  EXPECT_EQ(w["written"], 197);
  EXPECT_EQ(w["lost"], 3);
  EXPECT_EQ(w["dropped_by_reset"], 3);
  EXPECT_EQ(w["delivered_after"], 200);
  EXPECT_EQ(r->messages_delivered, 397u);
  EXPECT_EQ(cluster->driver(1).recovery_count(), 1u);
  EXPECT_EQ(cluster->adapter(1).firmware_counters().resets, 1u);
  EXPECT_EQ(cluster->adapter(1).counters().dma_to_freed_memory, 0u);
  EXPECT_EQ(cluster->driver(0).recovery_count(), 0u);

  // The new HAL counts frames from 0 again: 0..30 before the reset, 0..365 after it.
  const size_t reset = trace.Find("reset");
  ASSERT_LT(reset, trace.lines.size());
  EXPECT_EQ(trace.Consumed(0, reset), Sequence(0, 31));
  EXPECT_EQ(trace.Consumed(reset, trace.lines.size()), Sequence(0, 366));
}

TEST(LifecycleTest, AStreamOverBeforeTheEventIsReportedNotPassedOff) {
  for (bool close : {true, false}) {
    std::unique_ptr<Cluster> cluster = MakeCluster(nullptr);
    ASSERT_TRUE(cluster);
    LifecycleConfig config;
    config.packets = 10;
    config.at_ps = 1'000'000'000;  // 1ms: ten packets are long gone
    Result<WorkloadResult> r =
        close ? RunCloseUnderLoad(*cluster, config) : RunRecoveryUnderLoad(*cluster, config);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              std::string("lifecycle.at: all 10 packets had arrived before the ") +
                  (close ? "close" : "recovery") +
                  " at 1000000ns; lower lifecycle.at or raise lifecycle.packets");
  }
}

TEST(LifecycleTest, APacketLargerThanOneFrameIsRefused) {
  std::unique_ptr<Cluster> cluster = MakeCluster(nullptr);
  ASSERT_TRUE(cluster);
  LifecycleConfig config;
  config.size = 5000;
  Result<WorkloadResult> r = RunCloseUnderLoad(*cluster, config);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "lifecycle.size: 5000 exceeds the largest single-packet payload 2032");
}

TEST(LifecycleTest, ScenarioParametersReachTheWorkload) {
  Result<Scenario> scenario = ParseScenario(
      "backend = \"func\"\nworkload = \"close_under_load\"\n"
      "[lifecycle]\nat = \"3us\"\npackets = 20\nsize = 100\n",
      "t.toml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  Result<RunOutcome> run = RunScenario(*scenario);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const nlohmann::json& w = run->stats["workload"];
  EXPECT_EQ(w["workload"], "close_under_load");
  EXPECT_EQ(w["event_ns"], 3000);
  EXPECT_EQ(w["packets"], 20);
  EXPECT_EQ(w["size_bytes"], 100);
  EXPECT_EQ(w["delivered_after"], 20);
  EXPECT_EQ(run->stats["errors"], 0);
}

TEST(LifecycleTest, RtlVcdNeedsTheRtlBackend) {
  Result<Scenario> scenario =
      ParseScenario("backend = \"systemc\"\n[rtl]\nvcd = \"waves/run\"\n", "t.toml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  Result<ClusterConfig> config = ClusterConfigFromParams(scenario->params);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            "rtl.vcd: only the rtl backend has Verilated blocks to trace (backend is 'systemc')");
  ASSERT_TRUE(scenario->params.SetFromText("rtl.vcd", "").ok());
  EXPECT_TRUE(ClusterConfigFromParams(scenario->params).ok());
}

}  // namespace
}  // namespace nicsim::sim
