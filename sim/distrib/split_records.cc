// SPDX-License-Identifier: Apache-2.0
// Keyed records of a split run's trace and capture: encoding, the merge by event key, and
// the gathering on rank 0.
#include "sim/distrib/split_records.h"

#include <algorithm>

#include "base/le_bytes.h"

namespace nicsim::sim::distrib {
namespace {

/** Key time, tie, time (8 each), length (4). */
constexpr size_t kRecordHeader = 3 * 8 + 4;

}  // namespace

void KeyedRecords::Add(uint64_t time_ps, const uint8_t* data, size_t len) {
  std::vector<uint8_t> head;
  head.reserve(kRecordHeader);
  PutLe(&head, events_ != nullptr ? events_->now_ps() : 0, 8);
  PutLe(&head, events_ != nullptr ? events_->running_tie() : 0, 8);
  PutLe(&head, time_ps, 8);
  PutLe(&head, len, 4);
  encoded_.append(reinterpret_cast<const char*>(head.data()), head.size());
  encoded_.append(reinterpret_cast<const char*>(data), len);
}

Result<std::vector<KeyedRecords::Record>> KeyedRecords::Merge(
    const std::vector<std::string>& parts) {
  std::vector<Record> all;
  for (size_t p = 0; p < parts.size(); ++p) {
    const auto* at = reinterpret_cast<const uint8_t*>(parts[p].data());
    size_t left = parts[p].size();
    while (left > 0) {
      if (left < kRecordHeader) {
        return Status::Error("split run: the records of process " + std::to_string(p) +
                             " end inside a record header");
      }
      Record r;
      r.key_time_ps = GetLe(at, 8);
      r.tie = GetLe(at + 8, 8);
      r.time_ps = GetLe(at + 16, 8);
      const uint64_t len = GetLe(at + 24, 4);
      if (left - kRecordHeader < len) {
        return Status::Error("split run: the records of process " + std::to_string(p) +
                             " end inside a record of " + std::to_string(len) + " bytes");
      }
      r.bytes = std::string_view(reinterpret_cast<const char*>(at + kRecordHeader), len);
      all.push_back(r);
      at += kRecordHeader + len;
      left -= kRecordHeader + len;
    }
  }
  // Stable: records of one key come from one process (one event), in the order it made them.
  std::stable_sort(all.begin(), all.end(), [](const Record& a, const Record& b) {
    return a.key_time_ps != b.key_time_ps ? a.key_time_ps < b.key_time_ps : a.tie < b.tie;
  });
  return all;
}

void KeyedTraceSink::Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) {
  if (!filter_.Keeps(adapter, event)) return;
  const std::string line = FormatTraceEvent(time_ps, adapter, event);
  records_.Add(time_ps, reinterpret_cast<const uint8_t*>(line.data()), line.size());
}

void KeyedTraceSink::RecordHost(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& event) {
  if (!filter_.Keeps(adapter, event)) return;
  const std::string line = FormatHostTraceEvent(time_ps, adapter, event);
  records_.Add(time_ps, reinterpret_cast<const uint8_t*>(line.data()), line.size());
}

namespace {

/** adapter (2), kind (1), task (2), state (4), window (4), cb (2), dtb (2), value (8). */
constexpr size_t kEventBytes = 2 + 1 + 2 + 4 + 4 + 2 + 2 + 8;

}  // namespace

void KeyedEventSink::Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) {
  std::vector<uint8_t> bytes;
  bytes.reserve(kEventBytes);
  PutLe(&bytes, adapter, 2);
  PutLe(&bytes, static_cast<uint8_t>(event.kind), 1);
  PutLe(&bytes, event.task, 2);
  PutLe(&bytes, event.state, 4);
  PutLe(&bytes, event.window, 4);
  PutLe(&bytes, event.cb, 2);
  PutLe(&bytes, event.dtb, 2);
  PutLe(&bytes, event.value, 8);
  records_.Add(time_ps, bytes.data(), bytes.size());
}

bool KeyedEventSink::Decode(std::string_view bytes, uint16_t* adapter, fw::TraceEvent* event) {
  if (bytes.size() != kEventBytes) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  *adapter = static_cast<uint16_t>(GetLe(p, 2));
  event->kind = static_cast<fw::TraceKind>(GetLe(p + 2, 1));
  event->task = static_cast<fw::TaskId>(GetLe(p + 3, 2));
  event->state = static_cast<uint32_t>(GetLe(p + 5, 4));
  event->window = static_cast<uint32_t>(GetLe(p + 9, 4));
  event->cb = static_cast<fw::CbId>(GetLe(p + 13, 2));
  event->dtb = static_cast<fw::DtbId>(GetLe(p + 15, 2));
  event->value = GetLe(p + 17, 8);
  return true;
}

bool KeyedCapture::Wants(uint64_t time_ps, uint16_t src_adapter, uint16_t dest_adapter) const {
  return selection_.KeepsFrame(time_ps, src_adapter, dest_adapter);
}

bool KeyedCapture::Write(uint64_t time_ps, const std::vector<uint8_t>& bytes) {
  records_.Add(time_ps, bytes.data(), bytes.size());
  return true;
}

void SplitRecorders::Bind(const kernel::EventQueue* events) {
  if (trace != nullptr) trace->records().Bind(events);
  if (timeline != nullptr) timeline->records().Bind(events);
  if (capture != nullptr) capture->records().Bind(events);
}

Status SplitRecorders::WriteMerged(Collectives& world, TraceWriter* trace_out,
                                   TimelineWriter* timeline_out, PcapWriter* pcap_out) const {
  using Record = KeyedRecords::Record;
  if (trace != nullptr) {
    Status s = GatherMerged(world, trace->records(), [&](const Record& r) {
      trace_out->WriteLine(r.bytes);
      return true;
    });
    if (!s.ok()) return s;
  }
  if (timeline != nullptr) {
    Status s = GatherMerged(world, timeline->records(), [&](const Record& r) {
      uint16_t adapter = 0;
      fw::TraceEvent event;
      if (!KeyedEventSink::Decode(r.bytes, &adapter, &event)) return false;
      timeline_out->Record(r.time_ps, adapter, event);
      return true;
    });
    if (!s.ok()) return s;
  }
  if (capture != nullptr) {
    return GatherMerged(world, capture->records(), [&](const Record& r) {
      return pcap_out->Write(r.time_ps, reinterpret_cast<const uint8_t*>(r.bytes.data()),
                             r.bytes.size());
    });
  }
  return Status();
}

Status GatherMerged(Collectives& world, const KeyedRecords& records,
                    const std::function<bool(const KeyedRecords::Record&)>& write) {
  const std::vector<std::string> parts = world.GatherToRoot(records.encoded());
  if (world.rank() != 0) return Status();
  Result<std::vector<KeyedRecords::Record>> merged = KeyedRecords::Merge(parts);
  if (!merged.ok()) return merged.status();
  for (const KeyedRecords::Record& r : *merged) {
    if (!write(r)) break;
  }
  return Status();
}

}  // namespace nicsim::sim::distrib
