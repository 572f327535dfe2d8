// SPDX-License-Identifier: Apache-2.0
// `nicsim shm-run` with real processes: byte-checked random traffic passes, a killed rank fails
// the run without a hang while its peers get EPEERDEAD, signals and timeouts clean up.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "base/child_process.h"
#include "tests/support/process.h"

#ifndef NICSIM_BINARY
#error "NICSIM_BINARY must name the nicsim executable"
#endif
#ifndef NICSIM_SHM_TRAFFIC
#error "NICSIM_SHM_TRAFFIC must name the shm_traffic program"
#endif

namespace nicsim::testing {
namespace {

/** A run prefix of this test process's own, so parallel tests and runs do not meet. */
std::string Prefix(const std::string& name) {
  return "nicsim-test-" + std::to_string(static_cast<long>(getpid())) + "-" + name;
}

/** Objects in /dev/shm of run `prefix`. */
std::vector<std::string> ShmObjects(const std::string& prefix) {
  std::vector<std::string> found;
  if (DIR* dir = opendir("/dev/shm")) {
    while (dirent* d = readdir(dir)) {
      const std::string name = d->d_name;
      if (name.rfind(prefix + "-", 0) == 0) found.push_back(name);
    }
    closedir(dir);
  }
  return found;
}

CommandResult ShmRun(const std::vector<std::string>& args, const ScratchDir& dir) {
  std::vector<std::string> argv = {NICSIM_BINARY, "shm-run"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, dir.path());
}

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(ShmRunTest, FourRanksExchangeByteCheckedRandomTraffic) {
  for (const char* seed : {"7", "1234"}) {
    ScratchDir dir("shm_run_traffic");
    const std::string prefix = Prefix(std::string("traffic") + seed);
    const CommandResult r = ShmRun({"-n", "4", "--prefix", prefix, "--timeout", "120",
                                    NICSIM_SHM_TRAFFIC, "--seed", seed, "--messages", "40"},
                                   dir);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    // Each rank sends 40 to each of the 3 others and gets 40 from each: exact counts.
    for (int rank = 0; rank < 4; ++rank) {
      const std::string line = "rank " + std::to_string(rank) +
                               ": sent 120 (0 refused), received 120 from 3 ranks, every byte "
                               "checked (seed " +
                               seed + ")";
      EXPECT_TRUE(Has(r.out, line)) << line << "\n" << r.out;
    }
    EXPECT_TRUE(Has(r.err, "4 processes finalized and exited with status 0")) << r.err;
    // The control segment, the node's ACK segment and one data segment per rank.
    EXPECT_TRUE(Has(r.err, "reclaimed 6 shared-memory segments")) << r.err;
    EXPECT_TRUE(ShmObjects(prefix).empty());
  }
}

TEST(ShmRunTest, ARunLeavesTheSegmentsOfARunWhosePrefixExtendsItsOwn) {
  ScratchDir dir("shm_run_prefixes");
  const std::string prefix = Prefix("nested");
  // What a live run with prefix "<prefix>-pbx-x" holds: names that begin as this run's
  // engines' do once this run's prefix is taken off.
  const std::vector<std::string> foreign = {prefix + "-pbx-x-pbx-data-n0.r0-to-n0",
                                            prefix + "-pbx-x-pbx-ack-n0-from-n0",
                                            prefix + "-pp-ch-x-pp-ch-0-to-1"};
  for (const std::string& name : foreign) {
    const int fd = open(("/dev/shm/" + name).c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    ASSERT_GE(fd, 0) << name;
    close(fd);
  }
  const CommandResult r = ShmRun({"-n", "2", "--prefix", prefix, "--timeout", "120",
                                  NICSIM_SHM_TRAFFIC, "--seed", "3", "--messages", "5"},
                                 dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Its own four (control, ACK, two data segments) and nothing else.
  EXPECT_TRUE(Has(r.err, "reclaimed 4 shared-memory segments")) << r.err;
  std::vector<std::string> left = ShmObjects(prefix);
  std::sort(left.begin(), left.end());
  std::vector<std::string> want = foreign;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(left, want);
  for (const std::string& name : foreign) unlink(("/dev/shm/" + name).c_str());
}

TEST(ShmRunTest, AKilledRankFailsTheRunAndEveryPeerGetsPeerDead) {
  ScratchDir dir("shm_run_kill");
  const std::string prefix = Prefix("kill");
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r =
      ShmRun({"-n", "4", "--prefix", prefix, "--timeout", "120", NICSIM_SHM_TRAFFIC, "--seed", "7",
              "--messages", "40", "--kill-rank", "2", "--kill-after", "25"},
             dir);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_FALSE(Has(r.err, "timed out")) << r.err;
  EXPECT_LT(seconds, 60.0);
  EXPECT_TRUE(Has(r.out, "rank 2: raising SIGKILL after 25 messages")) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("rank 2 \\(pid [0-9]+\\) was killed by signal 9 \\([^)]*\\) without "
                        "finalizing: marked dead")))
      << r.err;
  EXPECT_TRUE(Has(r.err, "FAILED: 1 of 4 processes did not finalize")) << r.err;
  // Only the dead rank is named: the survivors finalized and exited 0.
  for (int rank : {0, 1, 3}) {
    EXPECT_FALSE(Has(r.err, "rank " + std::to_string(rank) + " (pid")) << r.err;
  }
  // Each survivor got exactly the dead rank's messages posted to it before it died, then
  // EPEERDEAD naming it; those are all of its 25 sends.
  int from_dead = 0;
  for (int rank : {0, 1, 3}) {
    std::smatch m;
    const std::regex dead("rank " + std::to_string(rank) +
                          ": EPEERDEAD from rank 2 after ([0-9]+) messages: receive: rank 2 "
                          "\\(pid [0-9]+\\) is dead: killed by signal 9");
    ASSERT_TRUE(std::regex_search(r.out, m, dead)) << "rank " << rank << "\n" << r.out;
    const int got = std::stoi(m[1]);
    from_dead += got;
    // 40 from each of the two other survivors, every one checked, plus the dead rank's.
    const std::regex done("rank " + std::to_string(rank) +
                          ": sent [0-9]+ \\([0-9]+ refused\\), received ([0-9]+) from 3 ranks, "
                          "every byte checked \\(seed 7\\)");
    ASSERT_TRUE(std::regex_search(r.out, m, done)) << r.out;
    EXPECT_EQ(std::stoi(m[1]), 80 + got) << r.out;
  }
  EXPECT_EQ(from_dead, 25) << r.out;
  // The dead rank's data segment is reclaimed with the rest.
  EXPECT_TRUE(Has(r.err, "reclaimed 6 shared-memory segments")) << r.err;
  EXPECT_TRUE(Has(r.err, "pbx-data-n0.r2-to-n0 (dead rank 2's)")) << r.err;
  EXPECT_TRUE(ShmObjects(prefix).empty());
}

TEST(ShmRunTest, PushPullCarriesTheSameTrafficAndSurvivesAKilledRank) {
  ScratchDir dir("shm_run_pushpull");
  const std::string prefix = Prefix("pushpull");
  CommandResult r = ShmRun({"-n", "4", "--prefix", prefix, "--timeout", "120", "--protocol",
                            "pushpull", NICSIM_SHM_TRAFFIC, "--seed", "7", "--messages", "40"},
                           dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (int rank = 0; rank < 4; ++rank) {
    const std::string line = "rank " + std::to_string(rank) +
                             ": sent 120 (0 refused), received 120 from 3 ranks, every byte "
                             "checked (seed 7)";
    EXPECT_TRUE(Has(r.out, line)) << line << "\n" << r.out;
  }
  // The control segment and one channel per ordered pair of ranks (4 x 3).
  EXPECT_TRUE(Has(r.err, "reclaimed 13 shared-memory segments")) << r.err;
  EXPECT_TRUE(Has(r.err, "pp-ch-0-to-1")) << r.err;
  EXPECT_TRUE(ShmObjects(prefix).empty());

  const std::string killed = Prefix("pushpull_kill");
  r = ShmRun({"-n", "4", "--prefix", killed, "--timeout", "120", "--protocol", "pushpull",
              NICSIM_SHM_TRAFFIC, "--seed", "7", "--messages", "40", "--kill-rank", "2",
              "--kill-after", "25"},
             dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_FALSE(Has(r.err, "timed out")) << r.err;
  // A push-pull send returns once the receiver has pulled the message: all 25 of the dead
  // rank's sends reached their receivers, who then got EPEERDEAD naming it.
  int from_dead = 0;
  for (int rank : {0, 1, 3}) {
    std::smatch m;
    const std::regex dead("rank " + std::to_string(rank) +
                          ": EPEERDEAD from rank 2 after ([0-9]+) messages: receive: rank 2 "
                          "\\(pid [0-9]+\\) is dead: killed by signal 9");
    ASSERT_TRUE(std::regex_search(r.out, m, dead)) << "rank " << rank << "\n" << r.out;
    from_dead += std::stoi(m[1]);
  }
  EXPECT_EQ(from_dead, 25) << r.out;
  // The dead rank's channels (those it received on) are reclaimed with the rest.
  EXPECT_TRUE(Has(r.err, "reclaimed 13 shared-memory segments")) << r.err;
  EXPECT_TRUE(Has(r.err, "pp-ch-0-to-2")) << r.err;
  EXPECT_TRUE(ShmObjects(killed).empty());
}

TEST(ShmRunTest, ABlockedSendFailsAndAnyRankReceiveFailsOnlyWhenNothingElseCanArrive) {
  ScratchDir dir("shm_run_liveness");
  const std::string prefix = Prefix("liveness");
  const CommandResult r = ShmRun(
      {"-n", "3", "--prefix", prefix, "--timeout", "60", NICSIM_SHM_TRAFFIC, "--liveness"}, dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // A send blocked on the quota of a rank that dies fails instead of waiting for ever.
  // (Rank 1 lives 0.5 s after its last call: the send starts well before, and waits.)
  EXPECT_TRUE(Has(r.out,
                  "rank 0: send of 65536 bytes to rank 1: peer is dead (send (waiting "
                  "for the receiver): rank 1 (pid"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "rank 2: receive from rank 1: peer is dead")) << r.out;
  // Rank 1 was dead before rank 2 sent, yet the message comes first...
  EXPECT_TRUE(Has(r.out, "rank 0: receive from any: success, 4 bytes from rank 2")) << r.out;
  // ...and the error only once rank 2 has finalized too, naming the dead rank.
  EXPECT_TRUE(Has(r.out, "rank 0: receive from any: peer is dead, rank 1 (")) << r.out;
  EXPECT_TRUE(Has(r.err, "rank 1 (pid")) << r.err;
  EXPECT_FALSE(Has(r.err, "rank 0 (pid")) << r.err;
  EXPECT_FALSE(Has(r.err, "rank 2 (pid")) << r.err;
  EXPECT_TRUE(ShmObjects(prefix).empty());
}

/** Runs 3 waiting ranks, sends `sig` to the launcher once all are ready, checks the end. */
void SignalTheLauncher(int sig, const std::string& name) {
  ScratchDir dir("shm_run_signal");
  const std::string prefix = Prefix(name);
  const std::string out = (dir.path() / "stdout.txt").string();
  const std::string err = (dir.path() / "stderr.txt").string();
  SpawnRequest request;
  request.argv = {NICSIM_BINARY, "shm-run",          "-n",    "3", "--prefix", prefix, "--timeout",
                  "120",         NICSIM_SHM_TRAFFIC, "--hang"};
  request.stdout_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  request.stderr_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  Result<pid_t> started = Spawn(request);
  close(request.stdout_fd);
  close(request.stderr_fd);
  ASSERT_TRUE(started.ok()) << started.status().message();
  const pid_t launcher = *started;
  // Wait until every rank has passed its message round the ring and waits.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto ready = [&] {
    const std::string text = ReadFile(out);
    return Has(text, "rank 0: ready") && Has(text, "rank 1: ready") && Has(text, "rank 2: ready");
  };
  while (!ready() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(ready()) << ReadFile(out) << ReadFile(err);
  // The run's segments exist while it runs: control, ACK, three data segments.
  EXPECT_EQ(ShmObjects(prefix).size(), 5u);
  ASSERT_EQ(kill(launcher, sig), 0);
  bool killed = false;
  const int status = WaitFor(launcher, 30, &killed);
  ASSERT_FALSE(killed) << "the launcher did not end after " << name << "\n" << ReadFile(err);
  EXPECT_EQ(DescribeWaitStatus(status), "exited with status 1");
  const std::string text = ReadFile(err);
  EXPECT_TRUE(Has(text, "got " + name + "; forwarding it to 3 running processes")) << text;
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_TRUE(std::regex_search(
        text, std::regex("rank " + std::to_string(rank) +
                         " \\(pid [0-9]+\\) was killed by signal " + std::to_string(sig))))
        << text;
  }
  EXPECT_TRUE(Has(text, "reclaimed 5 shared-memory segments")) << text;
  EXPECT_TRUE(Has(text, "interrupted by " + name)) << text;
  EXPECT_TRUE(ShmObjects(prefix).empty());
}

TEST(ShmRunTest, SigtermToTheLauncherIsForwardedAndTheSegmentsReclaimed) {
  SignalTheLauncher(SIGTERM, "SIGTERM");
}

TEST(ShmRunTest, SigintToTheLauncherIsForwardedAndTheSegmentsReclaimed) {
  SignalTheLauncher(SIGINT, "SIGINT");
}

TEST(ShmRunTest, SighupToTheLauncherIsForwardedAndTheSegmentsReclaimed) {
  // A closed terminal: without a handler the launcher died and left its six segments.
  SignalTheLauncher(SIGHUP, "SIGHUP");
}

TEST(ShmRunTest, ATimeoutKillsTheRanksAndNamesThem) {
  ScratchDir dir("shm_run_timeout");
  const std::string prefix = Prefix("timeout");
  const CommandResult r =
      ShmRun({"-n", "2", "--prefix", prefix, "--timeout", "1", NICSIM_SHM_TRAFFIC, "--hang"}, dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("timed out after 1 s; still running: rank 0 \\(pid [0-9]+, "
                        "(starting|running)\\), rank 1 \\(pid [0-9]+, (starting|running)\\); "
                        "killing them")))
      << r.err;
  EXPECT_TRUE(Has(r.err, "FAILED: 2 of 2 processes did not finalize")) << r.err;
  EXPECT_TRUE(ShmObjects(prefix).empty());
}

TEST(ShmRunTest, AProcessThatExitsWithoutFinalizingIsDead) {
  ScratchDir dir("shm_run_no_finalize");
  const std::string prefix = Prefix("nofinalize");
  const CommandResult r = ShmRun({"-n", "2", "--prefix", prefix, "/bin/true"}, dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Has(r.err, "exited with status 0 without finalizing: marked dead")) << r.err;
  EXPECT_TRUE(Has(r.err, "reclaimed 1 shared-memory segments")) << r.err;
  EXPECT_TRUE(ShmObjects(prefix).empty());
}

TEST(ShmRunTest, TheProgramsArgumentsReachItUntouched) {
  ScratchDir dir("shm_run_args");
  const std::string prefix = Prefix("args");
  // After `--` (or the program's name) nothing is shm-run's: not -n, not a subcommand's name.
  const CommandResult r = ShmRun(
      {"-n", "1", "--prefix=" + prefix, "--", "/bin/echo", "run", "-n", "5", "--", "--timeout"},
      dir);
  EXPECT_EQ(r.out, "run -n 5 -- --timeout\n");
  EXPECT_EQ(r.exit_code, 1) << r.err;  // echo does not finalize
  EXPECT_TRUE(ShmObjects(prefix).empty());
}

TEST(ShmRunTest, AProgramNotStartedByShmRunIsToldSo) {
  ScratchDir dir("shm_run_no_env");
  const CommandResult r = RunCommand({NICSIM_SHM_TRAFFIC}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r.err, "start the program with nicsim shm-run")) << r.err;
}

TEST(ShmRunTest, BadFlagsExitTwoWithAMessage) {
  ScratchDir dir("shm_run_bad");
  const std::string not_executable = (dir.path() / "plain.txt").string();
  { std::ofstream(not_executable) << "not a program\n"; }
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"-n", "0", "/bin/true"}, "shm-run: -n: expected at least 1 process, got 0"},
      {{"-n", "2"}, "shm-run: a program to run is required"},
      {{"-n", "2", "./no-such-program"}, "shm-run: ./no-such-program: no such file"},
      {{"-n", "2", "no-such-program-in-path"}, "no-such-program-in-path: not found"},
      {{"-n", "2", not_executable}, not_executable + ": not an executable file"},
      {{"-n", "2", "--timeout", "-1", "/bin/true"}, "shm-run: --timeout: expected seconds >= 0"},
      {{"-n", "2", "--prefix", "a/b", "/bin/true"}, "shm-run: --prefix 'a/b'"},
      {{"-n", "two", "/bin/true"}, "shm-run: -n: expected a number of processes, got 'two'"},
      {{"/bin/true"}, "shm-run: -n N is required"},
      {{"-n", "2", "--verbose", "/bin/true"}, "The following argument was not expected: --verbose"},
      {{"-n", "2", "--protocol", "tcp", "/bin/true"},
       "shm-run: --protocol: expected postbox or pushpull, got 'tcp'"},
      {{"-n", "2", "--timeout"}, "--timeout: 1 required TEXT missing"},
  };
  for (const Case& c : cases) {
    const CommandResult r = ShmRun(c.args, dir);
    EXPECT_EQ(r.exit_code, 2) << c.says << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, c.says)) << c.says << "\n" << r.err;
  }
}

}  // namespace
}  // namespace nicsim::testing
