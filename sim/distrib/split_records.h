// SPDX-License-Identifier: Apache-2.0
// A split run's trace and capture: each process keeps what its own nodes' events record, under
// the key of the event that recorded it (time, tie), and rank 0 merges every process's share
// into the order one process writes (docs/architecture.md, "Distribution over MPI").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "hw/func/adapter_model.h"
#include "kernel/event_queue.h"
#include "sim/distrib/collectives.h"
#include "sim/fabric/frame_capture.h"
#include "sim/fabric/pcap_writer.h"
#include "sim/observe/host_trace.h"
#include "sim/observe/timeline_writer.h"
#include "sim/observe/trace_selection.h"
#include "sim/observe/trace_writer.h"

namespace nicsim::sim::distrib {

/**
 * Records made by this process's events, each under its event's key. Events have keys no split
 * changes and run in key order, and one event runs in one process: merging every process's
 * records by key, those of one key in the order they were made, gives one process's order.
 */
class KeyedRecords {
 public:
  struct Record {
    uint64_t key_time_ps = 0;
    uint64_t tie = 0;
    /** The time the record itself carries (a frame's arrival). */
    uint64_t time_ps = 0;
    std::string_view bytes;
  };

  /** The queue whose running event keys the records (set once the cluster exists). */
  void Bind(const kernel::EventQueue* events) { events_ = events; }
  /** Keeps `len` bytes at `data`, carrying `time_ps`, under the running event's key. */
  void Add(uint64_t time_ps, const uint8_t* data, size_t len);
  /** Every record so far: key time, tie, time (8 bytes each), length (4), bytes; little
   *  endian. */
  const std::string& encoded() const { return encoded_; }

  /** Decodes every process's encoded() and merges them by key. An error names a truncated
   *  share; the records point into `parts`. */
  static Result<std::vector<Record>> Merge(const std::vector<std::string>& parts);

 private:
  const kernel::EventQueue* events_ = nullptr;
  std::string encoded_;
};

/** The firmware and host trace of this process's nodes, filtered and formatted as
 *  TraceWriter writes them, kept as keyed lines. */
class KeyedTraceSink final : public hw::func::TraceSink, public HostTraceSink {
 public:
  explicit KeyedTraceSink(TraceFilter filter) : filter_(std::move(filter)) {}
  KeyedRecords& records() { return records_; }
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) override;
  void RecordHost(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& event) override;

 private:
  TraceFilter filter_;
  KeyedRecords records_;
};

/** The firmware trace events of this process's nodes, raw (adapter and event), for rank 0 to
 *  replay into a TimelineWriter: what it writes depends only on the events it is given and
 *  their order. */
class KeyedEventSink final : public hw::func::TraceSink {
 public:
  KeyedRecords& records() { return records_; }
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) override;
  /** The adapter and event a record holds; false if its bytes are not one event. */
  static bool Decode(std::string_view bytes, uint16_t* adapter, fw::TraceEvent* event);

 private:
  KeyedRecords records_;
};

/** The frames this process's nodes receive that `selection` keeps, as keyed records. */
class KeyedCapture final : public FrameCapture {
 public:
  explicit KeyedCapture(TraceSelection selection) : selection_(std::move(selection)) {}
  KeyedRecords& records() { return records_; }
  bool Wants(uint64_t time_ps, uint16_t src_adapter, uint16_t dest_adapter) const override;
  bool Write(uint64_t time_ps, const std::vector<uint8_t>& bytes) override;

 private:
  TraceSelection selection_;
  KeyedRecords records_;
};

/**
 * A split run's records of the outputs asked for (null: not asked): each process keeps its
 * own, and WriteMerged has rank 0 write them all through the ordinary writers.
 */
struct SplitRecorders {
  std::unique_ptr<KeyedTraceSink> trace;
  std::unique_ptr<KeyedEventSink> timeline;
  std::unique_ptr<KeyedCapture> capture;

  /** Keys every record by `events`' running event from now on. */
  void Bind(const kernel::EventQueue* events);
  /** Gathers and merges each output on rank 0 and writes it there to the writer given
   *  (which only rank 0 has). Every process calls it. */
  Status WriteMerged(Collectives& world, TraceWriter* trace_out, TimelineWriter* timeline_out,
                     PcapWriter* pcap_out) const;
};

/**
 * Gathers every process's `records` on rank 0 and gives them there, merged, to `write`, which
 * returns false to stop (a failed write). Every process calls it; an error (a share that does
 * not decode) on rank 0 only.
 */
Status GatherMerged(Collectives& world, const KeyedRecords& records,
                    const std::function<bool(const KeyedRecords::Record&)>& write);

}  // namespace nicsim::sim::distrib
