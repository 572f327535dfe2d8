// SPDX-License-Identifier: Apache-2.0
// The Perfetto protobuf timeline, read back by a small protobuf decoder written here: the same
// processes, tracks, slices and instants as the JSON timeline of the same run; selections of
// time and adapters in both formats and in the capture, with exact counts.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "firmware/states.h"
#include "sim/observe/timeline_writer.h"
#include "tests/sim/timeline_test_support.h"
#include "tests/support/process.h"

#ifndef NICSIM_BINARY
#error "NICSIM_BINARY must name the nicsim executable"
#endif

namespace nicsim::sim {
namespace {

namespace fs = std::filesystem;
using nicsim::testing::ReadFile;
using nlohmann::json;

// ---------------------------------------------------------------------------------------
// A protobuf reader: varint (wire type 0) and length-delimited (wire type 2) fields only,
// which is all the writer uses; anything else fails the test.

/** One field of a message. */
struct Field {
  uint32_t number = 0;
  uint64_t varint = 0;
  std::string_view bytes;
};

uint64_t ReadVarint(std::string_view& in) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in.empty()) {
      ADD_FAILURE() << "varint runs past the end";
      return value;
    }
    const auto byte = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    value |= uint64_t{byte & 0x7Fu} << shift;
    if ((byte & 0x80) == 0) return value;
  }
  ADD_FAILURE() << "varint longer than 10 bytes";
  return value;
}

std::vector<Field> Fields(std::string_view message) {
  std::vector<Field> fields;
  while (!message.empty()) {
    const uint64_t key = ReadVarint(message);
    Field f;
    f.number = static_cast<uint32_t>(key >> 3);
    if ((key & 7) == 0) {
      f.varint = ReadVarint(message);
    } else if ((key & 7) == 2) {
      const uint64_t len = ReadVarint(message);
      if (len > message.size()) {
        ADD_FAILURE() << "field " << f.number << " runs past the end";
        return fields;
      }
      f.bytes = message.substr(0, len);
      message.remove_prefix(len);
    } else {
      ADD_FAILURE() << "unexpected wire type " << (key & 7) << " of field " << f.number;
      return fields;
    }
    fields.push_back(f);
  }
  return fields;
}

/** The one field `number` of `message` (a default Field, with *found false, if absent). */
Field Get(std::string_view message, uint32_t number, bool* found = nullptr) {
  Field out;
  bool seen = false;
  for (const Field& f : Fields(message)) {
    if (f.number != number) continue;
    EXPECT_FALSE(seen) << "field " << number << " twice";
    seen = true;
    out = f;
  }
  if (found != nullptr) *found = seen;
  return out;
}

bool Has(std::string_view message, uint32_t number) {
  bool found = false;
  Get(message, number, &found);
  return found;
}

// ---------------------------------------------------------------------------------------
// Both formats reduced to one shape: tracks named "adapter N/track", each with its slices and
// instants in file order, times in nanoseconds.

/** A slice (end_ns set) or an instant, as (name, begin_ns, end_ns). */
using Item = std::tuple<std::string, uint64_t, uint64_t>;
/** A track's slices and instants. */
struct TrackItems {
  std::vector<Item> slices;
  std::vector<Item> instants;
  bool operator==(const TrackItems& o) const {
    return slices == o.slices && instants == o.instants;
  }
};
using Timeline = std::map<std::string, TrackItems>;

/** A zlib stream inflated (empty, and the test failed, if it is not one). */
std::string Inflate(std::string_view deflated) {
  std::string out(deflated.size() * 4 + 1024, '\0');
  while (true) {
    uLongf size = out.size();
    const int status = uncompress(reinterpret_cast<Bytef*>(out.data()), &size,
                                  reinterpret_cast<const Bytef*>(deflated.data()),
                                  static_cast<uLong>(deflated.size()));
    if (status == Z_BUF_ERROR) {
      out.resize(out.size() * 2);
      continue;
    }
    EXPECT_EQ(status, Z_OK) << "compressed_packets is not a zlib stream";
    out.resize(status == Z_OK ? size : 0);
    return out;
  }
}

