// SPDX-License-Identifier: Apache-2.0
// The nicsim binary's contract on good runs, run as a subprocess: a complete stats.json and
// table, listings that name every key, a seed that fixes the run and its traces, trace checks
// that keep their files to themselves.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/cli/cli_fixture.h"
#include "tests/support/backends.h"

namespace nicsim::cli_test {
namespace {

/** Sets an environment variable for a scope (the nicsim it runs inherits it). */
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class TraceCheckTest : public CliTest {
 protected:
  /** A small functional-model golden, blessed here: DIR/golden/{scenario.toml,trace.txt}. */
  fs::path BlessGolden() {
    const fs::path golden = dir_ / "golden";
    fs::create_directories(golden);
    std::ofstream(golden / "scenario.toml")
        << "backend = \"func\"\nworkload = \"stream\"\n[stream]\npackets = 3\nsize = 16\n";
    const Outcome o = Nicsim({"trace", "bless", golden.string()});
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return golden;
  }

  /** The names in `dir`. */
  static std::set<std::string> Names(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
    return names;
  }

  const fs::path tmp_ = dir_ / "tmp";
};

TEST_F(TraceCheckTest, ASymlinkPlantedInTheTempDirIsNotFollowed) {
  const fs::path golden = BlessGolden();
  // Links at the names the check used to write ($TMPDIR/nicsim-trace-<dir>.txt, and with a
  // trailing slash nicsim-trace-.txt), pointing at a file of the user's.
  fs::create_directories(tmp_);
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, tmp_ / "nicsim-trace-golden.txt");
  fs::create_symlink(victim, tmp_ / "nicsim-trace-.txt");
  ScopedEnv tmpdir("TMPDIR", tmp_.string());
  for (const std::string& dir : {golden.string(), golden.string() + "/"}) {
    const Outcome o = Nicsim({"trace", "check", dir});
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(o.out.rfind("traces are identical (", 0), 0u) << o.out;
    EXPECT_EQ(o.err, "");
  }
  EXPECT_EQ(ReadFile(victim), "precious\n");
  // The check's own directory is gone; the planted links are left alone.
  EXPECT_EQ(Names(tmp_), (std::set<std::string>{"nicsim-trace-.txt", "nicsim-trace-golden.txt"}));
}

TEST_F(TraceCheckTest, AFailedCheckKeepsTheFreshTraceAndSaysWhere) {
  const fs::path golden = BlessGolden();
  const std::string blessed = ReadFile(golden / "trace.txt");
  ASSERT_FALSE(blessed.empty());
  std::ofstream(golden / "trace.txt", std::ios::app) << "0 a0 rx task=0 state=- window=0\n";
  fs::create_directories(tmp_);
  ScopedEnv tmpdir("TMPDIR", tmp_.string());
  const Outcome o = Nicsim({"trace", "check", golden.string() + "/"});
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const std::string marker = "fresh trace kept in ";
  const size_t at = o.out.find(marker);
  ASSERT_NE(at, std::string::npos) << o.out;
  const fs::path kept = o.out.substr(at + marker.size(), o.out.size() - at - marker.size() - 1);
  EXPECT_EQ(o.out.substr(at + marker.size() + kept.string().size()), "\n");
  EXPECT_EQ(kept.filename(), "trace.txt");
  EXPECT_EQ(kept.parent_path().parent_path(), tmp_);
  EXPECT_EQ(kept.parent_path().filename().string().rfind("nicsim-trace-golden-", 0), 0u) << kept;
  EXPECT_EQ(fs::status(kept.parent_path()).permissions(), fs::perms::owner_all);
  EXPECT_EQ(ReadFile(kept), blessed);
}

TEST_F(CliTest, RunPrintsTheTableAndWritesStatsJson) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const fs::path out_dir = dir_ / "out";
  const Outcome o = Nicsim({"run", "pingpong", "--out", out_dir.string(), "--set",
                            "pingpong.iterations=5", "--set", "pingpong.stream_packets=5"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  const std::vector<std::string> lines = Lines(o.out);
  ASSERT_EQ(lines.size(), 10u) << o.out;
  EXPECT_EQ(lines[0], "scenario pingpong (builtin:pingpong), backend systemc, seed 1");
  EXPECT_EQ(lines[1], "    size_B    latency_us  bandwidth_MB/s");
  const std::vector<std::string> sizes = {"0", "16", "64", "256", "1024", "2032"};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string row = lines[2 + i];
    EXPECT_EQ(row.substr(row.find_first_not_of(' '), sizes[i].size() + 1), sizes[i] + " ") << row;
  }
  EXPECT_EQ(lines[9], "stats: " + (out_dir / "stats.json").string());
  // The workload's table also lands as CSV, one row per size, columns in JSON key order.
  const std::string csv = ReadFile(out_dir / "pingpong_sweep.csv");
  const std::vector<std::string> rows = Lines(csv);
  ASSERT_EQ(rows.size(), 7u) << csv;
  EXPECT_EQ(rows[0], "bandwidth_mbps,latency_ns,size_bytes");
  EXPECT_EQ(rows[1].substr(rows[1].rfind(',')), ",0");
  EXPECT_EQ(rows[6].substr(rows[6].rfind(',')), ",2032");

  const nlohmann::json stats =
      nlohmann::json::parse(ReadFile(out_dir / "stats.json"), nullptr, false);
  ASSERT_FALSE(stats.is_discarded());
  for (const char* key :
       {"sim_time_ns", "wall_time_s", "events", "packets_delivered", "messages_sent",
        "messages_delivered", "bytes_delivered", "drops", "workload"}) {
    EXPECT_TRUE(stats.contains(key)) << key;
  }
  EXPECT_TRUE(stats["sim_time_ns"].is_number_unsigned());
  EXPECT_TRUE(stats["wall_time_s"].is_number());
  EXPECT_TRUE(stats["events"].is_number_unsigned());
  ASSERT_TRUE(stats["drops"].is_object());
  ASSERT_TRUE(stats["workload"].is_object());
  // Six sizes, each 5 round trips (2 packets) plus 5 one-way packets: 90 packets, no loss.
  EXPECT_EQ(stats["packets_delivered"], 90);
  EXPECT_EQ(stats["messages_sent"], 90);
  EXPECT_EQ(stats["messages_delivered"], 90);
  EXPECT_EQ(stats["bytes_delivered"], (0 + 16 + 64 + 256 + 1024 + 2032) * 15);
  for (const auto& [reason, count] : stats["drops"].items()) EXPECT_EQ(count, 0) << reason;
  EXPECT_EQ(stats["workload"]["workload"], "pingpong_sweep");
  ASSERT_EQ(stats["workload"]["table"].size(), 6u);
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(stats["workload"]["table"][i]["size_bytes"], std::stoi(sizes[i]));
  }
}

