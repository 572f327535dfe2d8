// SPDX-License-Identifier: Apache-2.0
// The timeline of a run as tracks and slices, built from firmware and hardware trace events:
// one model that both timeline encoders (Chrome JSON, Perfetto protobuf) write out.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hw/func/adapter_model.h"
#include "sim/observe/trace_selection.h"

namespace nicsim::sim {

/** One slice ('X': from ts_ps for dur_ps) or instant ('i') on track (pid, tid). */
struct TimelineSlice {
  uint64_t ts_ps = 0;
  uint64_t dur_ps = 0;
  char ph = 'X';
  /** The adapter id. */
  uint16_t pid = 0;
  /** The track within the adapter (TimelineModel::TrackName). */
  uint32_t tid = 0;
  std::string name;
  std::string cat;
  /** Compact JSON object text. */
  std::string args;
};

/**
 * A TraceSink that turns trace events into tracks and slices.
 *
 * Layout: a process per adapter (`pid` is the adapter id); `tid` is a track of that adapter:
 * "mmio" (commands, window closes, resets), "interrupts", "channel buffers" (LMT fetch and
 * flush), "task T" per microcode task, "dma" (plus "dma 1", "dma 2", ... when transfers
 * overlap), "link in" and "link out". A track's id is also its sort index.
 *
 * A task's state (kRxState/kTxState/kWorkState) is a slice "rx:<state>" / "tx:<state>" /
 * "wm:<state>" (the work manager task) that ends at the
 * task's next state, wait or drop; a wait is a slice "wait:<resource>" that ends the same way;
 * a drop is an instant "drop:<reason>". Slices still open when the run ends close at the last
 * time seen; a reset closes the adapter's open slices at once. Slices on one track never
 * overlap.
 *
 * A TraceSelection keeps the events of its adapters only; slices are clipped to its window
 * (one that overlaps it is kept from the window's start and to its end), instants outside it
 * are dropped, and only adapters with an event in the window or a kept slice are processes.
 */
class TimelineModel final : public hw::func::TraceSink {
 public:
  explicit TimelineModel(TraceSelection selection = {}) : selection_(std::move(selection)) {}

  /** Trace events recorded so far (of every adapter). */
  uint64_t events() const { return events_; }
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) override;

  /**
   * Closes every open slice at the last time seen and orders the slices by start time (a
   * stable sort keeps same-time slices in the order they happened), so every track's
   * timestamps are non-decreasing. Calling it again changes nothing.
   */
  void Close();

  /** The slices and instants kept, in start order once Close() has run. */
  const std::vector<TimelineSlice>& slices() const { return slices_; }
  /** The adapters shown, each a process "adapter N". */
  const std::set<uint16_t>& processes() const { return processes_; }
  /** Tracks used, as (pid, tid), in that order. */
  const std::set<std::pair<uint16_t, uint32_t>>& tracks() const { return tracks_; }
  /** The name of track `tid` ("mmio", "task 3", "dma 1", ...). */
  static std::string TrackName(uint32_t tid);

 private:
  /** A task slice begun but not yet ended. */
  struct OpenSlice {
    TimelineSlice slice;
    bool open = false;
  };
  /** A DMA transfer between its start and done events. */
  struct OpenDma {
    TimelineSlice slice;
    uint32_t lane = 0;
  };
  /** Per-adapter state: open task slices, DMA transfers in flight by (tag, direction), lanes. */
  struct Adapter {
    std::map<fw::TaskId, OpenSlice> tasks;
    std::map<std::pair<fw::TaskId, uint32_t>, std::deque<OpenDma>> dmas;
    std::vector<bool> lane_busy;
  };

  void Emit(TimelineSlice slice);
  /** An event that marks a moment rather than a task's state or a DMA: an instant on its
   *  track (link, interrupt, MMIO, LMT, RDMA). */
  void RecordInstant(uint64_t t, uint16_t pid, const fw::TraceEvent& e);
  void Instant(uint64_t ts_ps, uint16_t pid, uint32_t tid, std::string name, std::string cat,
               std::string args);
  void CloseTask(Adapter& a, fw::TaskId task, uint64_t end_ps);
  void OpenTask(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e, std::string name,
                std::string cat);
  void StartDma(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e);
  void FinishDma(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e);
  void CloseAll(Adapter& a, uint64_t end_ps, const char* dma_status);

  TraceSelection selection_;
  uint64_t events_ = 0;
  uint64_t last_ps_ = 0;
  std::map<uint16_t, Adapter> adapters_;
  std::set<uint16_t> processes_;
  std::set<std::pair<uint16_t, uint32_t>> tracks_;
  std::vector<TimelineSlice> slices_;
};

}  // namespace nicsim::sim
