// SPDX-License-Identifier: Apache-2.0
// The Chrome trace-event timeline: well-formed JSON, balanced and time-ordered tracks, one
// packet's receive states as slices, a slice per DMA, waits, drops, resets and the CLI flag.
#include "sim/observe/timeline_writer.h"

#include <gtest/gtest.h>

#include "tests/support/backends.h"
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "firmware/counters.h"
#include "firmware/states.h"
#include "sim/cluster/cluster.h"
#include "tests/sim/timeline_test_support.h"

#ifndef NICSIM_BINARY
#error "NICSIM_BINARY must name the nicsim executable"
#endif

namespace nicsim::sim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/** A fresh scratch directory for one test, removed with everything in it at scope exit. */
class ScopedDir : public fs::path {
 public:
  explicit ScopedDir(const fs::path& dir) : fs::path(dir) {
    fs::remove_all(*this);
    fs::create_directories(*this);
  }
  ~ScopedDir() {
    std::error_code ignored;
    fs::remove_all(*this, ignored);
  }
  ScopedDir(const ScopedDir&) = delete;
  ScopedDir& operator=(const ScopedDir&) = delete;
};

ScopedDir ScratchDir(const std::string& name) {
  return ScopedDir(fs::temp_directory_path() /
                   ("nicsim_timeline_" + name + "_" + std::to_string(::getpid())));
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/** Parses the file; a parse error fails the test and yields null. */
json Load(const fs::path& path) {
  const std::string text = ReadFile(path);
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc.is_discarded()) << path << " is not JSON:\n" << text.substr(0, 400);
  return doc;
}

/** Picoseconds from a ts in microseconds (exact for the 6-decimal values written). */
int64_t Ps(const json& us) { return std::llround(us.get<double>() * 1e6); }

/**
 * Checks the trace-event contract: the top-level shape, B/E balanced per (pid, tid), async
 * b/e balanced per (cat, id), timestamps non-decreasing per (pid, tid) for B/E/X/i, and no
 * two complete slices on one track overlapping.
 */
void ExpectValidTimeline(const json& doc) {
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc.contains("traceEvents"));
  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc.value("displayTimeUnit", ""), "ns");
  std::map<std::pair<int64_t, int64_t>, double> last_ts;
  std::map<std::pair<int64_t, int64_t>, int64_t> last_end;
  std::map<std::pair<int64_t, int64_t>, std::vector<std::string>> open_b;
  std::map<std::pair<std::string, std::string>, int> open_async;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e.at("ph").get<std::string>();
    ASSERT_TRUE(e.contains("pid") && e.contains("tid")) << e.dump();
    const std::pair<int64_t, int64_t> track{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()};
    if (ph == "M") continue;
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e.dump();
    const double ts = e["ts"].get<double>();
    if (ph == "B" || ph == "E" || ph == "X" || ph == "i") {
      auto it = last_ts.find(track);
      if (it != last_ts.end()) {
        EXPECT_GE(ts, it->second) << "time goes back: " << e.dump();
      }
      last_ts[track] = ts;
    }
    if (ph == "B") open_b[track].push_back(e.at("name").get<std::string>());
    if (ph == "E") {
      ASSERT_FALSE(open_b[track].empty()) << "E without B: " << e.dump();
      open_b[track].pop_back();
    }
    if (ph == "b") ++open_async[{e.at("cat").get<std::string>(), e.at("id").dump()}];
    if (ph == "e") --open_async[{e.at("cat").get<std::string>(), e.at("id").dump()}];
    if (ph == "X") {
      // In picoseconds: adding microsecond doubles would round.
      const int64_t begin_ps = Ps(e["ts"]);
      const int64_t dur_ps = Ps(e.at("dur"));
      EXPECT_GE(dur_ps, 0) << e.dump();
      auto end = last_end.find(track);
      if (end != last_end.end()) {
        EXPECT_GE(begin_ps, end->second) << "overlaps: " << e.dump();
      }
      last_end[track] = begin_ps + dur_ps;
    }
  }
  for (const auto& [track, names] : open_b) {
    EXPECT_TRUE(names.empty()) << "unclosed B on pid " << track.first << " tid " << track.second;
  }
  for (const auto& [key, n] : open_async) EXPECT_EQ(n, 0) << "async " << key.first << key.second;
}