TEST_F(CliTest, ParamsListsEveryParameter) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const Outcome o = Nicsim({"params"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  const std::vector<std::string> lines = Lines(o.out);
  ASSERT_GT(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "name                       type         default                      "
            "description");
  EXPECT_EQ(lines[3],
            "seed                       int          1                            "
            "The one seed that drives every random choice in a run");
  std::set<std::string> names;
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_TRUE(names.insert(FirstWord(lines[i])).second) << "listed twice: " << lines[i];
  }
  // The stable keys DESIGN.md promises, plus the ones other tools use.
  for (const char* key :
       {"seed", "backend", "preset", "nodes", "adapters_per_node", "fabric.paths", "fabric.loss",
        "fabric.duplicate", "fabric.reorder", "fabric.corrupt", "workload", "pingpong.sizes"}) {
    EXPECT_EQ(names.count(key), 1u) << key;
  }
  // The listing and the parameter echo in stats.json come from the same table.
  const nlohmann::json stats =
      RunForStats({"--set", "pingpong.iterations=1", "--set", "pingpong.stream_packets=1"}, "out");
  ASSERT_TRUE(stats["params"].is_object());
  std::set<std::string> echoed;
  for (const auto& [key, value] : stats["params"].items()) echoed.insert(key);
  EXPECT_EQ(names, echoed);
}

