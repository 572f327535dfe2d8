// SPDX-License-Identifier: Apache-2.0
// Tests for sim/config: built-in scenarios, TOML flattening, presets, --set, and the exact
// "path:line:col: message" of every class of scenario error (the parameter table:
// param_table_test.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "base/text.h"
#include "base/units.h"
#include "sim/config/builtin_scenarios.h"
#include "sim/config/param_table.h"
#include "sim/config/scenario.h"
#include "tests/sim/scenario_errors.h"

namespace nicsim::sim {
namespace {

/** Parses `toml`, failing the test on error. */
Scenario ParseOk(std::string_view toml) {
  Result<Scenario> scenario = ParseScenario(toml, "t.toml");
  EXPECT_TRUE(scenario.ok()) << scenario.status().message();
  return scenario.ok() ? scenario.value() : Scenario{"", "", ParamValues::Defaults(), "", {}};
}

/** Writes `text` to a fresh file under the test temp dir and returns its path. */
std::string WriteTempFile(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "nicsim_config_test_" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

// ---------------------------------------------------------------------------------------------
// Built-in scenarios

TEST(BuiltinScenarioTest, EveryBuiltinParses) {
  std::vector<std::pair<std::string_view, std::string_view>> list = BuiltinScenarioList();
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0].first, "default");
  EXPECT_EQ(list[1].first, "pingpong");
  EXPECT_EQ(list[2].first, "stream");
  EXPECT_EQ(list[3].first, "exchange");
  for (const auto& [name, description] : list) {
    ASSERT_TRUE(BuiltinScenarioText(name).has_value()) << name;
    Result<Scenario> scenario = LoadBuiltinScenario(name);
    ASSERT_TRUE(scenario.ok()) << scenario.status().message();
    EXPECT_EQ(scenario->name, name);
    EXPECT_EQ(scenario->description, description);
    EXPECT_EQ(scenario->source, "builtin:" + std::string(name));
  }
  EXPECT_FALSE(BuiltinScenarioText("nope").has_value());
  EXPECT_EQ(LoadBuiltinScenario("nope").status().message(),
            "unknown built-in scenario 'nope' (built-ins: default, pingpong, stream, exchange)");
}

TEST(BuiltinScenarioTest, BuiltinsSetTheirWorkloads) {
  // The default is the MPI sweep on the hps preset.
  Scenario def = LoadBuiltinScenario("default").value();
  EXPECT_EQ(def.params.String("preset"), "hps");
  EXPECT_EQ(def.params.String("workload"), "mpi_pingpong");
  EXPECT_EQ(def.params.Int("mpi.ranks"), 2);
  EXPECT_TRUE(def.params.Bool("fabric.cut_through"));

  Scenario pingpong = LoadBuiltinScenario("pingpong").value();
  EXPECT_EQ(pingpong.params, ParamValues::Defaults());  // the packet-mode sweep: table defaults

  Scenario stream = LoadBuiltinScenario("stream").value();
  EXPECT_EQ(stream.params.Int("nodes"), 2);
  EXPECT_EQ(stream.params.String("workload"), "stream");
  EXPECT_EQ(stream.params.Int("stream.packets"), 100000);
  EXPECT_EQ(stream.params.Int("stream.size"), 1024);

  Scenario exchange = LoadBuiltinScenario("exchange").value();
  EXPECT_EQ(exchange.params.Int("nodes"), 4);
  EXPECT_EQ(exchange.params.Int("windows_per_adapter"), 2);
  EXPECT_EQ(exchange.params.String("workload"), "random_exchange");
  EXPECT_EQ(exchange.params.Int("exchange.messages"), 20000);
}

// ---------------------------------------------------------------------------------------------
// Scenario parsing

TEST(ScenarioTest, TablesAndDottedKeysFlattenToTheSameName) {
  EXPECT_EQ(ParseOk("[fabric]\nloss = 0.25\n").params.Probability("fabric.loss"), 0.25);
  EXPECT_EQ(ParseOk("fabric.loss = 0.25\n").params.Probability("fabric.loss"), 0.25);
  EXPECT_EQ(ParseOk("fabric = { loss = 0.25 }\n").params.Probability("fabric.loss"), 0.25);
  EXPECT_EQ(ParseOk("\"fabric.loss\" = 0.25\n").params.Probability("fabric.loss"), 0.25);
  Scenario both = ParseOk("nodes = 8\nlink.bandwidth = \"1GB/s\"\n[fabric]\nloss = 1\npaths = 4\n");
  EXPECT_EQ(both.params.Int("nodes"), 8);
  EXPECT_EQ(both.params.RateBytesPerSec("link.bandwidth"), 1e9);
  EXPECT_EQ(both.params.Probability("fabric.loss"), 1.0);
  EXPECT_EQ(both.params.Int("fabric.paths"), 4);
}

TEST(ScenarioTest, NumbersForUnitParamsUseTheBaseUnit) {
  Scenario s = ParseOk(
      "[fabric]\nhop_latency = 250\nreorder_delay = 4.3\n"
      "[link]\nbandwidth = 1000000000\n[dma]\nbandwidth = 2.5e9\nlatency = \"1us\"\n");
  EXPECT_EQ(s.params.DurationPs("fabric.hop_latency"), 250'000);
  EXPECT_EQ(s.params.DurationPs("fabric.reorder_delay"), 4'300);
  EXPECT_EQ(s.params.RateBytesPerSec("link.bandwidth"), 1e9);
  EXPECT_EQ(s.params.RateBytesPerSec("dma.bandwidth"), 2.5e9);
  EXPECT_EQ(s.params.DurationPs("dma.latency"), 1'000'000);
}

TEST(ScenarioTest, NameComesFromTheFileOrTheSource) {
  Result<Scenario> named = ParseScenario("name = \"lossy\"\ndescription = \"d\"\n", "x/y.toml");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->name, "lossy");
  EXPECT_EQ(named->description, "d");
  EXPECT_EQ(named->source, "x/y.toml");
  Result<Scenario> unnamed = ParseScenario("", "runs/lossy_fabric.toml");
  ASSERT_TRUE(unnamed.ok());
  EXPECT_EQ(unnamed->name, "lossy_fabric");
  EXPECT_EQ(unnamed->params, ParamValues::Defaults());
}

TEST(ScenarioTest, ReportsSyntaxErrorsWithPosition) {
  EXPECT_EQ(ParseError("nodes = \n"),
            "t.toml:1:9: Error while parsing key-value pair: expected value, saw '\\n'");
  EXPECT_EQ(ParseError("nodes = 2\nnodes = 3\n"),
            "t.toml:2:9: Error while parsing key-value pair: cannot redefine existing integer "
            "'nodes'");
  EXPECT_EQ(ParseError("x = [1, 2\n"),
            "t.toml:1:11: Error while parsing array: encountered end-of-file");
  EXPECT_EQ(ParseError("\xff\xfe = 1"), "t.toml:1:1: Encountered invalid utf-8 sequence");
}

TEST(ScenarioTest, ReportsUnknownKeysWithSuggestions) {
  EXPECT_EQ(ParseError("[fabric]\nlos = 0.1\n"),
            "t.toml:2:1: unknown key 'fabric.los'; did you mean 'fabric.loss'?");
  EXPECT_EQ(ParseError("fabric.los = 0.1\n"),
            "t.toml:1:8: unknown key 'fabric.los'; did you mean 'fabric.loss'?");
  EXPECT_EQ(ParseError("[fabrik]\nloss = 0.1\n"),
            "t.toml:2:1: unknown key 'fabrik.loss'; did you mean 'fabric.loss'?");
  EXPECT_EQ(ParseError("zzz = 1\n"), "t.toml:1:1: unknown key 'zzz'");
  EXPECT_EQ(ParseError("out = \"x\"\n"), "t.toml:1:1: unknown key 'out'");
}

TEST(ScenarioTest, ReportsWrongTypes) {
  EXPECT_EQ(ParseError("nodes = \"two\"\n"), "t.toml:1:9: nodes: expected an integer, got string");
  EXPECT_EQ(ParseError("nodes = 2.0\n"), "t.toml:1:9: nodes: expected an integer, got float");
  EXPECT_EQ(ParseError("[nodes]\nx = 1\n"), "t.toml:1:1: nodes: expected an integer, got table");
  EXPECT_EQ(ParseError("fabric.loss = \"0.1\"\n"),
            "t.toml:1:15: fabric.loss: expected a number, got string");
  EXPECT_EQ(ParseError("backend = 1\n"), "t.toml:1:11: backend: expected a string, got integer");
  EXPECT_EQ(ParseError("link.bandwidth = true\n"),
            "t.toml:1:18: link.bandwidth: expected a rate like \"2GB/s\" or a number of bytes "
            "per second, got boolean");
  EXPECT_EQ(ParseError("[pingpong]\nsizes = 5\n"),
            "t.toml:2:9: pingpong.sizes: expected an array of integers, got integer");
  EXPECT_EQ(ParseError("[pingpong]\nsizes = [0, \"x\"]\n"),
            "t.toml:2:13: pingpong.sizes[1]: expected an integer, got string");
  EXPECT_EQ(ParseError("name = 3\n"), "t.toml:1:8: name: expected a string, got integer");
}

TEST(ScenarioTest, ReportsOutOfRangeValues) {
  EXPECT_EQ(ParseError("nodes = 0\n"), "t.toml:1:9: nodes must be in [1, 4096], got 0");
  EXPECT_EQ(ParseError("  windows_per_adapter = -4\n"),
            "t.toml:1:25: windows_per_adapter must be in [1, 128], got -4");
  EXPECT_EQ(ParseError("[stream]\npackets = 0\n"),
            "t.toml:2:11: stream.packets must be in [1, 1000000000], got 0");
  EXPECT_EQ(ParseError("[host]\ncache_line = 32\n"),
            "t.toml:2:14: host.cache_line must be 64 or 128, got 32");
  EXPECT_EQ(ParseError("[fabric]\nloss = 1.5\n"),
            "t.toml:2:8: fabric.loss must be in [0, 1], got 1.5");
  EXPECT_EQ(ParseError("fabric = { loss = 2 }\n"),
            "t.toml:1:19: fabric.loss must be in [0, 1], got 2");
  EXPECT_EQ(ParseError("[pingpong]\nsizes = [0, 16, 70000]\n"),
            "t.toml:2:17: pingpong.sizes[2] must be in [0, 65535], got 70000");
  EXPECT_EQ(ParseError("[pingpong]\nsizes = []\n"), "t.toml:2:9: pingpong.sizes must not be empty");
  EXPECT_EQ(ParseError("link.bandwidth = 0\n"),
            "t.toml:1:18: link.bandwidth must be at least 1B/s, got 0B/s");
}

TEST(ScenarioTest, ReportsBadEnumsAndUnits) {
  EXPECT_EQ(ParseError("backend = \"foo\"\n"),
            "t.toml:1:11: backend: 'foo' is not one of func, systemc, rtl");
  EXPECT_EQ(
      ParseError("workload = \"Stream\"\n"),
      "t.toml:1:12: workload: 'Stream' is not one of pingpong_sweep, stream, random_exchange, "
      "rdma_sweep, dlm_blocks, ip_exchange, close_under_load, recovery_under_load, mpi_pingpong, "
      "mpi_collectives, "
      "mpi_alltoall, mpi_one_sided, mpi_program");
  EXPECT_EQ(ParseError("[fabric]\nhop_latency = \"3 furlongs\"\n"),
            "t.toml:2:15: fabric.hop_latency: bad duration '3 furlongs': unknown unit 'furlongs' "
            "(expected ps, ns, us, ms or s)");
  EXPECT_EQ(ParseError("[fabric]\nhop_latency = -5\n"),
            "t.toml:2:15: fabric.hop_latency: bad duration '-5ns': must not be negative");
  EXPECT_EQ(ParseError("dma.latency = \"0.1ps\"\n"),
            "t.toml:1:15: dma.latency: bad duration '0.1ps': not a whole number of picoseconds");
  EXPECT_EQ(ParseError("dma.bandwidth = \"4 GB\"\n"),
            "t.toml:1:17: dma.bandwidth: bad rate '4 GB': unknown unit 'GB' (expected B/s, KB/s, "
            "MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s or TiB/s (b for bits))");
}

TEST(ScenarioTest, ReportsTheFirstErrorInDocumentOrder) {
  // toml++ iterates keys alphabetically; "nodes" sorts before "seed" but comes later here.
  EXPECT_EQ(ParseError("seed = -1\nnodes = 0\n"), "t.toml:1:8: seed must be >= 0, got -1");
  EXPECT_EQ(ParseError("zzz = 1\n[fabric]\nloss = 3\n"), "t.toml:1:1: unknown key 'zzz'");
}

TEST(ScenarioFileTest, LoadsAFile) {
  std::string path = WriteTempFile("ok.toml", "name = \"lossy\"\n[fabric]\nloss = 0.01\n");
  Result<Scenario> scenario = LoadScenarioFile(path);
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  EXPECT_EQ(scenario->name, "lossy");
  EXPECT_EQ(scenario->source, path);
  EXPECT_EQ(scenario->params.Probability("fabric.loss"), 0.01);
  std::remove(path.c_str());
}

TEST(ScenarioFileTest, ErrorsNameThePathLineAndColumn) {
  std::string path =
      WriteTempFile("bad.toml",
                    "# a comment\nseed = 7\n\n[fabric]\npaths = 2\nloss = 0.1\n"
                    "hop_latency = \"300ns\"\n    reorder_delay = \"2 fortnights\"\n");
  Result<Scenario> scenario = LoadScenarioFile(path);
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().message(),
            path +
                ":8:21: fabric.reorder_delay: bad duration '2 fortnights': unknown unit "
                "'fortnights' (expected ps, ns, us, ms or s)");
  std::remove(path.c_str());

  path = WriteTempFile("syntax.toml", "nodes = 2\n[fabric\nloss = 0.1\n");
  scenario = LoadScenarioFile(path);
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().message().rfind(path + ":2:", 0), 0u) << scenario.status().message();
  std::remove(path.c_str());