/** The name of each (pid, tid) track, from the thread_name metadata. */
std::map<std::pair<int64_t, int64_t>, std::string> TrackNames(const json& doc) {
  std::map<std::pair<int64_t, int64_t>, std::string> names;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      names[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}] = e["args"]["name"];
    }
  }
  return names;
}

/** The events on adapter `pid`'s track called `track`, in file order (metadata left out). */
std::vector<json> OnTrack(const json& doc, int64_t pid, const std::string& track) {
  const auto names = TrackNames(doc);
  std::vector<json> out;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" || e["pid"] != pid) continue;
    auto it = names.find({pid, e["tid"].get<int64_t>()});
    if (it != names.end() && it->second == track) out.push_back(e);
  }
  return out;
}

std::vector<std::string> Names(const std::vector<json>& events) {
  std::vector<std::string> names;
  for (const json& e : events) names.push_back(e["name"]);
  return names;
}

/** Records every event as it arrives, to compare against the timeline. */
struct Recorder final : hw::func::TraceSink {
  struct Entry {
    uint64_t t;
    uint16_t adapter;
    fw::TraceEvent e;
  };
  void Record(uint64_t t, uint16_t adapter, const fw::TraceEvent& e) override {
    entries.push_back({t, adapter, e});
  }
  std::vector<Entry> entries;
};

/** One 300-byte packet from adapter 0 to adapter 1 with the timeline (and a recorder) attached. */
struct OnePacket {
  explicit OnePacket(const std::string& name) : dir(ScratchDir(name)), timeline(dir / "t.json") {
    EXPECT_TRUE(timeline.ok());
    TraceFanOut sinks;
    sinks.Add(&timeline);
    sinks.Add(&recorder);
    RunOnePacket(sinks.Sink());
    EXPECT_TRUE(timeline.Finish());
    doc = Load(dir / "t.json");
  }
  ScopedDir dir;
  TimelineWriter timeline;
  Recorder recorder;
  json doc;
};

TEST(TimelineWriterTest, ZeroEventsIsWellFormedJson) {
  const ScopedDir dir = ScratchDir("empty");
  {
    TimelineWriter timeline((dir / "t.json").string());
    ASSERT_TRUE(timeline.ok());
    EXPECT_TRUE(timeline.Finish());
  }
  const json doc = Load(dir / "t.json");
  ExpectValidTimeline(doc);
  EXPECT_EQ(doc["traceEvents"], json::array());
}

TEST(TimelineWriterTest, UnopenableFileIsNotOk) {
  TimelineWriter timeline("/nonexistent-dir/timeline.json");
  EXPECT_FALSE(timeline.ok());
  EXPECT_FALSE(timeline.Finish());
}

TEST(TimelineWriterTest, OnePacketRunIsBalancedMonotonicAndNamesBothAdapters) {
  OnePacket run("balanced");
  ExpectValidTimeline(run.doc);
  std::set<int64_t> processes;
  for (const json& e : run.doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      EXPECT_EQ(e["args"]["name"], "adapter " + std::to_string(e["pid"].get<int64_t>()));
      processes.insert(e["pid"].get<int64_t>());
    }
  }
  EXPECT_EQ(processes, (std::set<int64_t>{0, 1}));
  // Every track an event lands on is named.
  const auto names = TrackNames(run.doc);
  for (const json& e : run.doc["traceEvents"]) {
    if (e["ph"] == "M") continue;
    EXPECT_TRUE(names.count({e["pid"].get<int64_t>(), e["tid"].get<int64_t>()})) << e.dump();
  }
  EXPECT_EQ(Names(OnTrack(run.doc, 0, "link out")), std::vector<std::string>{"to_a1"});
  EXPECT_EQ(Names(OnTrack(run.doc, 1, "link in")), std::vector<std::string>{"frame_in"});
}

