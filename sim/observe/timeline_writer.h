// SPDX-License-Identifier: Apache-2.0
// Writes firmware and hardware trace events as a timeline file for ui.perfetto.dev: Chrome
// trace-event JSON, or Perfetto's protobuf trace when the name ends in .perfetto-trace/.pftrace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "hw/func/adapter_model.h"
#include "sim/observe/timeline_model.h"
#include "sim/observe/trace_selection.h"

namespace nicsim::sim {

/**
 * A TraceSink that builds a timeline in memory (TimelineModel: a process per adapter, a track
 * per task, DMA lane, link and command path) and writes it when finished, in the format the
 * file name asks for (FormatFor): timeline_json.h or timeline_perfetto.h says what each holds.
 */
class TimelineWriter final : public hw::func::TraceSink {
 public:
  /** The file formats of a timeline. */
  enum class Format {
    /** Chrome trace-event JSON (any name but the two below). */
    kJson,
    /** Perfetto TracePacket protobuf (names ending in .perfetto-trace or .pftrace). */
    kPerfetto,
  };
  /** The format for a file name, by its ending. */
  static Format FormatFor(std::string_view path);

  /**
   * Opens `path` for writing; check ok() before use. The file is written by Finish() and holds
   * what `selection` keeps (TimelineModel).
   */
  explicit TimelineWriter(const std::string& path, TraceSelection selection = {});
  /** Finishes the file if Finish() was not called. */
  ~TimelineWriter() override;
  TimelineWriter(const TimelineWriter&) = delete;
  TimelineWriter& operator=(const TimelineWriter&) = delete;

  /** True if the file opened. */
  bool ok() const { return opened_; }
  /** Trace events recorded so far. */
  uint64_t events() const { return model_.events(); }
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) override;

  /**
   * Closes every open slice at the last time seen, writes the file and closes it. Returns
   * false if the file did not open or could not be written. Later calls return true.
   */
  bool Finish();

  /** The timeline's bytes in the file's format, with open slices closed at the last time seen. */
  std::string Render();

 private:
  std::FILE* file_;
  bool opened_;
  bool finished_ = false;
  Format format_;
  TimelineModel model_;
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
