// SPDX-License-Identifier: Apache-2.0
// What every workload reports, and the helpers workloads share: payload patterns that let a
// receiver check every byte, and running the cluster until a workload is done.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "sim/cluster/cluster.h"
#include "sim/observe/progress.h"

namespace nicsim::sim {

/**
 * A workload's outcome. The verdict rule is the same for every workload: the run passes only
 * if every message sent was delivered exactly once with its bytes intact (no error was added).
 */
struct WorkloadResult {
  uint64_t messages_sent = 0;
  /** Distinct messages that arrived intact (a second copy is a duplicate, not a delivery). */
  uint64_t messages_delivered = 0;
  uint64_t bytes_delivered = 0;
  /** Messages sent that never arrived intact. */
  uint64_t messages_lost = 0;
  /** Extra copies of messages already delivered. */
  uint64_t messages_duplicated = 0;
  /** Arrivals with wrong bytes or length. */
  uint64_t messages_damaged = 0;
  /** The run stopped before the workload was done (no events left, or run.time_limit). */
  bool stalled = false;
  /** Per-workload figures for stats.json. */
  nlohmann::json results = nlohmann::json::object();
  /** Human-readable summary table. */
  std::string table;
  /** Verification failures (wrong bytes, lost or duplicated messages); empty when correct. */
  std::vector<std::string> errors;
  /** Total verification failures (errors keeps only the first few). */
  uint64_t error_count = 0;

  /**
   * The (time, tie) key of the event that found each of `errors`, where the workload gives
   * one (AddErrorAt): a split run merges its partitions' errors in that order, which is the
   * order one process finds them in.
   */
  std::vector<std::pair<uint64_t, uint64_t>> error_keys;
  /** Most verification failures kept in `errors`. */
  static constexpr size_t kErrorsKept = 20;

