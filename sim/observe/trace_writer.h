// SPDX-License-Identifier: Apache-2.0
// Writes firmware and host trace events as text, one line per event: time, adapter, what
// happened, and the task, state name, window, channel buffer and DTB involved.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

#include "hw/func/adapter_model.h"
#include "sim/observe/host_trace.h"

namespace nicsim::sim {

/** Which events a trace keeps: empty sets keep everything. */
struct TraceFilter {
  std::vector<uint16_t> adapters;
  std::vector<uint32_t> windows;
  /** Kind names as written in the trace: "rx", "drop", "dma_start", ... */
  std::vector<std::string> kinds;

  /** Parses "adapter=1,window=0,kind=rx|tx" (any subset, '|' for alternatives). */
  static Result<TraceFilter> Parse(std::string_view text);
  bool Keeps(uint16_t adapter, const fw::TraceEvent& event) const;
  bool Keeps(uint16_t adapter, const HostTraceEvent& event) const;

 private:
  bool Keeps(uint16_t adapter, uint32_t window, std::string_view kind) const;
};

/** The trace name of an event kind ("rx", "dma_start", ...). */
std::string_view TraceKindName(fw::TraceKind kind);

/** Formats one trace event (without a newline). */
std::string FormatTraceEvent(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event);
/** Formats one host event in the same columns (task, state, cb and dtb are '-'). */
std::string FormatHostTraceEvent(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& event);

/** A TraceSink (firmware and hardware events) and HostTraceSink writing to one file. */
class TraceWriter final : public hw::func::TraceSink, public HostTraceSink {
 public:
  /** How the file is opened. */
  enum class Open {
    /** Create or truncate (a symlink is followed, as for any output file the user names). */
    kTruncate,
    /**
     * Create a new file (O_CREAT | O_EXCL, mode 0600): fails if anything, a symlink included,
     * is already at the path. For files nicsim names itself in a shared directory.
     */
    kCreateNew,
  };
  /** Opens `path` for writing; check ok() before use. */
  explicit TraceWriter(const std::string& path, TraceFilter filter = {},
                       Open open = Open::kTruncate);
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  bool ok() const { return file_ != nullptr; }
  /** Flushes and closes the file; false if any write failed (a full disk, /dev/full). */
  bool Close();
  uint64_t events() const { return events_; }
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) override;
  void RecordHost(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& event) override;
  /** Writes one event already formatted (FormatTraceEvent; a split run's merged trace). */
  void WriteLine(std::string_view line);

 private:
  std::FILE* file_;
  TraceFilter filter_;
  uint64_t events_ = 0;
};

}  // namespace nicsim::sim
