// SPDX-License-Identifier: Apache-2.0
// One process's share of a split run: the nodes it runs, the frames it hands to other
// partitions, and the window loop that runs its events in step with the other processes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/status.h"
#include "kernel/event_queue.h"
#include "sim/distrib/collectives.h"
#include "sim/fabric/hand_over.h"
#include "sim/distrib/partition_map.h"
#include "sim/distrib/window_clock.h"

namespace nicsim::sim {
class SwitchFabric;
}

namespace nicsim::sim::distrib {

/** What a workload adds to the window loop (both optional). */
struct WindowHooks {
  /** Runs before each event and once more before a window closes: work outside events (an MPI
   *  job resuming the ranks that became ready) may schedule events, which the window then runs
   *  if they are due in it. */
  std::function<void()> between_events;
  /** Runs after each window's exchange: an error stops every process at that window. */
  std::function<Status()> after_window;
  /** If set, the loop also ends after a window at whose end it holds on every process
   *  (agreed with the error count, at no extra exchange). */
  std::function<bool()> finished;
  /** No window reaches past this time: the loop ends once every event before it has run
   *  everywhere (the start of an MPI job's next run). */
  uint64_t stop_before_ps = UINT64_MAX;
};

/** Hooks that run no event due past `time_limit_ps` (run.time_limit; UINT64_MAX: none), where
 *  one process's RunUntil and RunToQuiet stop. */
WindowHooks UpToTimeLimit(uint64_t time_limit_ps);

/**
 * A limit on a figure summed over the processes at every window's end (the nodes' touched
 * host memory): the run's, not one process's. Set once by the cluster.
 */
struct WindowLimit {
  /** This process's share of the figure now. */
  std::function<uint64_t()> local;
  /** Told the sum over every process; true if that is over the limit (the run stops). */
  std::function<bool(uint64_t total)> over;
  /** True once a window's sum was over: every process agrees, so none starts a window. */
  std::function<bool()> stopped;
};

/** The fabric's least latency from routing a frame to its hand-over (fabric.link_delay +
 *  fabric.hop_latency): a split run's lookahead. */
uint64_t LookaheadOf(const SwitchFabric& fabric);

/**
 * This process's part of a run split over `world`'s processes: partition world.rank() of
 * `map`. The cluster gives it its event queue and fabric (Cluster::Create), which keep only
 * this partition's events and hand frames for other partitions to outbox().
 */
class SplitRun {
 public:
  SplitRun(Collectives& world, PartitionMap map);

  Collectives& world() { return world_; }
  const PartitionMap& map() const { return map_; }
  /** One byte per node: 1 if this process runs it (EventQueue::KeepOnly's format). */
  const std::vector<uint8_t>& local_nodes() const { return local_nodes_; }
  bool IsLocalNode(uint32_t node) const { return local_nodes_[node] != 0; }
  /** Where the fabric puts frames for nodes of other partitions. */
  std::vector<HandOver>* outbox() { return &outbox_; }
  /** Windows between two updates of the progress line (a sum over the processes each). */
  static constexpr uint64_t kWindowsPerProgress = 256;
  /** Windows run so far. */
  uint64_t windows() const { return windows_; }
  /** The lookahead of the last RunWindows. */
  uint64_t lookahead_ps() const { return lookahead_ps_; }
  /** Hand-overs sent to other partitions so far. */
  uint64_t frames_sent() const { return frames_sent_; }
  /** Wall seconds RunWindows spent running this partition's events, and the rest: encoding,
   *  exchanging and importing frames, agreeing on windows, and waiting for the other
   *  processes (the synchronisation's whole cost). */
  double run_s() const { return run_s_; }
  double sync_s() const { return sync_s_; }

  /**
   * Runs this partition's events, window by window, until every partition is idle and no
   * frame is in flight (or `hooks` end it sooner): in each window the events before its end,
   * then the exchange of hand-overs and the agreement on the next window. `lookahead_ps` must
   * be above 0 when the world has several processes (one process alone takes 0 as 1 ps). An
   * error if a hand-over arrives inside the window it was sent in (a lookahead violation) or
   * cannot be decoded; every process sees the same exchange, so every process stops.
   */
  Status RunWindows(kernel::EventQueue& events, SwitchFabric& fabric, uint64_t lookahead_ps,
                    const WindowHooks& hooks = {});
  /** RunWindows with LookaheadOf(fabric) as the lookahead. */
  Status RunWindows(kernel::EventQueue& events, SwitchFabric& fabric,
                    const WindowHooks& hooks = {});

  /**
   * From now on RunWindows sums `limit.local` over the processes after every window and ends
   * (with no error: the workload reports the stop) once `limit.over` holds; it starts no
   * window while `limit.stopped` holds. One sum per window.
   */
  void SetWindowLimit(WindowLimit limit) { limit_ = std::move(limit); }

 private:
  /** Sends this window's hand-overs to their partitions and imports those sent here: an
   *  error if one cannot be decoded or is due inside the window (`clock`'s) just run. */
  Status ExchangeHandOvers(const WindowClock& clock, SwitchFabric& fabric);

  Collectives& world_;
  PartitionMap map_;
  std::vector<uint8_t> local_nodes_;
  std::vector<HandOver> outbox_;
  WindowLimit limit_;
  uint64_t windows_ = 0;
  uint64_t lookahead_ps_ = 0;
  uint64_t frames_sent_ = 0;
  double run_s_ = 0;
  double sync_s_ = 0;
};

}  // namespace nicsim::sim::distrib