  path = WriteTempFile("unknown.toml", "nodes = 2\n\n[adapter]\nrx_task = 2\n");
  scenario = LoadScenarioFile(path);
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().message(),
            path + ":4:1: unknown key 'adapter.rx_task'; did you mean 'adapter.rx_tasks'?");
  std::remove(path.c_str());
}

TEST(ScenarioFileTest, AFileAboveTheSizeLimitIsRejectedBeforeParsing) {
  // Bad at line 1 and followed by megabytes of keys: refused for its size, without parsing.
  std::string text = "nodes = 0\n";
  for (int i = 0; text.size() <= kMaxScenarioFileBytes; ++i) {
    text += "key_" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  }
  std::string path = WriteTempFile("huge.toml", text);
  EXPECT_EQ(LoadScenarioFile(path).status().message(),
            path + ": too large for a scenario file (more than 4MiB)");
  std::remove(path.c_str());
  // Exactly at the limit is read and parsed (a comment here).
  path = WriteTempFile("at_limit.toml", "#" + std::string(kMaxScenarioFileBytes - 2, 'x') + "\n");
  Result<Scenario> at_limit = LoadScenarioFile(path);
  EXPECT_TRUE(at_limit.ok()) << at_limit.status().message();
  std::remove(path.c_str());
}

