// SPDX-License-Identifier: Apache-2.0
// Tests for sim/config's parameter table: every parameter in order, its defaults, ranges and
// types, the canonical text of each value, and the exact error of every bad --set value.
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

/** The error SetFromText gives for `name`=`text` on default values ("" when it succeeds). */
std::string SetError(std::string_view name, std::string_view text) {
  ParamValues values = ParamValues::Defaults();
  Status status = values.SetFromText(name, text);
  return status.message();
}

// ---------------------------------------------------------------------------------------------
// Parameter table

TEST(ParamTableTest, ListsEveryParameterInTableOrder) {
  std::vector<std::string_view> expected = {"preset",
                                            "workload",
                                            "seed",
                                            "run.time_limit",
                                            "run.partition",
                                            "run.threads",
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
                                            "adapter.work_cycles",
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
                                            "ulp.eager_rdma",
                                            "ulp.eager_small_slot",
                                            "ulp.eager_large_slot",
                                            "ulp.eager_slots",
                                            "ulp.eager_large_slots",
                                            "ulp.eager_release_small",
                                            "ulp.eager_shrink_idle",
                                            "ulp.eager_redrives",
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
                                            "mpi.internode",
                                            "mpi.intranode",
                                            "host.cache_line_transfer",
                                            "postbox.piece_bytes",
                                            "postbox.pool_blocks",
                                            "postbox.slots_per_receiver",
                                            "postbox.inline_bytes",
                                            "postbox.receiver_quota_blocks",
                                            "pushpull.mode",
                                            "pushpull.btp1_bytes",
                                            "pushpull.btp2_bytes",
                                            "pushpull.push_all_chunk_bytes",
                                            "pushpull.pushed_slots",
                                            "pushpull.pull_round_bytes",
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
                                            "mpi.alltoall_large_pairs",
                                            "mpi.alltoall_small_size",
                                            "mpi.alltoall_rounds",
                                            "mpi.alltoall_window",
                                            "mpi.compute",
                                            "mpi.compute_scale",
                                            "mpi.wall_limit",
                                            "mpi.cpu",
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
                                            "ip.datagrams",
                                            "ip.max_size",
                                            "ip.broadcast_percent",
                                            "ip.reassembly_timeout",
                                            "ip.rdma_threshold",
                                            "ip.rdma_slots",
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
  // Every duration has the bound (port.timeout, wall-clock time, has a range of its own).
  for (const ParamSpec& spec : AllParams()) {
    if (spec.type != ParamType::kDuration) continue;
    ParamValues p = ParamValues::Defaults();
    const bool wall_clock = spec.name == "port.timeout";
    EXPECT_EQ(p.SetDurationPs(spec.name, kMaxDurationPs).ok(), true) << spec.name;
    EXPECT_EQ(p.SetDurationPs(spec.name, kMaxDurationPs + 1).ok(), wall_clock) << spec.name;
  }
  EXPECT_EQ(SetError("port.timeout", "86400s"), "");
  EXPECT_EQ(SetError("port.timeout", "86401s"), "port.timeout must be in [1s, 86400s], got 86401s");
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
  EXPECT_EQ(SetError("backend", "foo"), "backend: 'foo' is not one of func, systemc, rtl");
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

}  // namespace
}  // namespace nicsim::sim