  void AddError(std::string message) {
    ++error_count;
    if (errors.size() < kErrorsKept) errors.push_back(std::move(message));
  }
  /** AddError by the event at `time_ps` with tie key `tie` (EventQueue::running_tie). */
  void AddErrorAt(uint64_t time_ps, uint64_t tie, std::string message) {
    if (errors.size() < kErrorsKept) error_keys.emplace_back(time_ps, tie);
    AddError(std::move(message));
  }
  /** Records a run that could not finish: `why` says where it stopped. */
  void Stall(const Status& why) {
    stalled = true;
    AddError(why.message());
  }
  bool passed() const { return error_count == 0; }
};

/** Fills `dst` with bytes determined by `key` (a message's identity) and its length. */
void FillPattern(uint8_t* dst, uint32_t len, uint64_t key);
/** True if `data` holds exactly FillPattern(key, len). */
bool CheckPattern(const uint8_t* data, uint32_t len, uint64_t key);

/**
 * The error RunUntil reports when `what` is not done: the event queue emptied, simulated
 * time passed the cluster's time limit, or the nodes touched more host memory than allowed.
 */
Status StalledError(const Cluster& cluster, const std::string& what);
/** StalledError at simulated time `now_ps` (a split run's latest time over its partitions). */
Status StalledError(const Cluster& cluster, const std::string& what, uint64_t now_ps);

/** True if the next event is due past run.time_limit: a run loop stops before it, so a run
 *  stops at the same event however it is split over processes. */
inline bool NextPastTimeLimit(const Cluster& cluster) {
  const uint64_t next = cluster.events().next_time_ps();
  return next != UINT64_MAX && next > cluster.config().time_limit_ps;
}

/** True once the run has reached the cluster's limit (run.time_limit): simulated time has
 *  passed it, or the next event is due past it (the run loops stop before that event). */
inline bool PastTimeLimit(const Cluster& cluster) {
  return cluster.events().now_ps() > cluster.config().time_limit_ps || NextPastTimeLimit(cluster);
}

/**
 * What a run loop does every 65,536 events: the progress line, then whether the run may go
 * on (false once simulated time has passed run.time_limit or the nodes have touched more
 * host memory than host.touched_limit, as their last measures say).
 */
inline bool PeriodicCheck(Cluster& cluster) {
  Progress::Tick(cluster.events().now_ps(), cluster.events().events_run());
  return !PastTimeLimit(cluster) && cluster.touched_limit_error().ok();
}

/**
 * Runs events until `done()`; an error if the event queue empties first, simulated time
 * passes run.time_limit or touched host memory passes host.touched_limit (a stall). A
 * template, so the test after every event is an inline call rather than a std::function's.
 */
template <typename Done>
Status RunUntil(Cluster& cluster, Done&& done, const std::string& what) {
  uint64_t n = 0;
  if (cluster.touched_limit_error().ok()) {
    cluster.events().RunWhile([&] {
      if ((++n & 0xFFFF) == 0 && !PeriodicCheck(cluster)) return false;
      return !done() && !PastTimeLimit(cluster);
    });
  }
  return done() ? Status() : StalledError(cluster, what);
}

/**
 * Runs what the adapters and hosts still have to do (up to run.time_limit and
 * host.touched_limit).
 */
void RunToQuiet(Cluster& cluster);
/**
 * Runs the cluster's windows (Cluster::windows: split or not) to the end of their events or to
 * run.time_limit, with no test of "done" after each event. Returns where a stall would be: the
 * first event left past the limit, or, with none left, the latest clock of any process. Every
 * process of a split run calls it.
 */
Result<uint64_t> RunWindowsToEnd(Cluster& cluster);

/** Ping-pong latency and one-way bandwidth per message size between two windows. */
struct PingPongConfig {
  std::vector<int64_t> sizes = {0, 16, 64, 256, 1024, 2032};
  uint32_t iterations = 200;
  uint32_t stream_packets = 2000;
};
Result<WorkloadResult> RunPingPongSweep(Cluster& cluster, const PingPongConfig& config);

/** A one-way stream of equal packets from the first window to a window on another node. */
struct StreamConfig {
  uint64_t packets = 100000;
  uint32_t size = 1024;
};
Result<WorkloadResult> RunStream(Cluster& cluster, const StreamConfig& config);

/** Every window sends random-size packets to random other windows; every byte is checked. */
struct ExchangeConfig {
  uint64_t messages = 20000;
  /** Largest payload; negative means the largest single-packet payload. */
  int64_t max_size = -1;
  /**
   * Called for every message delivered intact: (sender index, sequence, receiver index,
   * payload). Each sender's messages come from its own seeded stream, so the set of
   * messages does not depend on timing: two backends can be compared message by message.
   */
  std::function<void(size_t src, uint32_t seq, size_t dest, const uint8_t* data, uint32_t len)>
      on_delivered;
};
Result<WorkloadResult> RunRandomExchange(Cluster& cluster, const ExchangeConfig& config);

/** RDMA writes or reads of each size between two windows, timed to the completion. */
struct RdmaSweepConfig {
  bool read = false;
  std::vector<int64_t> sizes = {0, 4096, 65536, 1048576};
  uint32_t iterations = 4;
  /** Pages backing the buffers (abi::kPageShift*). */
  uint32_t page_shift = 24;
};
Result<WorkloadResult> RunRdmaSweep(Cluster& cluster, const RdmaSweepConfig& config);
/** Host memory per node the sweep's buffers need (ClusterConfig::rdma_host_bytes). */
uint64_t RdmaSweepHostBytes(const RdmaSweepConfig& config);

/**
 * A stream from one window to another that a window lifecycle event interrupts: at `at_ps`
 * after the stream starts, the job closes the receiving window (close_under_load) or the
 * receiving adapter is recovered (recovery_under_load). Once everything sent before settles,
 * the window is open again and a second stream of `packets` must arrive exactly.
 */
struct LifecycleConfig {
  uint64_t at_ps = 20'000'000;
  /** Packets in each of the two streams. */
  uint64_t packets = 200;
  uint32_t size = 1024;
};
/**
 * Closes the receiving window mid-stream, waits for the driver's release, reopens it and
 * streams again. Checks: nothing is written into the window after its release (and no DMA
 * reaches freed memory); every packet of the first stream was written into the window or
 * dropped because of the close; nothing from the first stream reaches the reopened window;
 * the second stream arrives exactly once, byte for byte.
 */
Result<WorkloadResult> RunCloseUnderLoad(Cluster& cluster, const LifecycleConfig& config);
/**
 * Recovers the receiving adapter mid-stream (its endpoints are rebuilt), then streams again.
 * Checks: every packet of the first stream that arrives, before or after the recovery, is
 * exact and arrives once; no DMA reaches freed memory; the second stream arrives exactly.
 */
Result<WorkloadResult> RunRecoveryUnderLoad(Cluster& cluster, const LifecycleConfig& config);

/** The two windows a two-party workload uses: window 0 of the first and of the second node. */
Result<std::pair<WindowProcess*, WindowProcess*>> PickPair(Cluster& cluster);

}  // namespace nicsim::sim