/**
 * The packets of a Trace in reading order, those inside compressed_packets (field 50: a zlib
 * stream holding a Trace's packets) in place of the packet holding them. Inflated bytes are
 * kept in `storage`, which never moves them.
 */
std::vector<std::string_view> Packets(std::string_view trace, std::deque<std::string>& storage) {
  std::vector<std::string_view> packets;
  for (const Field& p : Fields(trace)) {
    EXPECT_EQ(p.number, 1u) << "Trace holds packets only";
    if (!Has(p.bytes, 50)) {
      packets.push_back(p.bytes);
      continue;
    }
    EXPECT_EQ(Fields(p.bytes).size(), 1u) << "compressed_packets alone in its packet";
    EXPECT_LT(p.bytes.size(), 512u * 1024) << "a compressed packet under 512 KB";
    storage.push_back(Inflate(Get(p.bytes, 50).bytes));
    const std::string& inner = storage.back();
    for (const Field& q : Fields(inner)) {
      EXPECT_EQ(q.number, 1u);
      EXPECT_FALSE(Has(q.bytes, 50)) << "compressed packets do not nest";
      packets.push_back(q.bytes);
    }
  }
  return packets;
}

/** Per-sequence decoding state. */
struct Sequence {
  bool cleared = false;
  uint64_t clock_id = 0;
  uint64_t track_uuid = 0;
  uint64_t last_ns = 0;
  std::map<uint64_t, std::string> names;
  std::map<uint64_t, std::string> categories;
};

/**
 * Decodes a Perfetto trace as TimelinePerfetto writes it, checking the rules a reader relies
 * on: incremental state cleared before use, sequence flags, interned ids defined before use
 * and never redefined, non-decreasing timestamps per track, begin/end balanced per track.
 */
