// SPDX-License-Identifier: Apache-2.0
// Perfetto protobuf for a TimelineModel: track descriptors, a packet sequence per track with
// an incremental nanosecond clock, slices as begin/end pairs, interned names and categories.
#include "sim/observe/timeline_perfetto.h"

#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/observe/packet_compressor.h"
#include "sim/observe/proto_encoder.h"

namespace nicsim::sim {
namespace {

// Field numbers and enum values used, with their source in Perfetto's protos
// (protos/perfetto/...); every message is proto2, every field optional unless "repeated".
//
// trace/trace.proto, message Trace: kTracePacketField (packet_compressor.h).
// trace/trace_packet.proto, message TracePacket:
constexpr uint32_t kClockSnapshot = 6;         // ClockSnapshot clock_snapshot (oneof data)
constexpr uint32_t kTimestamp = 8;             // uint64 timestamp
constexpr uint32_t kSequenceId = 10;           // uint32 trusted_packet_sequence_id
constexpr uint32_t kTrackEvent = 11;           // TrackEvent track_event (oneof data)
constexpr uint32_t kInternedData = 12;         // InternedData interned_data
constexpr uint32_t kSequenceFlags = 13;        // uint32 sequence_flags (enum SequenceFlags)
constexpr uint32_t kTimestampClockId = 58;     // uint32 timestamp_clock_id
constexpr uint32_t kTracePacketDefaults = 59;  // TracePacketDefaults trace_packet_defaults
constexpr uint32_t kTrackDescriptor = 60;      // TrackDescriptor track_descriptor (oneof data)
//   enum TracePacket.SequenceFlags:
constexpr uint64_t kSeqIncrementalStateCleared = 1;  // SEQ_INCREMENTAL_STATE_CLEARED
constexpr uint64_t kSeqNeedsIncrementalState = 2;    // SEQ_NEEDS_INCREMENTAL_STATE
// trace/trace_packet_defaults.proto, message TracePacketDefaults:
constexpr uint32_t kDefaultClockId = 58;      // uint32 timestamp_clock_id
constexpr uint32_t kTrackEventDefaults = 11;  // TrackEventDefaults track_event_defaults
// trace/track_event/track_event.proto, message TrackEventDefaults:
constexpr uint32_t kDefaultTrackUuid = 11;  // uint64 track_uuid
// trace/clock_snapshot.proto, message ClockSnapshot and its message Clock:
constexpr uint32_t kClocks = 1;              // ClockSnapshot: repeated Clock clocks
constexpr uint32_t kClockId = 1;             // Clock: uint32 clock_id
constexpr uint32_t kClockTimestamp = 2;      // Clock: uint64 timestamp
constexpr uint32_t kClockIsIncremental = 3;  // Clock: bool is_incremental
// common/builtin_clock.proto, enum BuiltinClock: BUILTIN_CLOCK_BOOTTIME, the default trace
// clock; clock_snapshot.proto: ids 64 to 127 are user-defined clocks scoped to a sequence.
constexpr uint64_t kBootTimeClock = 6;
constexpr uint64_t kSequenceClock = 64;
// trace/track_event/track_event.proto, message TrackEvent:
constexpr uint32_t kCategoryIids = 3;  // repeated uint64 category_iids
constexpr uint32_t kType = 9;          // Type type
constexpr uint32_t kNameIid = 10;      // uint64 name_iid (oneof name_field)
//   enum TrackEvent.Type:
constexpr uint64_t kSliceBegin = 1;  // TYPE_SLICE_BEGIN
constexpr uint64_t kSliceEnd = 2;    // TYPE_SLICE_END
constexpr uint64_t kInstant = 3;     // TYPE_INSTANT
// trace/track_event/track_event.proto, messages EventName and EventCategory (same fields):
constexpr uint32_t kIid = 1;   // uint64 iid
constexpr uint32_t kName = 2;  // string name
// trace/interned_data/interned_data.proto, message InternedData:
constexpr uint32_t kEventCategories = 1;  // repeated EventCategory event_categories
constexpr uint32_t kEventNames = 2;       // repeated EventName event_names
// trace/track_event/track_descriptor.proto, message TrackDescriptor:
constexpr uint32_t kUuid = 1;               // uint64 uuid
constexpr uint32_t kTrackName = 2;          // string name
constexpr uint32_t kProcess = 3;            // ProcessDescriptor process
constexpr uint32_t kParentUuid = 5;         // uint64 parent_uuid
constexpr uint32_t kChildOrdering = 11;     // ChildTracksOrdering child_ordering
constexpr uint32_t kSiblingOrderRank = 12;  // int32 sibling_order_rank
//   enum TrackDescriptor.ChildTracksOrdering:
constexpr uint64_t kOrderingExplicit = 3;  // EXPLICIT: children by sibling_order_rank
// trace/track_event/process_descriptor.proto, message ProcessDescriptor:
constexpr uint32_t kPid = 1;          // int32 pid
constexpr uint32_t kProcessName = 6;  // string process_name

constexpr uint64_t kPsPerNs = 1000;

/** A process track's uuid: the adapter id in the high half, so none collides with a track's. */
uint64_t ProcessUuid(uint16_t pid) { return (uint64_t{pid} + 1) << 32; }
/** A model track's uuid: its adapter's, plus one plus its track id. */
uint64_t TrackUuid(uint16_t pid, uint32_t tid) { return ProcessUuid(pid) + tid + 1; }

/** One TrackEvent to write, on the track it is stored under. */
struct Event {
  uint64_t ns = 0;
  uint32_t name_iid = 0;  // 0: none (a slice end)
  uint32_t category_iid = 0;
  uint64_t type = kInstant;
};

/** Interning ids, from 1 in order of first use; one index for the whole trace. */
class Interner {
 public:
  uint32_t Id(const std::string& text) {
    auto [it, added] = ids_.try_emplace(text, static_cast<uint32_t>(texts_.size() + 1));
    if (added) texts_.push_back(&it->first);
    return it->second;
  }
  const std::string& Text(uint32_t iid) const { return *texts_[iid - 1]; }
  size_t size() const { return texts_.size(); }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<const std::string*> texts_;
};

/**
 * Each track's events in the order they happen on it. The model's slices on one track never
 * overlap and come in start order; a slice's end is written before whatever starts at or after
 * it (a min-heap of pending ends keeps nested slices right should any appear).
 */
std::vector<std::vector<Event>> TrackEvents(
    const TimelineModel& model, const std::map<std::pair<uint16_t, uint32_t>, size_t>& index,
    Interner& names, Interner& categories) {
  std::vector<std::vector<Event>> events(index.size());
  using PendingEnds = std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>>;
  std::vector<PendingEnds> pending(index.size());
  // Ends at or before `ps`: a slice ending where the next begins (or an instant lies) ends
  // first, so they do not nest.
  auto end_until = [&](size_t track, uint64_t ps) {
    PendingEnds& ends = pending[track];
    while (!ends.empty() && ends.top() <= ps) {
      events[track].push_back(Event{ends.top() / kPsPerNs, 0, 0, kSliceEnd});
      ends.pop();
    }
  };
  for (const TimelineSlice& s : model.slices()) {
    const size_t track = index.at({s.pid, s.tid});
    end_until(track, s.ts_ps);
    Event e{s.ts_ps / kPsPerNs, names.Id(s.name), categories.Id(s.cat), kInstant};
    if (s.ph == 'X') {
      e.type = kSliceBegin;
      pending[track].push(s.ts_ps + s.dur_ps);
    }
    events[track].push_back(e);
  }
  for (size_t track = 0; track < events.size(); ++track) {
    end_until(track, UINT64_MAX);
  }
  return events;
}

/** An interned entry (EventName or EventCategory). */
ProtoEncoder Interned(uint32_t iid, const std::string& text) {
  ProtoEncoder entry;
  entry.Varint(kIid, iid);
  entry.Bytes(kName, text);
  return entry;
}

/**
 * The track descriptors, uncompressed at the head of the trace: a process track per adapter,
 * then its tracks. Fills `index` ((pid, tid) -> track) and `uuids` (by track).
 */
void AddDescriptors(const TimelineModel& model, ProtoEncoder& trace,
                    std::map<std::pair<uint16_t, uint32_t>, size_t>* index,
                    std::vector<uint64_t>* uuids) {
  ProtoEncoder packet;
  for (const uint16_t pid : model.processes()) {
    ProtoEncoder process;
    process.Varint(kPid, uint64_t{pid} + 1);
    process.Bytes(kProcessName, "adapter " + std::to_string(pid));
    ProtoEncoder track;
    track.Varint(kUuid, ProcessUuid(pid));
    track.Message(kProcess, process);
    track.Varint(kChildOrdering, kOrderingExplicit);
    packet.Clear();
    packet.Message(kTrackDescriptor, track);
    trace.Message(kTracePacketField, packet);
  }
  for (const auto& [pid, tid] : model.tracks()) {
    index->emplace(std::make_pair(pid, tid), uuids->size());
    uuids->push_back(TrackUuid(pid, tid));
    ProtoEncoder track;
    track.Varint(kUuid, uuids->back());
    track.Varint(kParentUuid, ProcessUuid(pid));
    track.Bytes(kTrackName, TimelineModel::TrackName(tid));
    track.Varint(kSiblingOrderRank, tid);
    packet.Clear();
    packet.Message(kTrackDescriptor, track);
    trace.Message(kTracePacketField, packet);
  }
}

/** A sequence per track (id: its index + 1): state cleared, its track and its clock as the
 *  defaults, the clock starting at BOOTTIME 0. */
void AddSequences(const std::vector<uint64_t>& uuids, PacketCompressor& compressed) {
  ProtoEncoder packet;
  for (size_t track = 0; track < uuids.size(); ++track) {
    ProtoEncoder snapshot;
    ProtoEncoder clock;
    clock.Varint(kClockId, kBootTimeClock);
    clock.Varint(kClockTimestamp, 0);
    snapshot.Message(kClocks, clock);
    clock.Clear();
    clock.Varint(kClockId, kSequenceClock);
    clock.Varint(kClockTimestamp, 0);
    clock.Varint(kClockIsIncremental, 1);
    snapshot.Message(kClocks, clock);
    ProtoEncoder track_defaults;
    track_defaults.Varint(kDefaultTrackUuid, uuids[track]);
    ProtoEncoder defaults;
    defaults.Varint(kDefaultClockId, kSequenceClock);
    defaults.Message(kTrackEventDefaults, track_defaults);
    packet.Clear();
    packet.Varint(kTimestamp, 0);
    packet.Varint(kTimestampClockId, kBootTimeClock);
    packet.Varint(kSequenceId, track + 1);
    packet.Varint(kSequenceFlags, kSeqIncrementalStateCleared);
    packet.Message(kTracePacketDefaults, defaults);
    packet.Message(kClockSnapshot, snapshot);
    compressed.Add(packet);
  }
}

/** All tracks' events merged in time order (ties: lower track first); a track's own order is
 *  kept, so each sequence's timestamp deltas are never negative. Names and categories are
 *  interned per sequence, each sent with its first use. */
void AddEvents(const std::vector<std::vector<Event>>& events, const Interner& names,
               const Interner& categories, PacketCompressor& compressed) {
  std::vector<size_t> next(events.size(), 0);
  std::vector<uint64_t> last_ns(events.size(), 0);
  std::vector<std::vector<bool>> sent_names(events.size());
  std::vector<std::vector<bool>> sent_categories(events.size());
  using Head = std::pair<uint64_t, size_t>;  // (ns, track)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (size_t track = 0; track < events.size(); ++track) {
    if (!events[track].empty()) heads.push({events[track][0].ns, track});
  }
  ProtoEncoder packet;
  ProtoEncoder interned;
  ProtoEncoder track_event;
  auto intern = [&](std::vector<bool>& sent, const Interner& table, uint32_t iid, uint32_t field) {
    if (iid == 0) return;
    if (sent.size() < table.size() + 1) sent.resize(table.size() + 1, false);
    if (sent[iid]) return;
    sent[iid] = true;
    interned.Message(field, Interned(iid, table.Text(iid)));
  };
  while (!heads.empty()) {
    const size_t track = heads.top().second;
    heads.pop();
    const Event& e = events[track][next[track]++];
    if (next[track] < events[track].size()) heads.push({events[track][next[track]].ns, track});
    interned.Clear();
    intern(sent_names[track], names, e.name_iid, kEventNames);
    intern(sent_categories[track], categories, e.category_iid, kEventCategories);
    track_event.Clear();
    if (e.category_iid != 0) track_event.Varint(kCategoryIids, e.category_iid);
    track_event.Varint(kType, e.type);
    if (e.name_iid != 0) track_event.Varint(kNameIid, e.name_iid);
    packet.Clear();
    packet.Varint(kTimestamp, e.ns - last_ns[track]);
    packet.Varint(kSequenceId, track + 1);
    packet.Varint(kSequenceFlags, kSeqNeedsIncrementalState);
    if (!interned.empty()) packet.Message(kInternedData, interned);
    packet.Message(kTrackEvent, track_event);
    compressed.Add(packet);
    last_ns[track] = e.ns;
  }
}

}  // namespace

std::string TimelinePerfetto(const TimelineModel& model) {
  ProtoEncoder trace;
  std::map<std::pair<uint16_t, uint32_t>, size_t> index;
  std::vector<uint64_t> uuids;
  AddDescriptors(model, trace, &index, &uuids);
  // The rest in deflated chunks, most of the file: a tenth of its size or less.
  PacketCompressor compressed(trace);
  AddSequences(uuids, compressed);
  Interner names;
  Interner categories;
  AddEvents(TrackEvents(model, index, names, categories), names, categories, compressed);
  compressed.Flush();
  return trace.bytes();
}

}  // namespace nicsim::sim
