// SPDX-License-Identifier: Apache-2.0
// Tests for sim/config: the parameter table and its validation, built-in scenarios, TOML
// flattening, and the exact "path:line:col: message" of every class of scenario error.
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

namespace nicsim::sim {
namespace {

/** The error SetFromText gives for `name`=`text` on default values ("" when it succeeds). */
std::string SetError(std::string_view name, std::string_view text) {
  ParamValues values = ParamValues::Defaults();
  Status status = values.SetFromText(name, text);
  return status.message();
}

/** The error ParseScenario gives for `toml` named "t.toml" ("OK" when it parses). */
std::string ParseError(std::string_view toml) {
  Result<Scenario> scenario = ParseScenario(toml, "t.toml");
  return scenario.ok() ? "OK" : scenario.status().message();
}

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
// Parameter table

TEST(ParamTableTest, ListsEveryParameterInTableOrder) {
  std::vector<std::string_view> expected = {"preset",
                                            "workload",
                                            "seed",
                                            "run.time_limit",
                                            "backend",
                                            "nodes",
                                            "adapters_per_node",
                                            "windows_per_adapter",
                                            "fabric.paths",
                                            "fabric.routing",
                                            "fabric.path_skew",
                                            "fabric.path_down",
                                            "fabric.loss",
                                            "fabric.duplicate",
                                            "fabric.reorder",
                                            "fabric.corrupt",
                                            "fabric.faults",
                                            "fabric.hop_latency",
                                            "fabric.link_delay",
                                            "fabric.port_buffer",
                                            "fabric.reorder_delay",
                                            "fabric.cut_through",
                                            "link.bandwidth",
                                            "host.interrupt_latency",
                                            "mmio.latency",
                                            "dma.latency",
                                            "dma.bandwidth",
                                            "host.cache_line",
                                            "host.poll_latency",
                                            "host.interrupt_service",
                                            "host.touched_limit",
                                            "systemc.quantum",
                                            "adapter.cycle",
                                            "adapter.rx_cycles",
                                            "adapter.tx_cycles",
                                            "adapter.rdma_rx_cycles",
                                            "adapter.rdma_tx_cycles",
                                            "adapter.sram_word",
                                            "rtl.vcd",
                                            "adapter.tasks",
                                            "adapter.rx_tasks",
                                            "adapter.tx_tasks",
                                            "adapter.tx_switch_every",
                                            "adapter.channel_buffers",
                                            "adapter.interrupt_handlers",
                                            "rdma.rcxts",
                                            "adapter.dtbs",
                                            "adapter.header_buffers",
                                            "adapter.link_queue_frames",
                                            "window.recv_frames",
                                            "window.send_slots",
                                            "hal.return_batch",
                                            "hal.wait_mode",
                                            "pingpong.sizes",
                                            "pingpong.iterations",
                                            "pingpong.stream_packets",
                                            "stream.packets",
                                            "stream.size",
                                            "exchange.messages",
                                            "exchange.max_size",
                                            "lifecycle.at",
                                            "lifecycle.packets",
                                            "lifecycle.size",
                                            "ulp.rdma",
                                            "ulp.rdma_threshold",
                                            "ulp.rdma_chunk",
                                            "ulp.send_overhead",
                                            "ulp.recv_overhead",
                                            "ulp.max_retransmits",
                                            "host.copy_bandwidth",
                                            "mpi.ranks",
                                            "mpi.scheduler",
                                            "mpi.eager_limit",
                                            "mpi.bcast",
                                            "mpi.mcast_slot_bytes",
                                            "mpi.mcast_min_bytes",
                                            "mpi.chain_radix",
                                            "mpi.reduce",
                                            "mpi.half_rdma_min_bytes",
                                            "mpi.sizes",
                                            "mpi.iterations",
                                            "mpi.bandwidth_messages",
                                            "mpi.window",
                                            "mpi.zero_copy",
                                            "mpi.pingpong_pairs",
                                            "mpi.pingpong_compute",
                                            "mpi.collectives",
                                            "mpi.alltoall_messages",
                                            "mpi.alltoall_max_size",
                                            "mpi.compute",
                                            "mpi.compute_scale",
                                            "rdma.op",
                                            "rdma.sizes",
                                            "rdma.iterations",
                                            "rdma.page",
                                            "dlm.transfer",
                                            "dlm.blocks",
                                            "dlm.block_size",
                                            "dlm.requests",
                                            "dlm.slots",
                                            "dlm.timeout",
                                            "dlm.max_tries",
                                            "port.eal",
                                            "port.verbs",
                                            "port.mode",
                                            "port.messages",
                                            "port.size",
                                            "port.warmup",
                                            "port.max_size",
                                            "port.port_id",
                                            "port.adapter_lcore",
                                            "port.timeout",
                                            "port.gid_index",
                                            "port.qkey"};
  EXPECT_EQ(ParamValues::Names(), expected);
  ASSERT_EQ(AllParams().size(), expected.size());
  EXPECT_EQ(FindParam("out"), nullptr);
  EXPECT_EQ(FindParam("fabric"), nullptr);
  ASSERT_NE(FindParam("fabric.loss"), nullptr);
  EXPECT_EQ(FindParam("fabric.loss")->type, ParamType::kProbability);
}

TEST(ParamTableTest, EveryRowIsComplete) {
  for (const ParamSpec& spec : AllParams()) {
    SCOPED_TRACE(spec.name);
    EXPECT_FALSE(spec.description.empty());
    // Only a string may default to empty (rtl.vcd: no waveforms); the docs show it as "".
    if (spec.type != ParamType::kString) {
      EXPECT_FALSE(spec.default_value.empty());
    }
    EXPECT_NE(ParamTypeName(spec.type), "?");
    if (spec.type == ParamType::kEnum) {
      EXPECT_FALSE(spec.choices.empty());
    }
  }
}

TEST(ParamTableTest, EveryDefaultParsesFromItsText) {
  ParamValues defaults = ParamValues::Defaults();
  for (const ParamSpec& spec : AllParams()) {
    ParamValues values = ParamValues::Defaults();
    Status status = values.SetFromText(spec.name, spec.default_value);
    EXPECT_TRUE(status.ok()) << spec.name << ": " << status.message();
    EXPECT_EQ(values, defaults) << spec.name;
  }
}

TEST(ParamTableTest, DefaultsHaveTheDocumentedValues) {
  ParamValues p = ParamValues::Defaults();
  EXPECT_EQ(p.Int("seed"), 1);
  EXPECT_EQ(p.String("backend"), "systemc");
  EXPECT_EQ(p.String("preset"), "hps");
  EXPECT_EQ(p.Int("nodes"), 2);
  EXPECT_EQ(p.Int("adapters_per_node"), 1);
  EXPECT_EQ(p.Int("windows_per_adapter"), 1);
  EXPECT_EQ(p.Int("fabric.paths"), 4);
  EXPECT_EQ(p.Probability("fabric.loss"), 0.0);
  EXPECT_EQ(p.Probability("fabric.duplicate"), 0.0);
  EXPECT_EQ(p.Probability("fabric.reorder"), 0.0);
  EXPECT_EQ(p.Probability("fabric.corrupt"), 0.0);
  EXPECT_EQ(p.DurationPs("fabric.hop_latency"), 300'000);
  EXPECT_EQ(p.DurationPs("fabric.reorder_delay"), 2'000'000);
  EXPECT_EQ(p.RateBytesPerSec("link.bandwidth"), 2e9);
  EXPECT_EQ(p.Int("host.cache_line"), 128);
  EXPECT_EQ(p.DurationPs("host.poll_latency"), 50'000);
  EXPECT_EQ(p.DurationPs("host.interrupt_latency"), 2'000'000);
  EXPECT_EQ(p.DurationPs("mmio.latency"), 150'000);
  EXPECT_EQ(p.DurationPs("dma.latency"), 400'000);
  EXPECT_EQ(p.RateBytesPerSec("dma.bandwidth"), 4e9);
  EXPECT_EQ(p.Int("adapter.rx_tasks"), 4);
  EXPECT_EQ(p.Int("adapter.tx_tasks"), 4);
  EXPECT_EQ(p.Int("adapter.tx_switch_every"), 1);
  EXPECT_EQ(p.Int("window.recv_frames"), 256);
  EXPECT_EQ(p.Int("window.send_slots"), 64);
  EXPECT_EQ(p.Int("hal.return_batch"), 16);
  EXPECT_EQ(p.String("workload"), "pingpong_sweep");
  EXPECT_EQ(p.IntList("pingpong.sizes"), (std::vector<int64_t>{0, 16, 64, 256, 1024, 2032}));
  EXPECT_EQ(p.Int("pingpong.iterations"), 200);
  EXPECT_EQ(p.Int("pingpong.stream_packets"), 2000);
  EXPECT_EQ(p.Int("stream.packets"), 100000);
  EXPECT_EQ(p.Int("stream.size"), 1024);
  EXPECT_EQ(p.Int("exchange.messages"), 20000);
  EXPECT_EQ(p.Int("exchange.max_size"), -1);
}

TEST(ParamTableTest, ToTextIsCanonical) {
  ParamValues p = ParamValues::Defaults();
  EXPECT_EQ(p.ToText("seed"), "1");
  EXPECT_EQ(p.ToText("backend"), "systemc");
  EXPECT_EQ(p.ToText("fabric.loss"), "0");
  EXPECT_EQ(p.ToText("fabric.hop_latency"), "300ns");
  EXPECT_EQ(p.ToText("fabric.reorder_delay"), "2us");
  EXPECT_EQ(p.ToText("link.bandwidth"), "2GB/s");
  EXPECT_EQ(p.ToText("pingpong.sizes"), "[0, 16, 64, 256, 1024, 2032]");
  EXPECT_EQ(p.ToText("exchange.max_size"), "-1");
}

TEST(ParamTableTest, SetFromTextAcceptsEveryForm) {
  ParamValues p = ParamValues::Defaults();
  EXPECT_TRUE(p.SetFromText("nodes", " 16 ").ok());
  EXPECT_EQ(p.Int("nodes"), 16);
  EXPECT_TRUE(p.SetFromText("fabric.loss", "0.25").ok());
  EXPECT_EQ(p.Probability("fabric.loss"), 0.25);
  EXPECT_TRUE(p.SetFromText("fabric.corrupt", "1").ok());
  EXPECT_EQ(p.Probability("fabric.corrupt"), 1.0);
  EXPECT_TRUE(p.SetFromText("fabric.hop_latency", "4.3us").ok());
  EXPECT_EQ(p.DurationPs("fabric.hop_latency"), 4'300'000);
  EXPECT_TRUE(p.SetFromText("link.bandwidth", "12.5Gb/s").ok());
  EXPECT_EQ(p.RateBytesPerSec("link.bandwidth"), 1.5625e9);
  EXPECT_TRUE(p.SetFromText("host.cache_line", "64").ok());
  EXPECT_EQ(p.Int("host.cache_line"), 64);
  EXPECT_TRUE(p.SetFromText("backend", "systemc").ok());
  EXPECT_EQ(p.String("backend"), "systemc");
  EXPECT_TRUE(p.SetFromText("pingpong.sizes", "[8]").ok());
  EXPECT_EQ(p.IntList("pingpong.sizes"), (std::vector<int64_t>{8}));
  EXPECT_TRUE(p.SetFromText("pingpong.sizes", "1,2, 3").ok());
  EXPECT_EQ(p.IntList("pingpong.sizes"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_TRUE(p.SetFromText("exchange.max_size", "-1").ok());
  EXPECT_TRUE(p.SetFromText("seed", "9223372036854775807").ok());
}

TEST(ParamTableTest, SetFromTextRejectsOutOfRangeValues) {
  EXPECT_EQ(SetError("nodes", "0"), "nodes must be in [1, 4096], got 0");
  EXPECT_EQ(SetError("nodes", "4097"), "nodes must be in [1, 4096], got 4097");
  EXPECT_EQ(SetError("adapter.rx_tasks", "-3"), "adapter.rx_tasks must be in [1, 64], got -3");
  EXPECT_EQ(SetError("seed", "-1"), "seed must be >= 0, got -1");
  EXPECT_EQ(SetError("stream.packets", "0"), "stream.packets must be in [1, 1000000000], got 0");
  EXPECT_EQ(SetError("exchange.max_size", "-2"),
            "exchange.max_size must be in [-1, 65535], got -2");
  EXPECT_EQ(SetError("host.cache_line", "96"), "host.cache_line must be 64 or 128, got 96");
  EXPECT_EQ(SetError("fabric.loss", "2"), "fabric.loss must be in [0, 1], got 2");
  EXPECT_EQ(SetError("fabric.loss", "-0.5"), "fabric.loss must be in [0, 1], got -0.5");
  EXPECT_EQ(SetError("fabric.loss", "nan"), "fabric.loss must be in [0, 1], got nan");
  EXPECT_EQ(SetError("link.bandwidth", "0GB/s"), "link.bandwidth must be at least 1B/s, got 0B/s");
  EXPECT_EQ(SetError("pingpong.sizes", "[0, 70000]"),
            "pingpong.sizes[1] must be in [0, 65535], got 70000");
  EXPECT_EQ(SetError("pingpong.sizes", "[]"), "pingpong.sizes must not be empty");
}

TEST(ParamTableTest, RatesBelowOneBytePerSecondAreRejected) {
  // Below 1 B/s a frame's wire time outgrows the duration limit; near zero it became infinite
  // and the timing models ran such a link as infinitely fast.
  EXPECT_EQ(SetError("link.bandwidth", "0.5B/s"),
            "link.bandwidth must be at least 1B/s, got 0.5B/s");
  EXPECT_EQ(SetError("dma.bandwidth", "7b/s"), "dma.bandwidth must be at least 1B/s, got 0.875B/s");
  EXPECT_EQ(SetError("dma.bandwidth", "1e-300B/s"),
            "dma.bandwidth must be at least 1B/s, got 1e-300B/s");
  EXPECT_EQ(SetError("link.bandwidth", "1B/s"), "");
  EXPECT_EQ(SetError("link.bandwidth", "8b/s"), "");
  EXPECT_EQ(ParseError("[link]\nbandwidth = 0.5\n"),
            "t.toml:2:13: link.bandwidth must be at least 1B/s, got 0.5B/s");
  EXPECT_EQ(ParseError("dma.bandwidth = \"0.1B/s\"\n"),
            "t.toml:1:17: dma.bandwidth must be at least 1B/s, got 0.1B/s");
}

TEST(ParamTableTest, ARateThatCanBeOffTakesZeroAndOtherwiseAtLeastOneBytePerSecond) {
  EXPECT_EQ(SetError("host.copy_bandwidth", "0B/s"), "");
  EXPECT_EQ(SetError("host.copy_bandwidth", "3GB/s"), "");
  EXPECT_EQ(SetError("host.copy_bandwidth", "0.5B/s"),
            "host.copy_bandwidth must be 0 or at least 1B/s, got 0.5B/s");
  EXPECT_EQ(SetError("link.bandwidth", "0B/s"), "link.bandwidth must be at least 1B/s, got 0B/s");
}

TEST(ParamTableTest, DurationsAreAtMostAnHour) {
  EXPECT_EQ(kMaxDurationPs, 3'600'000'000'000'000);
  EXPECT_EQ(SetError("fabric.hop_latency", "3600s"), "");
  EXPECT_EQ(SetError("fabric.hop_latency", "3600.000000000001s"),
            "fabric.hop_latency must be at most 3600s, got 3600.000000000001s");
  EXPECT_EQ(SetError("lifecycle.at", "9000000s"),
            "lifecycle.at must be at most 3600s, got 9000000s");
  // The largest duration that parses at all (about 106 days) is refused too.
  EXPECT_EQ(SetError("ulp.send_overhead", "9223372036854775807ps"),
            "ulp.send_overhead must be at most 3600s, got 9223372.036854775807s");
  // A TOML number is nanoseconds: 3.6e12 ns is the hour, one more is out.
  EXPECT_EQ(ParseError("lifecycle.at = 3600000000000\n"), "OK");
  EXPECT_EQ(ParseError("[host]\npoll_latency = 3600000000001\n"),
            "t.toml:2:16: host.poll_latency must be at most 3600s, got 3600.000000001s");
  EXPECT_EQ(SetError("fabric.faults", "path 0: reorder=0.5, reorder_delay=3601s"),
            "fabric.faults: rule 1 ('path 0: reorder=0.5, reorder_delay=3601s'): reorder_delay "
            "must be at most 3600s, got 3601s");
  // Every duration has the bound (port.timeout, wall-clock time, has the range of --timeout-s).
  for (const ParamSpec& spec : AllParams()) {
    if (spec.type != ParamType::kDuration) continue;
    ParamValues p = ParamValues::Defaults();
    const bool wall_clock = spec.name == "port.timeout";
    EXPECT_EQ(p.SetDurationPs(spec.name, kMaxDurationPs).ok(), true) << spec.name;
    EXPECT_EQ(p.SetDurationPs(spec.name, kMaxDurationPs + 1).ok(), wall_clock) << spec.name;
  }
  EXPECT_EQ(SetError("port.timeout", "86400s"), "");
  EXPECT_EQ(SetError("port.timeout", "86401s"),
            "port.timeout must be in [1s, 86400s], got 86401s");
  EXPECT_EQ(SetError("port.timeout", "0.5s"), "port.timeout must be in [1s, 86400s], got 500ms");
}

TEST(ParamTableTest, CountsAndBufferSizesAreBounded) {
  // Counts the workloads keep per-message state for, or number in 32 bits.
  EXPECT_EQ(SetError("exchange.messages", "10000000"), "");
  EXPECT_EQ(SetError("exchange.messages", "10000001"),
            "exchange.messages must be in [1, 10000000], got 10000001");
  EXPECT_EQ(SetError("exchange.messages", "9223372036854775807"),
            "exchange.messages must be in [1, 10000000], got 9223372036854775807");
  EXPECT_EQ(SetError("stream.packets", "1000000001"),
            "stream.packets must be in [1, 1000000000], got 1000000001");
  EXPECT_EQ(SetError("pingpong.stream_packets", "4294967296"),
            "pingpong.stream_packets must be in [1, 1000000000], got 4294967296");
  EXPECT_EQ(SetError("lifecycle.packets", "1073741824"),
            "lifecycle.packets must be in [1, 10000000], got 1073741824");
  EXPECT_EQ(SetError("port.messages", "0"), "port.messages must be in [1, 10000000], got 0");
  EXPECT_EQ(SetError("port.messages", "10000001"),
            "port.messages must be in [1, 10000000], got 10000001");
  EXPECT_EQ(SetError("port.warmup", "1000000001"),
            "port.warmup must be in [0, 1000000000], got 1000000001");
  EXPECT_EQ(SetError("mpi.alltoall_max_size", "256MiB"), "");
  EXPECT_EQ(SetError("mpi.alltoall_max_size", "16TiB"),
            "mpi.alltoall_max_size must be at most 256MiB, got 16TiB");
  EXPECT_EQ(SetError("mpi.alltoall_max_size", "257MiB"),
            "mpi.alltoall_max_size must be at most 256MiB, got 257MiB");
  EXPECT_EQ(ParseError("[exchange]\nmessages = 100000000\n"),
            "t.toml:2:12: exchange.messages must be in [1, 10000000], got 100000000");
  // Every integer parameter has an upper bound but the seed (any 63-bit value).
  for (const ParamSpec& spec : AllParams()) {
    if (spec.type == ParamType::kInt && spec.name != "seed") {
      EXPECT_LT(spec.max, std::numeric_limits<int64_t>::max()) << spec.name;
    }
  }
}

TEST(ParamTableTest, SetFromTextRejectsWrongTypes) {
  EXPECT_EQ(SetError("nodes", "two"), "nodes: expected an integer, got 'two'");
  EXPECT_EQ(SetError("nodes", "2.5"), "nodes: expected an integer, got '2.5'");
  EXPECT_EQ(SetError("nodes", ""), "nodes: expected an integer, got ''");
  EXPECT_EQ(SetError("nodes", "99999999999999999999"),
            "nodes: expected an integer, got '99999999999999999999'");
  EXPECT_EQ(SetError("fabric.loss", "lots"), "fabric.loss: expected a number, got 'lots'");
  EXPECT_EQ(SetError("backend", "foo"), "backend: 'foo' is not one of func, systemc, rtl, dpdk");
  EXPECT_EQ(SetError("fabric.hop_latency", "300"),
            "fabric.hop_latency: bad duration '300': missing unit (expected ps, ns, us, ms or s)");
  EXPECT_EQ(SetError("link.bandwidth", "2GB"),
            "link.bandwidth: bad rate '2GB': unknown unit 'GB' (expected B/s, KB/s, MB/s, GB/s, "
            "TB/s, KiB/s, MiB/s, GiB/s or TiB/s (b for bits))");
  EXPECT_EQ(SetError("pingpong.sizes", "[1,,2]"),
            "pingpong.sizes: expected a list of integers like [0, 16, 64], got '[1,,2]'");
  EXPECT_EQ(SetError("pingpong.sizes", "[1, 2,]"),
            "pingpong.sizes: expected a list of integers like [0, 16, 64], got '[1, 2,]'");
  EXPECT_EQ(SetError("fabric.los", "0.1"), "unknown key 'fabric.los'; did you mean 'fabric.loss'?");
  EXPECT_EQ(SetError("bogus", "1"), "unknown key 'bogus'");
}

TEST(ParamTableTest, FailedSetLeavesTheValueUnchanged) {
  ParamValues p = ParamValues::Defaults();
  EXPECT_FALSE(p.SetFromText("nodes", "0").ok());
  EXPECT_FALSE(p.SetFromText("pingpong.sizes", "[1, 70000]").ok());
  EXPECT_FALSE(p.SetFromText("backend", "foo").ok());
  EXPECT_EQ(p, ParamValues::Defaults());
}

TEST(ParamTableTest, ToTextRoundTripsThroughSetFromText) {
  ParamValues changed = ParamValues::Defaults();
  for (const auto& [name, text] :
       std::vector<std::pair<std::string, std::string>>{{"seed", "123456789"},
                                                        {"backend", "rtl"},
                                                        {"nodes", "4096"},
                                                        {"fabric.loss", "0.1"},
                                                        {"fabric.reorder", "1e-5"},
                                                        {"fabric.hop_latency", "1.000001us"},
                                                        {"fabric.reorder_delay", "7ps"},
                                                        {"link.bandwidth", "12.5Gb/s"},
                                                        {"dma.bandwidth", "1GiB/s"},
                                                        {"host.cache_line", "64"},
                                                        {"pingpong.sizes", "[5, 0, 65535]"},
                                                        {"exchange.max_size", "-1"}}) {
    ASSERT_TRUE(changed.SetFromText(name, text).ok()) << name;
  }
  ParamValues restored = ParamValues::Defaults();
  for (std::string_view name : ParamValues::Names()) {
    Status status = restored.SetFromText(name, changed.ToText(name));
    EXPECT_TRUE(status.ok()) << name << ": " << status.message();
    EXPECT_EQ(restored.ToText(name), changed.ToText(name));
  }
  EXPECT_EQ(restored, changed);
  EXPECT_EQ(changed.ToText("fabric.reorder"), "1e-05");
  EXPECT_EQ(changed.ToText("link.bandwidth"), "1.5625GB/s");
  EXPECT_EQ(changed.ToText("dma.bandwidth"), "1GiB/s");
}

TEST(ParamTableDeathTest, GettersAbortOnUnknownNameOrWrongType) {
  ParamValues p = ParamValues::Defaults();
  EXPECT_DEATH(p.Int("nope"), "unknown parameter 'nope'");
  EXPECT_DEATH(p.Int("backend"), "parameter 'backend' has type enum, not int");
  EXPECT_DEATH(p.DurationPs("link.bandwidth"), "has type rate, not duration");
  EXPECT_DEATH((void)p.SetInt("fabric.loss", 1), "has type probability, not int");
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
            "t.toml:1:11: backend: 'foo' is not one of func, systemc, rtl, dpdk");
  EXPECT_EQ(
      ParseError("workload = \"Stream\"\n"),
      "t.toml:1:12: workload: 'Stream' is not one of pingpong_sweep, stream, random_exchange, "
      "rdma_sweep, dlm_blocks, close_under_load, recovery_under_load, mpi_pingpong, mpi_collectives, "
      "mpi_alltoall, mpi_program");
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
            "--set backend=verilog: backend: 'verilog' is not one of func, systemc, rtl, dpdk");
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
            "random_exchange, rdma_sweep, dlm_blocks, close_under_load, recovery_under_load, mpi_pingpong, "
            "mpi_collectives, mpi_alltoall, mpi_program");
  EXPECT_EQ(ApplySetFlag(scenario, std::string_view("nodes=2\0", 8)).message(),
            "--set nodes=2\\x00: nodes: expected an integer, got '2\\x00'");
  EXPECT_EQ(ApplySetFlag(scenario, std::string_view("no\0des=2", 8)).message(),
            "--set no\\x00des=2: unknown key 'no\\x00des'; did you mean 'nodes'?");
  EXPECT_EQ(ParseError("workload = \"a\\u0000b\"\n"),
            "t.toml:1:12: workload: 'a\\x00b' is not one of pingpong_sweep, stream, "
            "random_exchange, rdma_sweep, dlm_blocks, close_under_load, recovery_under_load, mpi_pingpong, "
            "mpi_collectives, mpi_alltoall, mpi_program");
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
  Result<Scenario> s = ParseScenario(
      "[dma]\nlatency = \"7us\"\n[top]\n", "p.toml");
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