TEST(ScenarioFileTest, TheFirstErrorOfAFileOfManyBadKeysIsReported) {
  // A megabyte of unknown keys after a bad first line: the first line's error, and only keys
  // before the earliest error so far get a did-you-mean suggestion worked out.
  std::string text = "nodes = 0\n";
  for (int i = 0; text.size() < (size_t{1} << 20); ++i) {
    text += "fabric.los" + std::to_string(i) + " = 1\n";
  }
  const std::string path = WriteTempFile("many_keys.toml", text);
  EXPECT_EQ(LoadScenarioFile(path).status().message(),
            path + ":1:9: nodes must be in [1, 4096], got 0");
  std::remove(path.c_str());
  EXPECT_EQ(ParseError("zzz = 1\nfabric.los = 0.1\n"), "t.toml:1:1: unknown key 'zzz'");
  EXPECT_EQ(ParseError("fabric.los = 0.1\nzzz = 1\n"),
            "t.toml:1:8: unknown key 'fabric.los'; did you mean 'fabric.loss'?");
}

TEST(ScenarioFileTest, MissingFileIsAnErrorNamingThePath) {
  std::string path = ::testing::TempDir() + "nicsim_config_test_does_not_exist.toml";
  EXPECT_EQ(LoadScenarioFile(path).status().message(),
            path + ": cannot open file: No such file or directory");
  EXPECT_EQ(LoadScenarioFile(::testing::TempDir()).status().message(),
            ::testing::TempDir() + ": cannot read file: Is a directory");
}

