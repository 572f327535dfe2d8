// SPDX-License-Identifier: Apache-2.0
// Writes firmware and hardware trace events as a Chrome trace-event JSON timeline (opens in
// ui.perfetto.dev): one process per adapter, one track per task, DMA lane, link and command path.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hw/func/adapter_model.h"

namespace nicsim::sim {

/**
 * A TraceSink that builds a timeline in memory and writes it as Chrome trace-event JSON.
 *
 * Layout: `pid` is the adapter id (process "adapter N"); `tid` is a track of that adapter:
 * "mmio" (commands, window closes, resets), "interrupts", "channel buffers" (LMT fetch and
 * flush), "task T" per microcode task, "dma" (plus "dma 1", "dma 2", ... when transfers
 * overlap), "link in" and "link out". Time `ts` is microseconds written as an exact decimal
 * of the picosecond clock, so picosecond order survives.
 *
 * A task's state (kRxState/kTxState) is a complete ("X") slice "rx:<state>" / "tx:<state>"
 * that ends at the task's next state, wait or drop; a wait is a slice "wait:<resource>" that
 * ends the same way; a drop is an instant "drop:<reason>". Slices still open when the run
 * ends close at the last time seen; a reset closes the adapter's open slices at once.
 */
class TimelineWriter final : public hw::func::TraceSink {
 public:
  /** Opens `path` for writing; check ok() before use. The file is written by Finish(). */
  explicit TimelineWriter(const std::string& path);
  /** Finishes the file if Finish() was not called. */
  ~TimelineWriter() override;
  TimelineWriter(const TimelineWriter&) = delete;
  TimelineWriter& operator=(const TimelineWriter&) = delete;

  /** True if the file opened. */
  bool ok() const { return opened_; }
  /** Trace events recorded so far. */
  uint64_t events() const { return events_; }
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) override;

  /**
   * Closes every open slice at the last time seen, writes the JSON and closes the file.
   * Returns false if the file did not open or could not be written. Later calls return true.
   */
  bool Finish();

  /** The timeline as JSON text, with open slices closed at the last time seen. */
  std::string Render();

 private:
  /** One output event; `ph` is 'X' (complete) or 'i' (instant). */
  struct Slice {
    uint64_t ts_ps = 0;
    uint64_t dur_ps = 0;
    char ph = 'X';
    uint16_t pid = 0;
    uint32_t tid = 0;
    std::string name;
    std::string cat;
    /** Compact JSON object text. */
    std::string args;
  };
  /** A task slice begun but not yet ended. */
  struct OpenSlice {
    Slice slice;
    bool open = false;
  };
  /** A DMA transfer between its start and done events. */
  struct OpenDma {
    Slice slice;
    uint32_t lane = 0;
  };
  /** Per-adapter state: open task slices, DMA transfers in flight by (tag, direction), lanes. */
  struct Adapter {
    std::map<fw::TaskId, OpenSlice> tasks;
    std::map<std::pair<fw::TaskId, uint32_t>, std::deque<OpenDma>> dmas;
    std::vector<bool> lane_busy;
  };

  void Track(uint16_t pid, uint32_t tid);
  void Emit(Slice slice);
  void Instant(uint64_t ts_ps, uint16_t pid, uint32_t tid, std::string name, std::string cat,
               std::string args);
  void CloseTask(Adapter& a, fw::TaskId task, uint64_t end_ps);
  void OpenTask(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e, std::string name,
                std::string cat);
  void StartDma(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e);
  void FinishDma(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e);
  void CloseAll(Adapter& a, uint64_t end_ps, const char* dma_status);

  std::FILE* file_;
  bool opened_;
  bool finished_ = false;
  uint64_t events_ = 0;
  uint64_t last_ps_ = 0;
  std::map<uint16_t, Adapter> adapters_;
  /** Tracks used, as (pid, tid): each gets a thread_name, each pid a process_name. */
  std::set<std::pair<uint16_t, uint32_t>> tracks_;
  std::vector<Slice> slices_;
};

/** A TraceSink that forwards each event to several sinks, in the order they were added. */
class TraceFanOut final : public hw::func::TraceSink {
 public:
  /** Adds `sink` (ignored if null). */
  void Add(hw::func::TraceSink* sink);
  /** What to attach to a cluster: null with no sinks, the sink itself with one, else this. */
  hw::func::TraceSink* Sink();
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) override;

 private:
  std::vector<hw::func::TraceSink*> sinks_;
};

}  // namespace nicsim::sim
