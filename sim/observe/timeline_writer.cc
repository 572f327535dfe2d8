// SPDX-License-Identifier: Apache-2.0
// The timeline file: one TimelineModel, written by the encoder its name chooses; and the
// fan-out that lets the text trace and the timeline share a cluster's one trace sink.
#include "sim/observe/timeline_writer.h"

#include "sim/observe/timeline_json.h"
#include "sim/observe/timeline_perfetto.h"

namespace nicsim::sim {
namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

TimelineWriter::Format TimelineWriter::FormatFor(std::string_view path) {
  return EndsWith(path, ".perfetto-trace") || EndsWith(path, ".pftrace") ? Format::kPerfetto
                                                                         : Format::kJson;
}

TimelineWriter::TimelineWriter(const std::string& path, TraceSelection selection)
    : file_(std::fopen(path.c_str(), FormatFor(path) == Format::kPerfetto ? "wb" : "w")),
      opened_(file_ != nullptr),
      format_(FormatFor(path)),
      model_(std::move(selection)) {}

TimelineWriter::~TimelineWriter() { Finish(); }

void TimelineWriter::Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) {
  model_.Record(time_ps, adapter, event);
}

std::string TimelineWriter::Render() {
  model_.Close();
  return format_ == Format::kPerfetto ? TimelinePerfetto(model_) : TimelineJson(model_);
}

bool TimelineWriter::Finish() {
  if (finished_) return true;
  if (file_ == nullptr) return false;
  finished_ = true;
  const std::string bytes = Render();
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), file_) == bytes.size();
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  return wrote && closed;
}

void TraceFanOut::Add(hw::func::TraceSink* sink) {
  if (sink != nullptr) sinks_.push_back(sink);
}

hw::func::TraceSink* TraceFanOut::Sink() {
  if (sinks_.empty()) return nullptr;
  return sinks_.size() == 1 ? sinks_.front() : this;
}

void TraceFanOut::Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) {
  for (hw::func::TraceSink* sink : sinks_) sink->Record(time_ps, adapter, event);
}

}  // namespace nicsim::sim