TEST(TimelineWriterTest, ReceiveTaskSlicesForOnePacketAreTheRxStatesInOrder) {
  OnePacket run("rx_states");
  std::vector<json> rx;
  for (const json& e : OnTrack(run.doc, 1, "task 0")) {
    if (e["ph"] == "X" && e["cat"] == "rx") rx.push_back(e);
  }
  EXPECT_EQ(Names(rx), (std::vector<std::string>{"rx:validate", "rx:bind", "rx:admit",
                                                 "rx:move_body", "rx:signal", "rx:finish"}));
  // Each state runs until the next begins: the slices tile the task's time.
  for (size_t i = 1; i < rx.size(); ++i) {
    EXPECT_EQ(Ps(rx[i - 1]["ts"]) + Ps(rx[i - 1]["dur"]), Ps(rx[i]["ts"])) << rx[i].dump();
  }
  // The slices start when the trace said each state was entered; "done" ends the last one.
  std::vector<uint64_t> entered;
  for (const Recorder::Entry& r : run.recorder.entries) {
    if (r.adapter == 1 && r.e.kind == fw::TraceKind::kRxState) entered.push_back(r.t);
  }
  ASSERT_EQ(entered.size(), rx.size() + 1);
  for (size_t i = 0; i < rx.size(); ++i) EXPECT_EQ(Ps(rx[i]["ts"]), int64_t(entered[i]));
  EXPECT_EQ(Ps(rx.back()["ts"]) + Ps(rx.back()["dur"]), int64_t(entered.back()));
}

TEST(TimelineWriterTest, EveryDmaStartHasADmaSliceFromStartToDone) {
  OnePacket run("dma");
  for (int64_t pid : {0, 1}) {
    // The expected transfers, matched start to done by (task, direction) in order.
    std::vector<std::pair<uint64_t, uint64_t>> expected;
    std::map<std::pair<fw::TaskId, uint32_t>, std::vector<size_t>> open;
    for (const Recorder::Entry& r : run.recorder.entries) {
      if (r.adapter != pid) continue;
      if (r.e.kind == fw::TraceKind::kDmaStart) {
        open[{r.e.task, r.e.state}].push_back(expected.size());
        expected.push_back({r.t, 0});
      } else if (r.e.kind == fw::TraceKind::kDmaDone) {
        auto& q = open[{r.e.task, r.e.state}];
        ASSERT_FALSE(q.empty());
        expected[q.front()].second = r.t;
        q.erase(q.begin());
      }
    }
    ASSERT_FALSE(expected.empty()) << "adapter " << pid << " did no DMA";
    std::vector<std::pair<uint64_t, uint64_t>> slices;
    for (const json& e : run.doc["traceEvents"]) {
      if (e["ph"] == "X" && e["cat"] == "dma" && e["pid"] == pid) {
        slices.push_back({Ps(e["ts"]), Ps(e["ts"]) + Ps(e["dur"])});
        EXPECT_EQ(e["args"]["status"], "ok");
        EXPECT_TRUE(e["name"] == "dma:to_host" || e["name"] == "dma:from_host") << e.dump();
      }
    }
    std::sort(expected.begin(), expected.end());
    std::sort(slices.begin(), slices.end());
    EXPECT_EQ(slices, expected) << "adapter " << pid;
  }
}

