// SPDX-License-Identifier: Apache-2.0
// The window loop of a split run: conservative synchronisation with the fabric's least
// latency as lookahead (docs/architecture.md, "Distribution over MPI").
#include "sim/distrib/split_run.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "sim/fabric/switch_fabric.h"
#include "sim/observe/progress.h"

namespace nicsim::sim::distrib {

SplitRun::SplitRun(Collectives& world, PartitionMap map)
    : world_(world), map_(std::move(map)), local_nodes_(map_.nodes(), 0) {
  for (uint32_t n = 0; n < map_.nodes(); ++n) local_nodes_[n] = map_.PartOf(n) == world_.rank();
}

uint64_t LookaheadOf(const SwitchFabric& fabric) {
  return fabric.config().link_delay_ps + fabric.config().hop_latency_ps;
}

WindowHooks UpToTimeLimit(uint64_t time_limit_ps) {
  WindowHooks hooks;
  hooks.stop_before_ps = time_limit_ps == UINT64_MAX ? UINT64_MAX : time_limit_ps + 1;
  return hooks;
}

Status SplitRun::RunWindows(kernel::EventQueue& events, SwitchFabric& fabric,
                            const WindowHooks& hooks) {
  return RunWindows(events, fabric, LookaheadOf(fabric), hooks);
}

Status SplitRun::ExchangeHandOvers(const WindowClock& clock, SwitchFabric& fabric) {
  std::vector<std::vector<uint8_t>> out(world_.size());
  for (const HandOver& h : outbox_) EncodeHandOver(h, &out[map_.PartOf(h.runs_as)]);
  frames_sent_ += outbox_.size();
  outbox_.clear();
  const std::vector<std::vector<uint8_t>> in = world_.Exchange(out);
  for (uint32_t from = 0; from < in.size(); ++from) {
    Result<std::vector<HandOver>> frames = DecodeHandOvers(in[from].data(), in[from].size());
    if (!frames.ok()) {
      return Status::Error("frames from partition " + std::to_string(from) + ": " +
                           frames.status().message());
    }
    for (HandOver& h : *frames) {
      if (Status s = clock.CheckArrival(h.time_ps, from); !s.ok()) return s;
      fabric.Import(std::move(h));
    }
  }
  return Status();
}

Status SplitRun::RunWindows(kernel::EventQueue& events, SwitchFabric& fabric, uint64_t lookahead_ps,
                            const WindowHooks& hooks) {
  // One process alone neither exchanges nor waits: its windows only mark where it stops, so
  // they cost no clock reading, and a fabric without latency gives it windows of 1 ps.
  const bool alone = world_.size() == 1;
  if (lookahead_ps == 0) {
    if (!alone) {
      return Status::Error(
          "a split run needs a fabric latency above 0 (fabric.link_delay + "
          "fabric.hop_latency) as its lookahead");
    }
    lookahead_ps = 1;
  }
  lookahead_ps_ = lookahead_ps;
  WindowClock clock(lookahead_ps);
  Status failed;
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
  };
  Clock::time_point sync_start = alone ? Clock::time_point() : Clock::now();
  for (;;) {
    if (limit_.stopped && limit_.stopped()) break;
    // A co-simulator's steps (SystemC's) are this process's own adapters' work: they count.
    const uint64_t next_ps = world_.Min(events.next_any_time_ps());
    if (next_ps >= hooks.stop_before_ps || !clock.Advance(next_ps)) break;
    // A shorter window is as safe: nothing from another partition is due inside it either.
    const uint64_t end_ps = std::min(clock.window_end_ps(), hooks.stop_before_ps);
    const Clock::time_point run_start = alone ? sync_start : Clock::now();
    sync_s_ += seconds(sync_start, run_start);
    events.RunWhile([&] {
      if (hooks.between_events) hooks.between_events();
      return events.next_any_time_ps() < end_ps;
    });
    sync_start = alone ? run_start : Clock::now();
    run_s_ += seconds(run_start, sync_start);
    if (!alone || !outbox_.empty()) failed = ExchangeHandOvers(clock, fabric);
    if (failed.ok() && hooks.after_window) failed = hooks.after_window();
    // A failed process offers no next event; the others learn of it from the error count,
    // which carries the processes not yet finished in its low bits.
    constexpr uint64_t kFailure = uint64_t{1} << 32;
    const bool unfinished = hooks.finished && !hooks.finished();
    const uint64_t report = world_.Sum((failed.ok() ? 0 : kFailure) + (unfinished ? 1 : 0));
    if (report >= kFailure) {
      windows_ += clock.windows();
      return failed.ok() ? Status::Error("another partition stopped the run (see its message)")
                         : failed;
    }
    if (limit_.local && limit_.over(world_.Sum(limit_.local()))) break;
    if (hooks.finished && report == 0) break;
    // The progress line (rank 0's, on a terminal) counts the events of every process. Every
    // process runs the same windows, so each takes part in the same sums.
    if (clock.windows() % kWindowsPerProgress == 0) {
      Progress::Tick(events.now_ps(),
                     alone ? events.events_run() : world_.Sum(events.events_run()));
    }
  }
  if (!alone) sync_s_ += seconds(sync_start, Clock::now());
  windows_ += clock.windows();
  return Status();
}

}  // namespace nicsim::sim::distrib