// ---------------------------------------------------------------------------------------------
// --set

TEST(ApplySetFlagTest, OverridesTheScenario) {
  Scenario scenario = ParseOk("nodes = 8\n[fabric]\nloss = 0.5\n");
  EXPECT_TRUE(ApplySetFlag(scenario, "fabric.loss=0.125").ok());
  EXPECT_TRUE(ApplySetFlag(scenario, " nodes = 3").ok());
  EXPECT_TRUE(ApplySetFlag(scenario, "fabric.hop_latency=1us").ok());
  EXPECT_EQ(scenario.params.Probability("fabric.loss"), 0.125);
  EXPECT_EQ(scenario.params.Int("nodes"), 3);
  EXPECT_EQ(scenario.params.DurationPs("fabric.hop_latency"), 1'000'000);
}

TEST(ApplySetFlagTest, ErrorsQuoteTheFlag) {
  Scenario scenario = ParseOk("");
  EXPECT_EQ(ApplySetFlag(scenario, "fabric.loss=2").message(),
            "--set fabric.loss=2: fabric.loss must be in [0, 1], got 2");
  EXPECT_EQ(ApplySetFlag(scenario, "nodes").message(), "--set nodes: expected key=value");
  EXPECT_EQ(ApplySetFlag(scenario, "fabric.los=0.1").message(),
            "--set fabric.los=0.1: unknown key 'fabric.los'; did you mean 'fabric.loss'?");
  EXPECT_EQ(ApplySetFlag(scenario, "=1").message(), "--set =1: unknown key ''");
  EXPECT_EQ(ApplySetFlag(scenario, "backend=verilog").message(),
            "--set backend=verilog: backend: 'verilog' is not one of func, systemc, rtl");
  EXPECT_EQ(ApplySetFlag(scenario, "pingpong.sizes=[0, -1]").message(),
            "--set pingpong.sizes=[0, -1]: pingpong.sizes[1] must be in [0, 65535], got -1");
  EXPECT_EQ(scenario.params, ParamValues::Defaults());
}

