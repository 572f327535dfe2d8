// SPDX-License-Identifier: Apache-2.0
// The nicsim binary's contract on bad input, run as a subprocess: files, flags and values it
// cannot honour exit 2 with one exact message naming where the value was set.
#include "tests/cli/cli_fixture.h"

#include <string>
#include <vector>

#include "tests/support/backends.h"

namespace nicsim::cli_test {
namespace {

TEST_F(CliTest, TomlSyntaxErrorNamesPathLineAndColumn) {
  const std::string path = WriteScenario("syntax.toml", "nodes = 2\nseed = = 3\n");
  const fs::path out_dir = dir_ / "bad_out";
  const Outcome o = Nicsim({"run", path, "--out", out_dir.string()});
  EXPECT_EQ(o.exit_code, 2);
  const std::string prefix = "nicsim: " + path + ":2:8: ";
  ASSERT_EQ(o.err.substr(0, prefix.size()), prefix) << o.err;
  // One line, with the parser's description after the position.
  EXPECT_GT(o.err.size(), prefix.size() + 1);
  EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_FALSE(fs::exists(out_dir / "stats.json"));
}

TEST_F(CliTest, UnknownKeyIsReportedWithTheNearestName) {
  const std::string path = WriteScenario("unknown.toml", "nodes = 2\n[fabric]\nlos = 0.1\n");
  ExpectBadRun({path}, "nicsim: " + path +
                           ":3:1: unknown key 'fabric.los'; did you mean "
                           "'fabric.loss'?\n");
}

TEST_F(CliTest, PortScenarioErrorsNameTheFileLineAndKey) {
  // `nicsim port --scenario` reads port.* through the scenario loader: same messages, exit 2,
  // and no port is started.
  const std::string mode =
      WriteScenario("port_mode.toml", "seed = 3\n[port]\nmode = \"sideways\"\n");
  Outcome o = Nicsim({"port", "--scenario", mode, "--node", "1", "--peer", "2"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err,
            "nicsim: " + mode +
                ":3:8: port.mode: 'sideways' is not one of exchange, pingpong, transport, ip\n");
  EXPECT_EQ(o.out, "");
  const std::string key = WriteScenario("port_key.toml", "[port]\neall = \"-l 0\"\n");
  o = Nicsim({"port", "--scenario", key, "--node", "1", "--peer", "2"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err, "nicsim: " + key + ":2:1: unknown key 'port.eall'; did you mean 'port.eal'?\n");
  const std::string both =
      WriteScenario("port_both.toml", "[port]\neal = \"-l 0\"\nverbs = \"mlx5_0\"\n");
  o = Nicsim({"port", "--scenario", both, "--node", "1", "--peer", "2"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err,
            "nicsim port: --eal or --verbs (port.eal or port.verbs): give exactly one (a DPDK "
            "port or a verbs UD QP)\n");
  const std::string missing = (dir_ / "absent.toml").string();
  o = Nicsim({"port", "--scenario", missing, "--node", "1", "--peer", "2"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err, "nicsim: " + missing + ": cannot open file: No such file or directory\n");
}

TEST_F(CliTest, AdapterLcoreErrorsAreBadInput) {
  // Checked before any port starts: exit 2, one line naming the flag.
  Outcome o = Nicsim({"port", "--verbs", "mlx5_0", "--peer-addr", "1:2", "--node", "1", "--peer",
                      "2", "--adapter-lcore", "1"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err, "nicsim port: --adapter-lcore: applies to a DPDK port (--eal)\n");
  const std::string bad = WriteScenario("port_lcore.toml", "[port]\nadapter_lcore = 5000\n");
  o = Nicsim({"port", "--scenario", bad, "--node", "1", "--peer", "2"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find(bad + ":2:17: port.adapter_lcore"), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "");
}

TEST_F(CliTest, ValueOfTheWrongTypeIsRejected) {
  const std::string path = WriteScenario("type.toml", "nodes = \"two\"\n");
  ExpectBadRun({path}, "nicsim: " + path + ":1:9: nodes: expected an integer, got string\n");
}

TEST_F(CliTest, ZeroNodeCountIsRejected) {
  const std::string path = WriteScenario("zero.toml", "nodes = 0\n");
  ExpectBadRun({path}, "nicsim: " + path + ":1:9: nodes must be in [1, 4096], got 0\n");
}

TEST_F(CliTest, NegativeNodeCountIsRejected) {
  const std::string path = WriteScenario("negative.toml", "nodes = -3\n");
  ExpectBadRun({path}, "nicsim: " + path + ":1:9: nodes must be in [1, 4096], got -3\n");
}

TEST_F(CliTest, UnknownEnumValueListsTheChoices) {
  const std::string path = WriteScenario("enum.toml", "backend = \"qemu\"\n");
  ExpectBadRun({path},
               "nicsim: " + path + ":1:11: backend: 'qemu' is not one of func, systemc, rtl\n");
}

TEST_F(CliTest, MissingScenarioFileIsRejected) {
  const std::string path = (dir_ / "missing.toml").string();
  ExpectBadRun({path}, "nicsim: " + path + ": cannot open file: No such file or directory\n");
}

TEST_F(CliTest, SetWithoutEqualsIsRejected) {
  ExpectBadRun({"--set", "nodes"}, "nicsim: --set nodes: expected key=value\n");
}

TEST_F(CliTest, SetWithNonIntegerValueIsRejected) {
  ExpectBadRun({"--set", "nodes=abc"},
               "nicsim: --set nodes=abc: nodes: expected an integer, got 'abc'\n");
}

TEST_F(CliTest, SetWithProbabilityAboveOneIsRejected) {
  ExpectBadRun({"--set", "fabric.loss=2"},
               "nicsim: --set fabric.loss=2: fabric.loss must be in [0, 1], got 2\n");
}

TEST_F(CliTest, ATraceThatCannotBeWrittenFailsTheRun) {
  // /dev/full takes the open and refuses every write.
  ExpectBadRun({"--set", "backend=func", "--trace", "/dev/full"},
               "nicsim: --trace /dev/full: write failed (seed 1)\n");
}

TEST_F(CliTest, MoreRcxtsThanTheHostCanReachAreRejected) {
  // 261,120 rCxts end the pool at the SRAM window's 16 MiB; one more silently stopped the
  // adapter (0 events, every message lost).
  ExpectBadRun({"--set", "rdma.rcxts=261121"},
               "nicsim: --set rdma.rcxts=261121: rdma.rcxts must be in [1, 261120], got 261121\n");
}

TEST_F(CliTest, BadFaultRulesAreRejectedWithTheRuleAndTheLine) {
  ExpectBadRun({"--set", "fabric.faults=path 0: lose=1"},
               "nicsim: --set fabric.faults=path 0: lose=1: fabric.faults: rule 1 ('path 0: "
               "lose=1'): 'lose' is not a fault: expected loss, duplicate, reorder, corrupt or "
               "reorder_delay\n");
  // A rule that parses but names a plane the fabric does not have is found when the run is
  // built; the message still points at the line that wrote it.
  const std::string path = WriteScenario(
      "faults.toml", "workload = \"stream\"\n[fabric]\nfaults = \"link 0/7: loss=1\"\n");
  ExpectBadRun({path}, "nicsim: " + path +
                           ":3:10: fabric.faults: rule 1 ('link 0/7: loss=1'): plane 7 is not in "
                           "[0, fabric.paths) = [0, 4) (seed 1)\n");
}

TEST_F(CliTest, UnknownFlagExitsTwo) {
  ExpectBadRun({"--bogus"},
               "nicsim: The following argument was not expected: --bogus\n"
               "Run 'nicsim --help' for usage.\n");
  const Outcome top = Nicsim({"--bogus"});
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_EQ(top.out, "");
  const std::vector<std::string> lines = Lines(top.err);
  ASSERT_EQ(lines.size(), 2u) << top.err;
  EXPECT_EQ(lines[0], "nicsim: The following argument was not expected: --bogus");
  EXPECT_EQ(lines[1], "Run 'nicsim --help' for usage.");
}

TEST_F(CliTest, BadTraceSelectionsExitTwoNamingTheFlag) {
  const std::string timeline = (dir_ / "t.pftrace").string();
  const std::string pcap = (dir_ / "t.pcapng").string();
  ExpectBadRun({"pingpong", "--timeline", timeline, "--trace-window", "5us"},
               "nicsim: --trace-window: '5us': expected START:END (like 10us:2ms)\n");
  ExpectBadRun({"pingpong", "--pcap", pcap, "--trace-window", "2ms:1ms"},
               "nicsim: --trace-window: '2ms:1ms': END must be after START\n");
  ExpectBadRun({"pingpong", "--trace-adapters", "4-2"},
               "nicsim: --trace-adapters: '4-2': expected an adapter id or a range FIRST-LAST "
               "(ids 0 to 65535), as in 0,3,10-20\n");
  ExpectBadRun({"pingpong", "--sample", "0"},
               "nicsim: --sample: '0': expected a whole number from 1 to 65536 (every Nth "
               "adapter)\n");
  // Checked against the run's adapters once the cluster's size is known.
  ExpectBadRun({"pingpong", "--set", "seed=3", "--timeline", timeline, "--pcap", pcap,
                "--trace-adapters", "0,5"},
               "nicsim: --trace-adapters: adapter 5 is not in this run (2 adapters: 0-1) "
               "(seed 3)\n");
  EXPECT_FALSE(fs::exists(timeline));
  EXPECT_FALSE(fs::exists(pcap));
}

TEST_F(CliTest, MissingCommandIsRejected) {
  const Outcome o = Nicsim({});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err,
            "nicsim: a command is required: run, mpirun, shm-run, tun, port, trace, params, "
            "counters or scenarios\n"
            "Run 'nicsim --help' for usage.\n");
}

TEST_F(CliTest, PingpongSizeAboveTheMaxPayloadIsRejected) {
  // Checked before the cluster is built, so the message says which flag set the size.
  ExpectBadRun({"pingpong", "--set", "pingpong.sizes=[5000]"},
               "nicsim: --set pingpong.sizes=[5000]: pingpong.sizes: 5000 is outside [0, 2032], "
               "the largest single-packet payload for host.cache_line=128 (seed 1)\n");
}

TEST_F(CliTest, TasksAboveAdapterTasksNameTheirOwnParameter) {
  // adapter.tx_tasks too large used to blame adapter.rx_tasks (and so point at its line).
  ExpectBadRun({"--set", "adapter.tx_tasks=20"},
               "nicsim: --set adapter.tx_tasks=20: adapter.tx_tasks must be at most "
               "adapter.tasks (16), got 20 (seed 1)\n");
  ExpectBadRun({"--set", "adapter.rx_tasks=17"},
               "nicsim: --set adapter.rx_tasks=17: adapter.rx_tasks must be at most "
               "adapter.tasks (16), got 17 (seed 1)\n");
  const std::string path =
      WriteScenario("tasks.toml", "[adapter]\ntasks = 8\nrx_tasks = 4\ntx_tasks = 9\n");
  ExpectBadRun({path}, "nicsim: " + path +
                           ":4:12: adapter.tx_tasks must be at most adapter.tasks (8), got 9 "
                           "(seed 1)\n");
}

TEST_F(CliTest, WorkloadLimitsAreCheckedBeforeTheRunAndSayWhereTheValueWasSet) {
  ExpectBadRun({"--set", "workload=random_exchange", "--set", "exchange.max_size=65535"},
               "nicsim: --set exchange.max_size=65535: exchange.max_size: 65535 exceeds the "
               "largest single-packet payload 2032 (seed 1)\n");
  ExpectBadRun(
      {"--set", "workload=stream", "--set", "host.cache_line=64", "--set", "stream.size=2000"},
      "nicsim: --set stream.size=2000: stream.size: 2000 exceeds the largest "
      "single-packet payload 1008 (seed 1)\n");
  const std::string lifecycle = WriteScenario(
      "lifecycle.toml", "workload = \"close_under_load\"\n[lifecycle]\nsize = 4000\n");
  ExpectBadRun({lifecycle}, "nicsim: " + lifecycle +
                                ":3:8: lifecycle.size: 4000 exceeds the largest single-packet "
                                "payload 2032 (seed 1)\n");
  const std::string ranks =
      WriteScenario("ranks.toml", "workload = \"mpi_pingpong\"\n[mpi]\nranks = 1\n");
  ExpectBadRun({ranks}, "nicsim: " + ranks +
                            ":3:9: mpi.ranks: mpi_pingpong needs at least 2 ranks, got 1 "
                            "(seed 1)\n");
  ExpectBadRun({"--set", "workload=mpi_alltoall", "--set", "mpi.ranks=1"},
               "nicsim: --set mpi.ranks=1: mpi.ranks: mpi_alltoall needs at least 2 ranks, got 1 "
               "(seed 1)\n");
  const std::string quota =
      WriteScenario("quota.toml",
                    "workload = \"mpi_pingpong\"\n[mpi]\nintranode = \"postbox\"\n[postbox]\n"
                    "pool_blocks = 4\nreceiver_quota_blocks = 5\n");
  ExpectBadRun({quota}, "nicsim: " + quota +
                            ":6:25: postbox.receiver_quota_blocks: must be in [0, "
                            "postbox.pool_blocks=4] (0: a share of the pool), is 5 (seed 1)\n");
  // Each size is in range alone; together they leave push-pull nothing to push.
  const std::string no_push =
      WriteScenario("no_push.toml",
                    "workload = \"mpi_pingpong\"\n[mpi]\nintranode = \"pushpull\"\n[pushpull]\n"
                    "btp1_bytes = 0\nbtp2_bytes = 0\n");
  ExpectBadRun({no_push}, "nicsim: " + no_push +
                              ":6:14: pushpull.btp2_bytes: is 0 and so is pushpull.btp1_bytes: "
                              "push-pull needs bytes to push (that is push-zero mode) (seed 1)\n");
  const std::string one_node = WriteScenario("one_node.toml", "nodes = 1\nworkload = \"stream\"\n");
  ExpectBadRun({one_node}, "nicsim: " + one_node +
                               ":1:9: nodes: stream needs two windows, the cluster has one: "
                               "raise nodes, adapters_per_node or windows_per_adapter (seed 1)\n");
  // All-to-all traffic is planned and buffered at once: bounded in messages and in bytes.
  ExpectBadRun({"--set", "workload=mpi_alltoall", "--set", "mpi.alltoall_max_size=256MiB"},
               "nicsim: --set mpi.alltoall_max_size=256MiB: mpi.alltoall_max_size: mpi.ranks x "
               "mpi.alltoall_messages x mpi.alltoall_max_size = 2 x 200 x 268435456 bytes = "
               "102400 MiB of message buffers, more than 8192 MiB (seed 1)\n");
  ExpectBadRun({"--set", "workload=mpi_alltoall", "--set", "nodes=8", "--set", "mpi.ranks=64",
                "--set", "mpi.alltoall_messages=200000"},
               "nicsim: --set mpi.alltoall_messages=200000: mpi.alltoall_messages: mpi.ranks x "
               "mpi.alltoall_messages = 64 x 200000 = 12800000 messages, more than 10000000 "
               "(seed 1)\n");
  // Regression (wrong parameter named): a complete exchange buffers its steps in flight; the
  // message names the parameters that decide it, not mpi.alltoall_messages (unused there).
  ExpectBadRun({"--set", "workload=mpi_alltoall", "--set", "nodes=8", "--set", "mpi.ranks=64",
                "--set", "mpi.alltoall_large_pairs=1", "--set", "mpi.alltoall_max_size=256MiB"},
               "nicsim: --set mpi.alltoall_max_size=256MiB: mpi.alltoall_max_size: mpi.ranks x "
               "steps in flight (mpi.alltoall_window, 0: mpi.ranks - 1) x mean message "
               "(mpi.alltoall_large_pairs x mpi.alltoall_max_size + mpi.alltoall_small_size) = "
               "64 x 63 x 268435712 bytes = 1032192 MiB of message buffers, more than 8192 MiB "
               "(seed 1)\n");
  ExpectBadRun({"--set", "mpi.collectives=allreduce,scan"},
               "nicsim: --set mpi.collectives=allreduce,scan: mpi.collectives: 'scan' is not a "
               "collective (barrier, bcast, allreduce, allgather or alltoall)\n");
  ExpectBadRun({"--set", "workload=mpi_collectives", "--set", "mpi.ranks=300"},
               "nicsim: --set mpi.ranks=300: mpi.ranks: 300 ranks on 2 nodes need 150 windows "
               "per adapter, more than the 128 an adapter has: raise nodes or lower mpi.ranks "
               "(seed 1)\n");
}

TEST_F(CliTest, AnEmbeddedNulInAValueShowsInTheMessage) {
  // TOML's \u0000 puts a NUL in the string; the message used to end there ("workload: 'a").
  const std::string path = WriteScenario("nul.toml", "workload = \"a\\u0000b\"\n");
  ExpectBadRun({path},
               "nicsim: " + path +
                   ":1:12: workload: 'a\\x00b' is not one of pingpong_sweep, stream, "
                   "random_exchange, rdma_sweep, dlm_blocks, ip_exchange, "
                   "close_under_load, recovery_under_load, "
                   "mpi_pingpong, mpi_collectives, mpi_alltoall, mpi_one_sided, mpi_program\n");
}

TEST_F(CliTest, AScenarioFileAboveFourMebibytesIsRefusedUnread) {
  // Bad at line 1, then 5 MB of unknown keys: this took half a minute to reject.
  std::string text = "nodes = 0\n";
  for (int i = 0; text.size() < 5'000'000; ++i) text += "key_" + std::to_string(i) + " = 1\n";
  const std::string path = WriteScenario("huge.toml", text);
  ExpectBadRun({path}, "nicsim: " + path + ": too large for a scenario file (more than 4MiB)\n");
}

TEST_F(CliTest, PortFlagsOutOfRangeAreBadInputBeforeAnyPortStarts) {
  // Each flag is its port.* parameter: the same ranges, the message names the flag first.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--timeout", "1e300s"}, "--timeout: port.timeout: bad duration '1e300s': too large"},
      {{"--timeout", "0.5s"}, "--timeout: port.timeout must be in [1s, 86400s], got 500ms"},
      {{"--max-size", "-5"}, "--max-size: port.max_size must be in [-1, 1073741824], got -5"},
      {{"--messages", "0"}, "--messages: port.messages must be in [1, 10000000], got 0"},
      {{"--messages", "4294967294"},
       "--messages: port.messages must be in [1, 10000000], got 4294967294"},
      {{"--warmup", "2000000000"},
       "--warmup: port.warmup must be in [0, 1000000000], got 2000000000"},
      {{"--mode", "ping"},
       "--mode: port.mode: 'ping' is not one of exchange, pingpong, transport, ip"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"port",   "--eal", "-l 0 --no-pci", "--node", "1",
                                     "--peer", "2"};
    args.insert(args.end(), flags.begin(), flags.end());
    const Outcome o = Nicsim(args);
    EXPECT_EQ(o.exit_code, 2) << flags[0];
    EXPECT_EQ(o.err, "nicsim: " + message + "\n");
    EXPECT_EQ(o.out, "");
  }
  // Their scenario twins have the same ranges, reported where they are written.
  const std::string messages = WriteScenario("port_messages.toml", "[port]\nmessages = 0\n");
  Outcome o = Nicsim({"port", "--scenario", messages, "--node", "1", "--peer", "2"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err,
            "nicsim: " + messages + ":2:12: port.messages must be in [1, 10000000], got 0\n");
  const std::string timeout = WriteScenario("port_timeout.toml", "[port]\ntimeout = \"0.5s\"\n");
  o = Nicsim({"port", "--scenario", timeout, "--node", "1", "--peer", "2"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err,
            "nicsim: " + timeout + ":2:11: port.timeout must be in [1s, 86400s], got 500ms\n");
}

}  // namespace
}  // namespace nicsim::cli_test
