// SPDX-License-Identifier: Apache-2.0
// Host events in the text trace: frame_consumed lines have the fixed columns, pass through the
// --trace-filter like firmware events, and follow each frame's rx finish one for one. And where
// `trace check` writes: a new file in a private directory, never through a planted symlink.
#include "sim/observe/trace_writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "firmware/states.h"
#include "sim/cluster/cluster.h"
#include "app/trace_commands.h"
#include "sim/workloads/workload.h"
#include "tests/support/process.h"

namespace nicsim::sim {
namespace {

HostTraceEvent Consumed(uint32_t window, uint64_t seq) {
  return {HostTraceKind::kFrameConsumed, window, seq};
}

TEST(HostTraceTest, FrameConsumedLineHasTheFixedColumns) {
  EXPECT_EQ(FormatHostTraceEvent(1234, 1, Consumed(3, 7)),
            "1234 a1 frame_consumed task=- state=- window=3 cb=- dtb=- value=7");
}

TEST(HostTraceTest, FilterSelectsHostEventsByKindAdapterAndWindow) {
  fw::TraceEvent rx;
  rx.kind = fw::TraceKind::kRxState;
  rx.window = 3;
  Result<TraceFilter> kind = TraceFilter::Parse("kind=frame_consumed");
  ASSERT_TRUE(kind.ok()) << kind.status().message();
  EXPECT_TRUE(kind->Keeps(1, Consumed(3, 0)));
  EXPECT_FALSE(kind->Keeps(1, rx));
  Result<TraceFilter> firmware_only = TraceFilter::Parse("kind=rx|drop");
  ASSERT_TRUE(firmware_only.ok());
  EXPECT_FALSE(firmware_only->Keeps(1, Consumed(3, 0)));
  EXPECT_TRUE(firmware_only->Keeps(1, rx));
  Result<TraceFilter> where = TraceFilter::Parse("adapter=0,window=3");
  ASSERT_TRUE(where.ok());
  EXPECT_TRUE(where->Keeps(0, Consumed(3, 0)));
  EXPECT_FALSE(where->Keeps(1, Consumed(3, 0)));
  EXPECT_FALSE(where->Keeps(0, Consumed(2, 0)));
  EXPECT_EQ(TraceFilter::Parse("kind=frame_consume").status().message(),
            "--trace-filter: unknown kind 'frame_consume'");
}

/** Every line of the receiving adapter's window 0: "finish" or "consumed N". */
class ReceiverLines final : public hw::func::TraceSink, public HostTraceSink {
 public:
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& e) override {
    if (adapter == 1 && e.window == 0 && e.kind == fw::TraceKind::kRxState &&
        e.state == static_cast<uint32_t>(fw::RxState::kFinish)) {
      lines.push_back("finish");
      finish_ps.push_back(time_ps);
    }
  }
  void RecordHost(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& e) override {
    if (adapter == 1 && e.window == 0) {
      lines.push_back("consumed " + std::to_string(e.value));
      consumed_ps.push_back(time_ps);
    }
  }
  std::vector<std::string> lines;
  std::vector<uint64_t> finish_ps;
  std::vector<uint64_t> consumed_ps;
};

TEST(HostTraceTest, EachFrameIsConsumedOnceAfterItsFinishInFifoOrder) {
  ReceiverLines trace;
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.trace = &trace;
  config.host_trace = &trace;
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  StreamConfig stream;
  stream.packets = 10;
  stream.size = 500;
  Result<WorkloadResult> r = RunStream(**cluster, stream);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(trace.finish_ps.size(), 10u);
  ASSERT_EQ(trace.consumed_ps.size(), 10u);
  // Frame k is consumed after it was written: the k-th consumed line follows the k-th finish.
  size_t finishes = 0;
  uint64_t next = 0;
  for (const std::string& line : trace.lines) {
    if (line == "finish") {
      ++finishes;
      continue;
    }
    EXPECT_EQ(line, "consumed " + std::to_string(next));
    EXPECT_GT(finishes, next) << "frame " << next << " consumed before it was written";
    ++next;
  }
  EXPECT_EQ(next, 10u);
  for (size_t k = 0; k < 10; ++k) EXPECT_GE(trace.consumed_ps[k], trace.finish_ps[k]);
}

TEST(HostTraceTest, TraceWriterWritesHostEventsThroughItsFilter) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "nicsim_host_trace_test.txt";
  {
    Result<TraceFilter> filter = TraceFilter::Parse("kind=frame_consumed");
    ASSERT_TRUE(filter.ok());
    TraceWriter writer(path.string(), *filter);
    ASSERT_TRUE(writer.ok());
    ClusterConfig config;
    config.backend = BackendKind::kFunc;
    config.trace = &writer;
    config.host_trace = &writer;
    Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
    ASSERT_TRUE(cluster.ok());
    StreamConfig stream;
    stream.packets = 3;
    stream.size = 64;
    ASSERT_TRUE(RunStream(**cluster, stream).ok());
    EXPECT_EQ(writer.events(), 3u);
  }
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line.substr(line.find(' ') + 1));
  std::filesystem::remove(path);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "a1 frame_consumed task=- state=- window=0 cb=- dtb=- value=0",
                       "a1 frame_consumed task=- state=- window=0 cb=- dtb=- value=1",
                       "a1 frame_consumed task=- state=- window=0 cb=- dtb=- value=2"}));
}

