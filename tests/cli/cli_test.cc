// SPDX-License-Identifier: Apache-2.0
// The nicsim binary's contract, run as a subprocess: bad input exits 2 with one exact message,
// good runs write a complete stats.json, listings name every key, and a seed fixes the run.
#include <gtest/gtest.h>

#include "tests/support/backends.h"

#include "tests/support/process.h"
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef NICSIM_BINARY
#error "NICSIM_BINARY must name the nicsim executable"
#endif

namespace nicsim {
namespace {

namespace fs = std::filesystem;

/** What one nicsim invocation did. */
using Outcome = nicsim::testing::CommandResult;
using nicsim::testing::ReadFile;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string FirstWord(const std::string& line) { return line.substr(0, line.find(' ')); }

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.empty()) << std::strerror(errno); }

  /** Writes a scenario file into the temp dir and returns its path. */
  std::string WriteScenario(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  Outcome Nicsim(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {NICSIM_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return nicsim::testing::RunCommand(argv, dir_);
  }

  /**
   * Runs `nicsim run ARGS --out DIR` and expects bad input: exit 2, exactly `stderr_text` on
   * stderr, nothing on stdout and no stats.json.
   */
  void ExpectBadRun(std::vector<std::string> args, const std::string& stderr_text) {
    const fs::path out_dir = dir_ / "bad_out";
    args.insert(args.begin(), "run");
    args.push_back("--out");
    args.push_back(out_dir.string());
    const Outcome o = Nicsim(args);
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_EQ(o.err, stderr_text);
    EXPECT_EQ(o.out, "");
    EXPECT_FALSE(fs::exists(out_dir / "stats.json"));
  }

  /** Runs a scenario quietly into `out_dir` and returns its parsed stats.json. */
  nlohmann::json RunForStats(std::vector<std::string> args, const std::string& out_dir) {
    args.insert(args.begin(), "run");
    args.push_back("--quiet");
    args.push_back("--out");
    args.push_back((dir_ / out_dir).string());
    const Outcome o = Nicsim(args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(o.out, "");
    return nlohmann::json::parse(ReadFile(dir_ / out_dir / "stats.json"), nullptr, false);
  }

  nicsim::testing::ScratchDir scratch_{"nicsim_cli"};
  const fs::path dir_ = scratch_.path();
};

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
  ExpectBadRun({path}, "nicsim: " + path +
                           ":1:11: backend: 'qemu' is not one of func, systemc, rtl, dpdk\n");
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
  ExpectBadRun({path}, "nicsim: " + path +
                           ":1:12: workload: 'a\\x00b' is not one of pingpong_sweep, stream, "
                           "random_exchange, rdma_sweep, dlm_blocks, ip_exchange, "
                           "close_under_load, recovery_under_load, "
                           "mpi_pingpong, mpi_collectives, mpi_alltoall, mpi_program\n");
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
}  // namespace nicsim