TEST_F(CliTest, ScenariosListsTheBuiltins) {
  const Outcome o = Nicsim({"scenarios"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  std::vector<std::string> names;
  for (const std::string& line : Lines(o.out)) names.push_back(FirstWord(line));
  EXPECT_EQ(names, (std::vector<std::string>{"default", "pingpong", "stream", "exchange"}));
}

TEST_F(CliTest, DefaultRunIsTheMpiSweepOnTheHpsPreset) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const fs::path out_dir = dir_ / "out";
  const Outcome o =
      Nicsim({"run", "--out", out_dir.string(), "--set", "mpi.sizes=[8]", "--set",
              "mpi.iterations=5", "--set", "mpi.bandwidth_messages=2", "--set", "mpi.window=2"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::vector<std::string> lines = Lines(o.out);
  ASSERT_GE(lines.size(), 3u) << o.out;
  EXPECT_EQ(lines[0], "scenario default (builtin:default), backend systemc, seed 1");
  EXPECT_EQ(lines[1], "    size_B    latency_us     oneway_MB/s      bidir_MB/s");
  const nlohmann::json stats = nlohmann::json::parse(ReadFile(out_dir / "stats.json"));
  EXPECT_EQ(stats["params"]["preset"], "hps");
  EXPECT_EQ(stats["workload"]["workload"], "mpi_pingpong");
  const double latency = stats["workload"]["points"][0]["latency_us"].get<double>();
  // The hps preset models HPS's ~4.3 us small-message MPI latency.
  EXPECT_GT(latency, 3.9);
  EXPECT_LT(latency, 4.7);
}

/** stats.json as text with every top-level wall-clock field removed. */
std::string WithoutWallClock(nlohmann::json stats) {
  std::vector<std::string> wall;
  for (const auto& [key, value] : stats.items()) {
    if (key.rfind("wall_", 0) == 0) wall.push_back(key);
  }
  for (const std::string& key : wall) stats.erase(key);
  return stats.dump();
}

TEST_F(CliTest, SameSeedGivesIdenticalStatsApartFromWallClock) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const std::vector<std::string> args = {"exchange", "--set", "exchange.messages=2000", "--set",
                                         "fabric.reorder=0.2"};
  const nlohmann::json first = RunForStats(args, "first");
  const nlohmann::json second = RunForStats(args, "second");
  ASSERT_FALSE(first.is_discarded());
  ASSERT_FALSE(second.is_discarded());
  ASSERT_TRUE(first.contains("wall_time_s"));
  // The runs do reorder, so this compares runs with real randomness in them.
  EXPECT_GT(first["fabric"]["frames_reordered"].get<uint64_t>(), 0u);
  EXPECT_EQ(WithoutWallClock(first), WithoutWallClock(second));
}

// The nicsim executable lays each node's and rank's objects out together (app/packed_new.cc);
// where they lie must change no result. A lossy MPI job, so retransmission timers and
// reordering are in it.
TEST_F(CliTest, PackedNodeStateChangesNoResult) {
  std::vector<std::string> stats;
  for (const std::string packed : {"1", "0"}) {
    const fs::path out = dir_ / ("packed" + packed);
    const Outcome o = nicsim::testing::RunCommand(
        {"/bin/sh", "-c",
         "NICSIM_PACKED_NEW=" + packed + " exec " + NICSIM_BINARY +
             " run --quiet --set backend=func --set nodes=32 --set mpi.ranks=32 --set seed=4"
             " --set workload=mpi_collectives --set mpi.collectives=allreduce,alltoall"
             " --set 'mpi.sizes=[8, 8192]' --set mpi.iterations=2"
             " --set fabric.loss=0.01 --set fabric.reorder=0.1 --out " +
             out.string()},
        dir_);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(out / "stats.json"), nullptr, false);
    ASSERT_FALSE(j.is_discarded());
    EXPECT_GT(j["workload"]["transport"]["retransmits"].get<uint64_t>(), 0u);
    stats.push_back(WithoutWallClock(j));
  }
  EXPECT_EQ(stats[0], stats[1]);
}

TEST_F(CliTest, SameSeedGivesIdenticalTracesOnEachSimulatedBackend) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  for (const std::string backend : {"func", "systemc"}) {
    std::vector<std::string> traces;
    for (const std::string run : {"a", "b"}) {
      const fs::path trace = dir_ / (backend + run + ".trace");
      const nlohmann::json stats =
          RunForStats({"exchange", "--set", "backend=" + backend, "--set", "exchange.messages=500",
                       "--set", "fabric.reorder=0.1", "--trace", trace.string()},
                      backend + run);
      ASSERT_FALSE(stats.is_discarded());
      EXPECT_EQ(stats["backend"], backend);
      traces.push_back(ReadFile(trace));
    }
    EXPECT_GT(traces[0].size(), 10000u) << backend;
    EXPECT_EQ(traces[0], traces[1]) << backend;
  }
}

TEST_F(CliTest, TraceFilterKeepsOnlyTheChosenAdapterAndKinds) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const fs::path trace = dir_ / "filtered.trace";
  const nlohmann::json stats =
      RunForStats({"--set", "pingpong.iterations=2", "--set", "pingpong.stream_packets=2",
                   "--trace", trace.string(), "--trace-filter", "adapter=1,kind=rx|mmio"},
                  "filtered");
  ASSERT_FALSE(stats.is_discarded());
  const std::vector<std::string> lines = Lines(ReadFile(trace));
  ASSERT_FALSE(lines.empty());
  size_t rx = 0;
  for (const std::string& l : lines) {
    const bool ok =
        l.find(" a1 rx ") != std::string::npos || l.find(" a1 mmio ") != std::string::npos;
    EXPECT_TRUE(ok) << l;
    rx += l.find(" a1 rx ") != std::string::npos;
  }
  EXPECT_GT(rx, 0u);
  const Outcome bad = Nicsim({"run", "--trace", trace.string(), "--trace-filter", "kind=bogus",
                              "--out", (dir_ / "bad_filter").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "nicsim: --trace-filter: unknown kind 'bogus' (seed 1)\n");
}

TEST_F(CliTest, DifferentSeedGivesADifferentRun) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const std::vector<std::string> args = {"exchange", "--set", "exchange.messages=2000", "--set",
                                         "fabric.reorder=0.2"};
  std::vector<std::string> reseeded = args;
  reseeded.push_back("--set");
  reseeded.push_back("seed=2");
  const nlohmann::json one = RunForStats(args, "seed1");
  const nlohmann::json two = RunForStats(reseeded, "seed2");
  ASSERT_FALSE(one.is_discarded());
  ASSERT_FALSE(two.is_discarded());
  EXPECT_EQ(two["seed"], 2);
  EXPECT_TRUE(one["sim_time_ns"] != two["sim_time_ns"] || one["events"] != two["events"]);
}

}  // namespace
}  // namespace nicsim::cli_test