Timeline DecodePerfetto(const std::string& trace, std::map<std::string, int64_t>* pids = nullptr) {
  std::map<uint64_t, std::pair<std::string, int64_t>> processes;  // uuid -> (name, pid)
  std::map<uint64_t, std::pair<uint64_t, std::string>> tracks;    // uuid -> (parent, name)
  std::map<uint64_t, Sequence> sequences;
  std::map<uint64_t, std::string> global_names;
  // Per track uuid: open begins (name, ns) and the items.
  std::map<uint64_t, std::vector<std::pair<std::string, uint64_t>>> open;
  std::map<uint64_t, TrackItems> items;
  std::map<uint64_t, uint64_t> last_ns;
  std::deque<std::string> storage;
  for (const std::string_view packet : Packets(trace, storage)) {
    if (Has(packet, 60)) {  // track_descriptor
      const std::string_view d = Get(packet, 60).bytes;
      const uint64_t uuid = Get(d, 1).varint;
      if (Has(d, 3)) {
        const std::string_view process = Get(d, 3).bytes;
        processes[uuid] = {std::string(Get(process, 6).bytes),
                           static_cast<int64_t>(Get(process, 1).varint)};
      } else {
        tracks[uuid] = {Get(d, 5).varint, std::string(Get(d, 2).bytes)};
        EXPECT_TRUE(processes.count(Get(d, 5).varint)) << "parent described first";
      }
      continue;
    }
    const uint64_t seq_id = Get(packet, 10).varint;
    EXPECT_NE(seq_id, 0u);
    Sequence& seq = sequences[seq_id];
    const uint64_t flags = Get(packet, 13).varint;
    if (flags & 1) {
      seq = Sequence{};
      seq.cleared = true;
    }
    if (Has(packet, 59)) {  // trace_packet_defaults
      const std::string_view defaults = Get(packet, 59).bytes;
      seq.clock_id = Get(defaults, 58).varint;
      seq.track_uuid = Get(Get(defaults, 11).bytes, 11).varint;
    }
    if (Has(packet, 6)) {  // clock_snapshot: BOOTTIME and the incremental clock 64, both at 0
      std::map<uint64_t, std::pair<uint64_t, bool>> clocks;
      for (const Field& c : Fields(Get(packet, 6).bytes)) {
        clocks[Get(c.bytes, 1).varint] = {Get(c.bytes, 2).varint, Get(c.bytes, 3).varint != 0};
      }
      EXPECT_EQ(clocks.at(6), std::make_pair(uint64_t{0}, false));
      EXPECT_EQ(clocks.at(64), std::make_pair(uint64_t{0}, true));
      seq.last_ns = clocks.at(64).first;
      continue;
    }
    if (!Has(packet, 11)) continue;
    EXPECT_TRUE(seq.cleared) << "sequence " << seq_id << " used before its state was cleared";
    EXPECT_EQ(flags, 2u) << "SEQ_NEEDS_INCREMENTAL_STATE";
    EXPECT_EQ(seq.clock_id, 64u);
    if (Has(packet, 12)) {  // interned_data
      for (const Field& f : Fields(Get(packet, 12).bytes)) {
        const uint64_t iid = Get(f.bytes, 1).varint;
        const std::string name(Get(f.bytes, 2).bytes);
        EXPECT_TRUE(f.number == 1 || f.number == 2) << f.number;
        (f.number == 2 ? seq.names : seq.categories)[iid] = name;
        if (f.number == 2) {
          auto [it, added] = global_names.try_emplace(iid, name);
          EXPECT_EQ(it->second, name) << "iid " << iid << " redefined";
        }
      }
    }
    seq.last_ns += Get(packet, 8).varint;
    const std::string_view event = Get(packet, 11).bytes;
    const uint64_t track = Has(event, 11) ? Get(event, 11).varint : seq.track_uuid;
    EXPECT_TRUE(tracks.count(track)) << "event on an undescribed track " << track;
    EXPECT_GE(seq.last_ns, last_ns[track]) << "time goes back on track " << track;
    last_ns[track] = seq.last_ns;
    const uint64_t type = Get(event, 9).varint;
    std::string name;
    if (type != 2) {
      EXPECT_TRUE(seq.names.count(Get(event, 10).varint)) << "name iid used before defined";
      name = seq.names[Get(event, 10).varint];
      for (const Field& f : Fields(event)) {
        if (f.number == 3) {
          EXPECT_TRUE(seq.categories.count(f.varint)) << "category iid";
        }
      }
    }
    if (type == 1) {
      open[track].push_back({name, seq.last_ns});
    } else if (type == 2) {
      if (open[track].empty()) {
        ADD_FAILURE() << "end without begin on track " << track;
        continue;
      }
      auto [begin_name, begin_ns] = open[track].back();
      open[track].pop_back();
      items[track].slices.push_back({begin_name, begin_ns, seq.last_ns});
    } else {
      EXPECT_EQ(type, 3u);
      items[track].instants.push_back({name, seq.last_ns, seq.last_ns});
    }
  }
  Timeline out;
  for (const auto& [uuid, parent_name] : tracks) {
    const std::string process = processes[parent_name.first].first;
    EXPECT_TRUE(open[uuid].empty()) << "unclosed slice on " << parent_name.second;
    out[process + "/" + parent_name.second] = items[uuid];
    if (pids != nullptr) (*pids)[process] = processes[parent_name.first].second;
  }
  return out;
}

/**
 * The JSON timeline in the same shape, times in units of `unit_ps` picoseconds, truncated
 * (the default: nanoseconds, truncated as Perfetto's are).
 */
