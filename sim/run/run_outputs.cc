// SPDX-License-Identifier: Apache-2.0
#include "sim/run/run_outputs.h"

namespace nicsim::sim {

Status OpenOutputs(const RunOptions& options, distrib::SplitRun* split, RunOutputs* out) {
  const bool writes_files = split == nullptr || split->world().rank() == 0;
  Status open_error;
  if (!options.trace_path.empty()) {
    Result<TraceFilter> filter = TraceFilter::Parse(options.trace_filter);
    if (!filter.ok()) return filter.status();
    if (split != nullptr) {
      out->split_records.trace = std::make_unique<distrib::KeyedTraceSink>(*filter);
    }
    if (writes_files) {
      out->trace = std::make_unique<TraceWriter>(
          options.trace_path, std::move(*filter),
          options.trace_create_new ? TraceWriter::Open::kCreateNew : TraceWriter::Open::kTruncate);
      if (!out->trace->ok()) {
        open_error = Status::Error("--trace " + options.trace_path + ": cannot open for writing");
      }
    }
  }
  if (!options.timeline_path.empty()) {
    if (split != nullptr) out->split_records.timeline = std::make_unique<distrib::KeyedEventSink>();
    if (writes_files && open_error.ok()) {
      out->timeline = std::make_unique<TimelineWriter>(options.timeline_path, options.selection);
      if (!out->timeline->ok()) {
        open_error =
            Status::Error("--timeline " + options.timeline_path + ": cannot open for writing");
      }
    }
  }
  if (!options.pcap_path.empty()) {
    if (split != nullptr) {
      out->split_records.capture = std::make_unique<distrib::KeyedCapture>(options.selection);
    }
    if (writes_files && open_error.ok()) {
      Result<std::unique_ptr<PcapWriter>> opened = PcapWriter::Open(options.pcap_path);
      if (opened.ok()) {
        out->pcap = std::move(*opened);
        out->pcap->Select(options.selection);
      } else {
        open_error = Status::Error("--pcap " + opened.status().message());
      }
    }
  }
  if (split != nullptr && split->world().Sum(open_error.ok() ? 0 : 1) > 0 && open_error.ok()) {
    open_error = Status::Error("rank 0 could not open --trace, --timeline or --pcap for writing");
  }
  return open_error;
}

Status CloseOutputs(const RunOptions& options, distrib::SplitRun* split, RunOutputs& out) {
  if (split != nullptr) {
    Status merged = out.split_records.WriteMerged(split->world(), out.trace.get(),
                                                  out.timeline.get(), out.pcap.get());
    if (!merged.ok()) return merged;
  }
  // Written after the clock stops: rendering the timeline is not simulation time.
  if (out.timeline != nullptr && !out.timeline->Finish()) {
    return Status::Error("--timeline " + options.timeline_path + ": write failed");
  }
  if (out.pcap != nullptr && !out.pcap->Close()) {
    return Status::Error("--pcap " + options.pcap_path + ": write failed");
  }
  if (out.trace != nullptr && !out.trace->Close()) {
    return Status::Error("--trace " + options.trace_path + ": write failed");
  }
  return Status();
}

}  // namespace nicsim::sim