TEST(ControlBytesTest, PrintableEscapesControlBytesOnly) {
  EXPECT_EQ(Printable(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(Printable("line\nnext\ttab\x7f\x1b"), "line\\x0anext\\x09tab\\x7f\\x1b");
  EXPECT_EQ(Printable("caf\xc3\xa9 C:\\dir 'q'"), "caf\xc3\xa9 C:\\dir 'q'");
  EXPECT_EQ(Printable(Printable(std::string_view("\0", 1))), "\\x00");  // idempotent
}

TEST(ControlBytesTest, AnEmbeddedNulShowsInTheMessage) {
  // A NUL used to end the message where it was printed: "workload: 'a".
  const std::string_view flag("workload=a\0b", 12);
  Scenario scenario = ParseOk("");
  EXPECT_EQ(ApplySetFlag(scenario, flag).message(),
            "--set workload=a\\x00b: workload: 'a\\x00b' is not one of pingpong_sweep, stream, "
            "random_exchange, rdma_sweep, dlm_blocks, ip_exchange, close_under_load, "
            "recovery_under_load, mpi_pingpong, "
            "mpi_collectives, mpi_alltoall, mpi_one_sided, mpi_program");
  EXPECT_EQ(ApplySetFlag(scenario, std::string_view("nodes=2\0", 8)).message(),
            "--set nodes=2\\x00: nodes: expected an integer, got '2\\x00'");
  EXPECT_EQ(ApplySetFlag(scenario, std::string_view("no\0des=2", 8)).message(),
            "--set no\\x00des=2: unknown key 'no\\x00des'; did you mean 'nodes'?");
  EXPECT_EQ(ParseError("workload = \"a\\u0000b\"\n"),
            "t.toml:1:12: workload: 'a\\x00b' is not one of pingpong_sweep, stream, "
            "random_exchange, rdma_sweep, dlm_blocks, ip_exchange, close_under_load, "
            "recovery_under_load, mpi_pingpong, "
            "mpi_collectives, mpi_alltoall, mpi_one_sided, mpi_program");
  EXPECT_EQ(ParseError("\"a\\u0000b\" = 1\n"), "t.toml:1:1: unknown key 'a\\x00b'");
  EXPECT_EQ(ParseError("fabric.hop_latency = \"3\\u0000ns\"\n"),
            "t.toml:1:22: fabric.hop_latency: bad duration '3\\x00ns': unknown unit '\\x00ns' "
            "(expected ps, ns, us, ms or s)");
  EXPECT_EQ(ParseError("fabric.faults = \"path 0: lo\\u0000ss=1\"\n"),
            "t.toml:1:17: fabric.faults: rule 1 ('path 0: lo\\x00ss=1'): 'lo\\x00ss' is not a "
            "fault: expected loss, duplicate, reorder, corrupt or reorder_delay");
  // A raw NUL byte in the file: toml++ rejects it and shows it escaped its own way.
  EXPECT_EQ(ParseError(std::string_view("nodes = 2\0\n", 11)),
            "t.toml:1:10: Error while parsing decimal integer: expected digit, saw '\\u0000'");
  EXPECT_EQ(scenario.params, ParamValues::Defaults());
}

}  // namespace
}  // namespace nicsim::sim