Timeline FromJson(const std::string& text, uint64_t unit_ps = 1000) {
  const json doc = json::parse(text);
  std::map<int64_t, std::string> process_names;
  std::map<std::pair<int64_t, int64_t>, std::string> track_names;
  for (const json& e : doc["traceEvents"]) {
    if (e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
    if (e["name"] == "thread_name") track_names[{e["pid"], e["tid"]}] = e["args"]["name"];
  }
  Timeline out;
  for (const auto& [track, name] : track_names) {
    out[process_names.at(track.first) + "/" + name] = TrackItems{};
  }
  // Picoseconds from the microseconds (exact: six decimals, well within a double's digits).
  auto ps = [](const json& us) {
    return static_cast<uint64_t>(std::llround(us.get<double>() * 1e6));
  };
  // Perfetto shows a track's slices in the order they end, which for slices that never overlap
  // is their start order: the JSON's.
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M") continue;
    TrackItems& t = out[process_names.at(e["pid"]) + "/" + track_names.at({e["pid"], e["tid"]})];
    const uint64_t begin = ps(e["ts"]);
    if (e["ph"] == "X") {
      t.slices.push_back({e["name"], begin / unit_ps, (begin + ps(e["dur"])) / unit_ps});
    } else {
      t.instants.push_back({e["name"], begin / unit_ps, begin / unit_ps});
    }
  }
  return out;
}

size_t CountSlices(const Timeline& t) {
  size_t n = 0;
  for (const auto& [name, items] : t) n += items.slices.size() + items.instants.size();
  return n;
}

/** The arrival times (ns) of the packets in a pcapng file PcapWriter wrote (little endian). */
std::vector<uint64_t> PcapTimesNs(const std::string& file) {
  auto u32 = [&](size_t at) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(file[at + i]);
    return v;
  };
  std::vector<uint64_t> times;
  // Blocks: type, total length, body, total length. An Enhanced Packet Block (type 6) has
  // the interface id, then the timestamp's high and low words.
  for (size_t at = 0; at + 12 <= file.size(); at += u32(at + 4)) {
    if (u32(at) == 6) times.push_back(uint64_t{u32(at + 12)} << 32 | u32(at + 16));
    if (u32(at + 4) == 0) break;
  }
  return times;
}

/** Runs the nicsim binary with `args` in `dir`; returns the exit code. */
nicsim::testing::CommandResult Nicsim(const fs::path& dir, std::vector<std::string> args) {
  args.insert(args.begin(), NICSIM_BINARY);
  return nicsim::testing::RunCommand(args, dir);
}

