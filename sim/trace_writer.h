// SPDX-License-Identifier: Apache-2.0
// Writes firmware trace events as text, one line per event: time, adapter, what happened,
// and the task, state name, window, channel buffer and DTB involved.
#pragma once

#include <cstdio>
#include <string>

#include "hw/func/adapter_model.h"

namespace nicsim::sim {

/** Formats one trace event (without a newline). */
std::string FormatTraceEvent(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event);

/** A TraceSink writing to a file. */
class TraceWriter final : public hw::func::TraceSink {
 public:
  /** Opens `path` for writing; check ok() before use. */
  explicit TraceWriter(const std::string& path);
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  bool ok() const { return file_ != nullptr; }
  uint64_t events() const { return events_; }
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) override;

 private:
  std::FILE* file_;
  uint64_t events_ = 0;
};

}  // namespace nicsim::sim