namespace nicsim::sim {
namespace {

TEST(PresetTest, FileKeysOverrideThePresetWhateverTheirOrder) {
  Result<Scenario> s = ParseScenario("[dma]\nlatency = \"7us\"\n[top]\n", "p.toml");
  ASSERT_FALSE(s.ok());  // 'top.*' is no parameter: sanity check of the harness
  s = ParseScenario("dma.latency = \"7us\"\npreset = \"pushpull-fe\"\n", "p.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->params.DurationPs("dma.latency"), 7'000'000);
  EXPECT_EQ(s->params.Int("host.cache_line"), 64);
  EXPECT_DOUBLE_EQ(s->params.RateBytesPerSec("link.bandwidth"), 12.5e6);
  EXPECT_EQ(s->params.String("preset"), "pushpull-fe");
}

TEST(PresetTest, SetFlagAppliesThePresetAtThatPoint) {
  Result<Scenario> s = ParseScenario("", "empty.toml");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(ApplySetFlag(*s, "host.cache_line=64").ok());
  ASSERT_TRUE(ApplySetFlag(*s, "preset=hps").ok());
  EXPECT_EQ(s->params.Int("host.cache_line"), 128);
  ASSERT_TRUE(ApplySetFlag(*s, "host.cache_line=64").ok());
  EXPECT_EQ(s->params.Int("host.cache_line"), 64);
  EXPECT_EQ(ApplySetFlag(*s, "preset=cray").message(),
            "--set preset=cray: preset: 'cray' is not one of hps, pushpull-fe");
}

}  // namespace
}  // namespace nicsim::sim

namespace nicsim::sim {
namespace {

// ---------------------------------------------------------------------------------------------
// Errors found when values are combined

TEST(LocateParamErrorTest, PointsAtWhereTheParameterAtFaultWasWritten) {
  Scenario scenario = ParseOk("nodes = 2\n[fabric]\npaths = 2\nfaults = \"path 3: loss=1\"\n");
  EXPECT_EQ(scenario.origins.at("fabric.faults"), "t.toml:4:10");
  EXPECT_EQ(LocateParamError(scenario, Status::Error("fabric.faults: rule 1: bad")).message(),
            "t.toml:4:10: fabric.faults: rule 1: bad");
  // Indexed names ("fabric.path_down[0]") are found too; --set overrides the origin.
  ASSERT_TRUE(ApplySetFlag(scenario, "fabric.path_down=[5, 0, 1]").ok());
  EXPECT_EQ(LocateParamError(scenario, Status::Error("fabric.path_down[0]: plane 5")).message(),
            "--set fabric.path_down=[5, 0, 1]: fabric.path_down[0]: plane 5");
  // A parameter left at its default, or a message naming none, comes back unchanged.
  EXPECT_EQ(LocateParamError(scenario, Status::Error("fabric.loss: x")).message(),
            "fabric.loss: x");
  EXPECT_EQ(LocateParamError(scenario, Status::Error("stalled")).message(), "stalled");
  EXPECT_TRUE(LocateParamError(scenario, Status()).ok());
}

}  // namespace
}  // namespace nicsim::sim