TEST(TimelineWriterTest, WaitIsASliceFromTheWaitToTheTasksNextState) {
  const ScopedDir dir = ScratchDir("wait");
  TimelineWriter timeline((dir / "t.json").string());
  timeline.Record(1'000, 0, Ev(fw::TraceKind::kTxState, 2, 0));  // select
  fw::TraceEvent wait = Ev(fw::TraceKind::kWait, 2, 0, static_cast<uint64_t>(fw::Resource::kDtb));
  timeline.Record(2'000, 0, wait);
  timeline.Record(7'500, 0, Ev(fw::TraceKind::kTxState, 2, 2));            // fetch_body
  timeline.Record(9'000, 0, Ev(fw::TraceKind::kMmio, fw::kNoTask, 0, 1));  // last time seen
  ASSERT_TRUE(timeline.Finish());
  const json doc = Load(dir / "t.json");
  ExpectValidTimeline(doc);
  const std::vector<json> task = OnTrack(doc, 0, "task 2");
  ASSERT_EQ(Names(task), (std::vector<std::string>{"tx:select", "wait:dtb", "tx:fetch_body"}));
  EXPECT_EQ(Ps(task[0]["ts"]), 1'000);
  EXPECT_EQ(Ps(task[0]["dur"]), 1'000);
  EXPECT_EQ(Ps(task[1]["ts"]), 2'000);
  EXPECT_EQ(Ps(task[1]["dur"]), 5'500);
  // Still open at the end: closed at the last time seen.
  EXPECT_EQ(Ps(task[2]["ts"]) + Ps(task[2]["dur"]), 9'000);
  EXPECT_EQ(Names(OnTrack(doc, 0, "mmio")), std::vector<std::string>{"start_transmit"});
}

TEST(TimelineWriterTest, TheWorkManagerTaskPostsAsASliceAndIdlesWithout) {
  const ScopedDir dir = ScratchDir("work_manager");
  TimelineWriter timeline((dir / "t.json").string());
  const auto post = static_cast<uint32_t>(fw::WorkState::kPost);
  const auto idle = static_cast<uint32_t>(fw::WorkState::kDone);
  timeline.Record(1'000, 0, Ev(fw::TraceKind::kWorkState, 15, post));
  timeline.Record(1'032, 0, Ev(fw::TraceKind::kWorkState, 15, idle));
  timeline.Record(2'000, 0, Ev(fw::TraceKind::kWorkState, 15, post));
  timeline.Record(2'032, 0, Ev(fw::TraceKind::kWorkState, 15, idle));
  ASSERT_TRUE(timeline.Finish());
  const json doc = Load(dir / "t.json");
  ExpectValidTimeline(doc);
  const std::vector<json> task = OnTrack(doc, 0, "task 15");
  ASSERT_EQ(Names(task), (std::vector<std::string>{"wm:post", "wm:post"}));
  EXPECT_EQ(Ps(task[0]["ts"]), 1'000);
  EXPECT_EQ(Ps(task[0]["dur"]), 32);
  EXPECT_EQ(Ps(task[1]["ts"]), 2'000);
  EXPECT_EQ(Ps(task[1]["dur"]), 32);
}

TEST(TimelineWriterTest, DropIsAnInstantOnTheTaskTrackOrLinkInWithoutATask) {
  const ScopedDir dir = ScratchDir("drop");
  TimelineWriter timeline((dir / "t.json").string());
  timeline.Record(100, 1, Ev(fw::TraceKind::kRxState, 0, Rx(fw::RxState::kValidate)));
  timeline.Record(
      300, 1,
      Ev(fw::TraceKind::kDrop, 0, 0, static_cast<uint64_t>(fw::DropReason::kBadProtectionKey)));
  timeline.Record(
      400, 1,
      Ev(fw::TraceKind::kDrop, fw::kNoTask, 0, static_cast<uint64_t>(fw::DropReason::kBadCrc)));
  ASSERT_TRUE(timeline.Finish());
  const json doc = Load(dir / "t.json");
  ExpectValidTimeline(doc);
  const std::vector<json> task = OnTrack(doc, 1, "task 0");
  ASSERT_EQ(Names(task), (std::vector<std::string>{"rx:validate", "drop:bad_protection_key"}));
  EXPECT_EQ(Ps(task[0]["dur"]), 200);  // the drop ends the state
  EXPECT_EQ(task[1]["ph"], "i");
  const std::vector<json> link_in = OnTrack(doc, 1, "link in");
  ASSERT_EQ(Names(link_in), std::vector<std::string>{"drop:bad_crc"});
  EXPECT_EQ(link_in[0]["ph"], "i");
}

TEST(TimelineWriterTest, OverlappingTransfersTakeSeparateDmaLanes) {
  const ScopedDir dir = ScratchDir("lanes");
  TimelineWriter timeline((dir / "t.json").string());
  timeline.Record(0, 0, Ev(fw::TraceKind::kDmaStart, 0, 0, 64));
  timeline.Record(10, 0, Ev(fw::TraceKind::kDmaStart, 1, 1, 128));
  timeline.Record(20, 0, Ev(fw::TraceKind::kDmaDone, 0, 0, 0));
  timeline.Record(30, 0, Ev(fw::TraceKind::kDmaStart, 0, 1, 32));  // lane 0 is free again
  timeline.Record(40, 0, Ev(fw::TraceKind::kDmaDone, 1, 1, 1));    // address error
  timeline.Record(50, 0, Ev(fw::TraceKind::kDmaDone, 0, 1, 0));
  ASSERT_TRUE(timeline.Finish());
  const json doc = Load(dir / "t.json");
  ExpectValidTimeline(doc);
  const std::vector<json> lane0 = OnTrack(doc, 0, "dma");
  const std::vector<json> lane1 = OnTrack(doc, 0, "dma 1");
  ASSERT_EQ(Names(lane0), (std::vector<std::string>{"dma:to_host", "dma:from_host"}));
  ASSERT_EQ(Names(lane1), std::vector<std::string>{"dma:from_host"});
  EXPECT_EQ(lane0[0]["args"], (json{{"bytes", 64}, {"task", 0}, {"status", "ok"}}));
  EXPECT_EQ(Ps(lane0[1]["ts"]), 30);
  EXPECT_EQ(Ps(lane0[1]["dur"]), 20);
  EXPECT_EQ(Ps(lane1[0]["ts"]), 10);
  EXPECT_EQ(Ps(lane1[0]["dur"]), 30);
  EXPECT_EQ(lane1[0]["args"]["status"], "address_error");
}

TEST(TimelineWriterTest, ResetClosesTheAdaptersOpenSlicesAndTransfers) {
  const ScopedDir dir = ScratchDir("reset");
  TimelineWriter timeline((dir / "t.json").string());
  timeline.Record(100, 0, Ev(fw::TraceKind::kRxState, 3, Rx(fw::RxState::kMoveBody)));
  timeline.Record(150, 0, Ev(fw::TraceKind::kDmaStart, 3, 0, 256));
  timeline.Record(170, 1, Ev(fw::TraceKind::kRxState, 0, Rx(fw::RxState::kAdmit)));
  timeline.Record(200, 0, Ev(fw::TraceKind::kReset));
  timeline.Record(900, 1, Ev(fw::TraceKind::kFrameIn, fw::kNoTask, 0, 80));
  ASSERT_TRUE(timeline.Finish());
  const json doc = Load(dir / "t.json");
  ExpectValidTimeline(doc);
  const std::vector<json> task = OnTrack(doc, 0, "task 3");
  ASSERT_EQ(task.size(), 1u);
  EXPECT_EQ(Ps(task[0]["ts"]) + Ps(task[0]["dur"]), 200);
  const std::vector<json> dma = OnTrack(doc, 0, "dma");
  ASSERT_EQ(dma.size(), 1u);
  EXPECT_EQ(Ps(dma[0]["ts"]) + Ps(dma[0]["dur"]), 200);
  EXPECT_EQ(dma[0]["args"]["status"], "aborted_by_reset");
  EXPECT_EQ(Names(OnTrack(doc, 0, "mmio")), std::vector<std::string>{"reset"});
  // The other adapter is untouched: its slice runs to the end of the run.
  const std::vector<json> other = OnTrack(doc, 1, "task 0");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(Ps(other[0]["ts"]) + Ps(other[0]["dur"]), 900);
  EXPECT_EQ(OnTrack(doc, 1, "link in")[0]["args"], (json{{"bytes", 80}}));
}

TEST(TimelineWriterTest, TimestampsKeepEveryPicosecond) {
  const ScopedDir dir = ScratchDir("precision");
  TimelineWriter timeline((dir / "t.json").string());
  timeline.Record(1'234'567'891, 0, Ev(fw::TraceKind::kRxState, 0, Rx(fw::RxState::kValidate)));
  timeline.Record(1'234'567'892, 0, Ev(fw::TraceKind::kRxState, 0, Rx(fw::RxState::kBind)));
  ASSERT_TRUE(timeline.Finish());
  const std::string text = ReadFile(dir / "t.json");
  EXPECT_NE(text.find(R"("ts":1234.567891,"dur":0.000001,"name":"rx:validate")"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("ts":1234.567892,"dur":0.000000,"name":"rx:bind")"), std::string::npos);
}

TEST(TraceFanOutTest, AttachesNothingOneSinkOrItselfAndForwardsToEach) {
  TraceFanOut none;
  EXPECT_EQ(none.Sink(), nullptr);
  Recorder a, b;
  TraceFanOut one;
  one.Add(&a);
  one.Add(nullptr);
  EXPECT_EQ(one.Sink(), &a);
  TraceFanOut both;
  both.Add(&a);
  both.Add(&b);
  ASSERT_EQ(both.Sink(), &both);
  both.Sink()->Record(42, 3, Ev(fw::TraceKind::kReset));
  ASSERT_EQ(a.entries.size(), 1u);
  ASSERT_EQ(b.entries.size(), 1u);
  EXPECT_EQ(b.entries[0].t, 42u);
  EXPECT_EQ(b.entries[0].adapter, 3u);
}

/** Runs the nicsim binary with `args`; returns its exit code (-1 if it did not exit). */
int RunNicsim(const std::string& args) {
  const int status = std::system((std::string(NICSIM_BINARY) + " " + args).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TimelineCliTest, RunWritesATimelineThatParses) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const ScopedDir dir = ScratchDir("cli");
  const fs::path file = dir / "timeline.json";
  // The packet-mode sweep, cut short (the default MPI run would write a timeline of a GiB).
  ASSERT_EQ(RunNicsim("run pingpong --quiet --set pingpong.iterations=2 "
                      "--set pingpong.stream_packets=2 "
                      "--timeline " +
                      file.string() + " --out " + dir.string()),
            0);
  const json doc = Load(file);
  ExpectValidTimeline(doc);
  EXPECT_GT(doc["traceEvents"].size(), 100u);
  EXPECT_TRUE(fs::exists(dir / "stats.json"));
}

TEST(TimelineCliTest, TraceAndTimelineTogetherBothSeeEveryEvent) {
  const ScopedDir dir = ScratchDir("cli_both");
  ASSERT_EQ(RunNicsim("run pingpong --quiet --set backend=func --set pingpong.iterations=2 "
                      "--set pingpong.stream_packets=2 --trace " +
                      (dir / "trace.txt").string() + " --timeline " +
                      (dir / "timeline.json").string() + " --out " + dir.string()),
            0);
  const json doc = Load(dir / "timeline.json");
  ExpectValidTimeline(doc);
  // One DMA slice per dma_start line in the text trace.
  const std::string trace = ReadFile(dir / "trace.txt");
  size_t starts = 0;
  for (size_t at = trace.find(" dma_start "); at != std::string::npos;
       at = trace.find(" dma_start ", at + 1)) {
    ++starts;
  }
  size_t slices = 0;
  for (const json& e : doc["traceEvents"]) slices += e["ph"] == "X" && e["cat"] == "dma";
  EXPECT_GT(starts, 0u);
  EXPECT_EQ(slices, starts);
}

TEST(TimelineCliTest, UnwritableTimelineExitsTwo) {
  const ScopedDir dir = ScratchDir("cli_bad");
  EXPECT_EQ(RunNicsim("run pingpong --quiet --timeline /nonexistent-dir/t.json --out " +
                      dir.string() + " 2>/dev/null"),
            2);
}

}  // namespace
}  // namespace nicsim::sim