/** A short packet-mode run on the functional backend, with extra flags. */
std::vector<std::string> ShortRun(const fs::path& dir, std::vector<std::string> extra) {
  std::vector<std::string> args = {"run",
                                   "pingpong",
                                   "--quiet",
                                   "--set",
                                   "backend=func",
                                   "--set",
                                   "pingpong.iterations=2",
                                   "--set",
                                   "pingpong.stream_packets=4",
                                   "--out",
                                   dir.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

class TimelinePerfettoTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.empty()); }
  nicsim::testing::ScratchDir scratch_{"nicsim_perfetto"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(TimelinePerfettoTest, TheFileNameChoosesTheFormat) {
  EXPECT_EQ(TimelineWriter::FormatFor("run.perfetto-trace"), TimelineWriter::Format::kPerfetto);
  EXPECT_EQ(TimelineWriter::FormatFor("a/run.pftrace"), TimelineWriter::Format::kPerfetto);
  EXPECT_EQ(TimelineWriter::FormatFor("run.json"), TimelineWriter::Format::kJson);
  EXPECT_EQ(TimelineWriter::FormatFor("run"), TimelineWriter::Format::kJson);
  EXPECT_EQ(TimelineWriter::FormatFor("pftrace"), TimelineWriter::Format::kJson);
}

TEST_F(TimelinePerfettoTest, ZeroEventsIsAnEmptyTrace) {
  {
    TimelineWriter timeline((dir_ / "t.pftrace").string());
    ASSERT_TRUE(timeline.ok());
    EXPECT_TRUE(timeline.Finish());
  }
  EXPECT_EQ(ReadFile(dir_ / "t.pftrace"), "");
}

TEST_F(TimelinePerfettoTest, OnePacketHasTheJsonTimelinesTracksSlicesAndInstants) {
  TimelineWriter as_json((dir_ / "t.json").string());
  TimelineWriter as_proto((dir_ / "t.perfetto-trace").string());
  TraceFanOut sinks;
  sinks.Add(&as_json);
  sinks.Add(&as_proto);
  RunOnePacket(sinks.Sink());
  ASSERT_TRUE(as_json.Finish());
  ASSERT_TRUE(as_proto.Finish());
  std::map<std::string, int64_t> pids;
  const Timeline proto = DecodePerfetto(ReadFile(dir_ / "t.perfetto-trace"), &pids);
  const Timeline expected = FromJson(ReadFile(dir_ / "t.json"));
  EXPECT_EQ(proto, expected);
  // Exact tracks: the receiver's task 0 ran the six receive states.
  ASSERT_TRUE(proto.count("adapter 1/task 0"));
  std::vector<std::string> rx;
  for (const Item& s : proto.at("adapter 1/task 0").slices) rx.push_back(std::get<0>(s));
  EXPECT_EQ(rx, (std::vector<std::string>{"rx:validate", "rx:bind", "rx:admit", "rx:move_body",
                                          "rx:signal", "rx:finish"}));
  EXPECT_EQ(proto.at("adapter 0/link out").instants.size(), 1u);
  EXPECT_EQ(proto.at("adapter 1/link in").instants.size(), 1u);
  // pid 0 is Perfetto's idle process: adapter N is pid N + 1.
  EXPECT_EQ(pids, (std::map<std::string, int64_t>{{"adapter 0", 1}, {"adapter 1", 2}}));
}

TEST_F(TimelinePerfettoTest, ARunWritesTheSameTimelineInBothFormats) {
  ASSERT_EQ(Nicsim(dir_, ShortRun(dir_, {"--timeline", (dir_ / "t.json").string()})).exit_code, 0);
  ASSERT_EQ(Nicsim(dir_, ShortRun(dir_, {"--timeline", (dir_ / "t.pftrace").string()})).exit_code,
            0);
  const std::string proto_bytes = ReadFile(dir_ / "t.pftrace");
  const std::string json_text = ReadFile(dir_ / "t.json");
  const Timeline proto = DecodePerfetto(proto_bytes);
  const Timeline expected = FromJson(json_text);
  EXPECT_EQ(proto.size(), expected.size()) << "tracks";
  EXPECT_EQ(CountSlices(proto), CountSlices(expected));
  EXPECT_GT(CountSlices(proto), 500u);
  EXPECT_TRUE(proto == expected);
  // The point of the format: far smaller.
  EXPECT_LT(proto_bytes.size() * 8, json_text.size());
}

TEST_F(TimelinePerfettoTest, SlicesShorterThanANanosecondKeepTheirOrder) {
  TimelineWriter timeline((dir_ / "t.pftrace").string());
  timeline.Record(1'000'100, 0, Ev(fw::TraceKind::kRxState, 0, Rx(fw::RxState::kValidate)));
  timeline.Record(1'000'400, 0, Ev(fw::TraceKind::kRxState, 0, Rx(fw::RxState::kBind)));
  timeline.Record(1'000'900, 0, Ev(fw::TraceKind::kRxState, 0, Rx(fw::RxState::kAdmit)));
  timeline.Record(1'002'000, 0, Ev(fw::TraceKind::kRxState, 0, Rx(fw::RxState::kDone)));
  ASSERT_TRUE(timeline.Finish());
  const Timeline t = DecodePerfetto(ReadFile(dir_ / "t.pftrace"));
  EXPECT_EQ(t.at("adapter 0/task 0").slices,
            (std::vector<Item>{
                {"rx:validate", 1000, 1000}, {"rx:bind", 1000, 1000}, {"rx:admit", 1000, 1002}}));
}

// ---------------------------------------------------------------------------------------
// Selections.

/** Records a fixed set of events on adapters 0 to 2 into `timeline`. */
void RecordFixture(TimelineWriter& timeline) {
  for (uint16_t a = 0; a < 3; ++a) {
    // task 1: validate [1000, 4000) then bind [4000, 9000), done at 9000 (times in ps)
    timeline.Record(1'000, a, Ev(fw::TraceKind::kRxState, 1, Rx(fw::RxState::kValidate)));
    timeline.Record(4'000, a, Ev(fw::TraceKind::kRxState, 1, Rx(fw::RxState::kBind)));
    timeline.Record(9'000, a, Ev(fw::TraceKind::kRxState, 1, Rx(fw::RxState::kDone)));
    // instants at 2000, 5000 and 8000; a transfer [3000, 6000)
    timeline.Record(2'000, a, Ev(fw::TraceKind::kFrameIn, fw::kNoTask, 0, 64));
    timeline.Record(3'000, a, Ev(fw::TraceKind::kDmaStart, 1, 0, 64));
    timeline.Record(5'000, a, Ev(fw::TraceKind::kFrameIn, fw::kNoTask, 0, 64));
    timeline.Record(6'000, a, Ev(fw::TraceKind::kDmaDone, 1, 0, 0));
    timeline.Record(8'000, a, Ev(fw::TraceKind::kFrameIn, fw::kNoTask, 0, 64));
  }
}

Timeline Selected(const fs::path& dir, const std::string& file, std::string_view window,
                  std::string_view adapters, std::string_view sample) {
  Result<TraceSelection> selection = TraceSelection::Parse(window, adapters, sample);
  EXPECT_TRUE(selection.ok()) << selection.status().message();
  {
    TimelineWriter timeline((dir / file).string(), *selection);
    RecordFixture(timeline);
    EXPECT_TRUE(timeline.Finish());
  }
  const std::string bytes = ReadFile(dir / file);
  return TimelineWriter::FormatFor(file) == TimelineWriter::Format::kJson ? FromJson(bytes)
                                                                          : DecodePerfetto(bytes);
}

TEST_F(TimelinePerfettoTest, AdapterSelectionKeepsOnlyThoseAdaptersInBothFormats) {
  for (const std::string file : {"a.json", "a.pftrace"}) {
    const Timeline t = Selected(dir_, file, "", "0,2", "");
    std::set<std::string> processes;
    for (const auto& [track, items] : t) processes.insert(track.substr(0, track.find('/')));
    EXPECT_EQ(processes, (std::set<std::string>{"adapter 0", "adapter 2"})) << file;
    EXPECT_EQ(CountSlices(t), 2u * (3 + 3)) << file << ": per adapter 3 slices, 3 instants";
  }
  // --sample 2 keeps ids 0 and 2 as well.
  EXPECT_EQ(Selected(dir_, "s.json", "", "", "2"), Selected(dir_, "a.json", "", "0,2", ""));
}

TEST_F(TimelinePerfettoTest, WindowClipsSlicesAndDropsInstantsOutsideIt) {
  // Window [3.5ns, 6ns): validate [1, 4) -> [3.5, 4), bind [4, 9) -> [4, 6), the transfer
  // [3, 6) -> [3.5, 6); the instant at 5 stays, those at 2 and 8 go.
  for (const std::string file : {"w.json", "w.pftrace"}) {
    const Timeline t = Selected(dir_, file, "3500ps:6ns", "1", "");
    ASSERT_EQ(t.size(), 3u) << file;
    // Nanoseconds, truncated: 3.5ns is 3.
    EXPECT_EQ(t.at("adapter 1/task 1").slices,
              (std::vector<Item>{{"rx:validate", 3, 4}, {"rx:bind", 4, 6}}))
        << file;
    EXPECT_EQ(t.at("adapter 1/dma").slices, (std::vector<Item>{{"dma:to_host", 3, 6}})) << file;
    EXPECT_EQ(t.at("adapter 1/link in").instants, (std::vector<Item>{{"frame_in", 5, 5}})) << file;
  }
}

TEST_F(TimelinePerfettoTest, WindowOutsideTheRunLeavesNoProcess) {
  EXPECT_TRUE(Selected(dir_, "e.json", "1ms:", "", "").empty());
  EXPECT_EQ(ReadFile(dir_ / "e.json"), "{\"traceEvents\":[\n],\"displayTimeUnit\":\"ns\"}\n");
}

TEST_F(TimelinePerfettoTest, CliSelectionIsTheUnselectedRunCutToTheWindowAndAdapters) {
  ASSERT_EQ(Nicsim(dir_, ShortRun(dir_, {"--timeline", (dir_ / "all.json").string(), "--pcap",
                                         (dir_ / "all.pcapng").string()}))
                .exit_code,
            0);
  const Timeline all = FromJson(ReadFile(dir_ / "all.json"), /*unit_ps=*/1);
  // A window around the middle of the run, in whole nanoseconds.
  uint64_t last_ps = 0;
  for (const auto& [track, items] : all) {
    for (const Item& s : items.slices) last_ps = std::max(last_ps, std::get<2>(s));
  }
  ASSERT_GT(last_ps, 1'000'000u);
  const uint64_t start_ps = last_ps / 3 / 1000 * 1000;
  const uint64_t end_ps = 2 * last_ps / 3 / 1000 * 1000;
  const std::string window =
      std::to_string(start_ps / 1000) + "ns:" + std::to_string(end_ps / 1000) + "ns";
  ASSERT_EQ(Nicsim(dir_, ShortRun(dir_, {"--timeline", (dir_ / "cut.pftrace").string(),
                                         "--trace-window", window, "--trace-adapters", "1",
                                         "--pcap", (dir_ / "cut.pcapng").string()}))
                .exit_code,
            0);
  const Timeline cut = DecodePerfetto(ReadFile(dir_ / "cut.pftrace"));
  // Expected: adapter 1's items of the whole run that overlap the window (an empty slice: that
  // lie in it), clipped to it, then in nanoseconds.
  Timeline expected;
  for (const auto& [track, items] : all) {
    if (track.rfind("adapter 1/", 0) != 0) continue;
    TrackItems kept;
    for (const auto& [name, begin, end] : items.slices) {
      if (begin < end_ps && (end > start_ps || begin >= start_ps)) {
        kept.slices.push_back(
            {name, std::max(begin, start_ps) / 1000, std::min(end, end_ps) / 1000});
      }
    }
    for (const auto& [name, at, unused] : items.instants) {
      if (at >= start_ps && at < end_ps) kept.instants.push_back({name, at / 1000, at / 1000});
    }
    if (!kept.slices.empty() || !kept.instants.empty()) expected[track] = kept;
  }
  ASSERT_GT(CountSlices(expected), 10u);
  EXPECT_EQ(CountSlices(cut), CountSlices(expected));
  EXPECT_TRUE(cut == expected);
  // The capture: the frames arriving in the window (a ping-pong's frames all involve adapter 1).
  std::vector<uint64_t> in_window;
  for (uint64_t ns : PcapTimesNs(ReadFile(dir_ / "all.pcapng"))) {
    if (ns >= start_ps / 1000 && ns < end_ps / 1000) in_window.push_back(ns);
  }
  ASSERT_FALSE(in_window.empty());
  EXPECT_EQ(PcapTimesNs(ReadFile(dir_ / "cut.pcapng")), in_window);
}

}  // namespace
}  // namespace nicsim::sim