TEST(TraceCheckDirTest, ChecksOfDirectoriesWithTrailingSlashesGetTheirOwnDirectories) {
  // "traces/a/" and "traces/b/" both used to write $TMPDIR/nicsim-trace-.txt.
  nicsim::testing::ScratchDir scratch("nicsim_trace_dir");
  ASSERT_FALSE(scratch.path().empty());
  const std::string root = scratch.path().string();
  Result<std::string> a = MakeTraceCheckDir("traces/a/", root);
  Result<std::string> b = MakeTraceCheckDir("traces/b//", root);
  Result<std::string> a_again = MakeTraceCheckDir("traces/a", root);
  ASSERT_TRUE(a.ok() && b.ok() && a_again.ok()) << a.status().message();
  EXPECT_NE(*a, *b);
  EXPECT_NE(*a, *a_again);  // two checks of one golden at once do not collide either
  for (const std::string* dir : {&*a, &*b, &*a_again}) {
    EXPECT_EQ(std::filesystem::path(*dir).parent_path(), scratch.path());
    EXPECT_TRUE(std::filesystem::is_directory(*dir)) << *dir;
    EXPECT_EQ(std::filesystem::status(*dir).permissions(), std::filesystem::perms::owner_all);
  }
  EXPECT_EQ(std::filesystem::path(*a).filename().string().rfind("nicsim-trace-a-", 0), 0u) << *a;
  EXPECT_EQ(std::filesystem::path(*b).filename().string().rfind("nicsim-trace-b-", 0), 0u) << *b;
  Result<std::string> dot = MakeTraceCheckDir(".", root);
  ASSERT_TRUE(dot.ok());
  EXPECT_EQ(std::filesystem::path(*dot).filename().string().rfind("nicsim-trace-golden-", 0), 0u);
  EXPECT_EQ(MakeTraceCheckDir("x", root + "/absent").status().message(),
            "trace check: cannot make a directory like " + root +
                "/absent/nicsim-trace-x-XXXXXX: No such file or directory");
}

TEST(TraceCheckDirTest, ANewTraceFileIsNeverWrittenThroughWhatIsAlreadyThere) {
  nicsim::testing::ScratchDir scratch("nicsim_trace_new");
  ASSERT_FALSE(scratch.path().empty());
  const std::filesystem::path victim = scratch.path() / "victim.txt";
  std::ofstream(victim) << "precious\n";
  const std::filesystem::path link = scratch.path() / "link.txt";
  const std::filesystem::path dangling = scratch.path() / "dangling.txt";
  std::filesystem::create_symlink(victim, link);
  std::filesystem::create_symlink(scratch.path() / "nowhere.txt", dangling);
  for (const std::filesystem::path& path : {link, dangling, victim}) {
    TraceWriter writer(path.string(), {}, TraceWriter::Open::kCreateNew);
    EXPECT_FALSE(writer.ok()) << path;
  }
  EXPECT_FALSE(std::filesystem::exists(scratch.path() / "nowhere.txt"));
  EXPECT_EQ(nicsim::testing::ReadFile(victim), "precious\n");
  const std::filesystem::path fresh = scratch.path() / "fresh.txt";
  {
    TraceWriter writer(fresh.string(), {}, TraceWriter::Open::kCreateNew);
    ASSERT_TRUE(writer.ok());
    writer.RecordHost(5, 1, Consumed(0, 9));
  }
  EXPECT_EQ(std::filesystem::status(fresh).permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_EQ(nicsim::testing::ReadFile(fresh),
            "5 a1 frame_consumed task=- state=- window=0 cb=- dtb=- value=9\n");
  // The default (the user's own --trace path) still follows a link, as any output file does.
  {
    TraceWriter writer(link.string());
    EXPECT_TRUE(writer.ok());
  }
  EXPECT_EQ(nicsim::testing::ReadFile(victim), "");
}

}  // namespace
}  // namespace nicsim::sim
