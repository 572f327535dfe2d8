// SPDX-License-Identifier: Apache-2.0
// Two `nicsim port` processes on the two ends of a veth pair (DPDK af_packet vdevs) exchange
// 20,000 checked messages each way. Needs root to create the veth pair; skipped otherwise.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace nicsim {
namespace {

using nicsim::testing::ReadFile;
using nicsim::testing::ScratchDir;
using nicsim::testing::ShellQuote;

constexpr int kMessages = 20'000;

/** Runs a shell command quietly; true if it exited 0. */
bool Shell(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/**
 * A veth pair named after the test's pid, both ends up. The default MTU of 1,500 suffices:
 * af_packet in DPDK 22.11 takes no larger MTU, so `nicsim port` caps its messages to fit.
 * Deleting one end deletes both, also when the test fails.
 */
class VethPair {
 public:
  VethPair() : a_("nsa" + std::to_string(getpid())), b_("nsb" + std::to_string(getpid())) {
    created_ = Shell("ip link add " + a_ + " type veth peer name " + b_);
    if (!created_) return;
    ok_ = Shell("ip link set " + a_ + " up") && Shell("ip link set " + b_ + " up");
  }
  ~VethPair() {
    if (created_) Shell("ip link del " + a_);
  }
  VethPair(const VethPair&) = delete;
  VethPair& operator=(const VethPair&) = delete;

  bool ok() const { return created_ && ok_; }
  const std::string& a() const { return a_; }
  const std::string& b() const { return b_; }

 private:
  std::string a_;
  std::string b_;
  bool created_ = false;
  bool ok_ = false;
};

/** One `nicsim port` process started in the background, stdout and stderr to files. */
struct PortProcess {
  pid_t pid = -1;
  std::string out_path;
  std::string err_path;
};

PortProcess StartPort(const std::vector<std::string>& argv, const std::string& scratch,
                      const std::string& name) {
  PortProcess p;
  p.out_path = scratch + "/" + name + ".out";
  p.err_path = scratch + "/" + name + ".err";
  std::string command = "exec";
  for (const std::string& arg : argv) command += " " + ShellQuote(arg);
  command += " </dev/null >" + ShellQuote(p.out_path) + " 2>" + ShellQuote(p.err_path);
  p.pid = fork();
  if (p.pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return p;
}

/** True once the interface's operational state is up. */
bool OperUp(const std::string& iface) {
  std::ifstream in("/sys/class/net/" + iface + "/operstate");
  std::string state;
  in >> state;
  return state == "up";
}

/**
 * Waits for both processes. If one fails at start-up (exit 2), the other, which would wait
 * for its peer until its timeout, is stopped at once.
 */
void WaitBoth(const PortProcess& a, const PortProcess& b, int* code_a, int* code_b) {
  int remaining = 2;
  while (remaining > 0) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (pid == a.pid) *code_a = code;
    if (pid == b.pid) *code_b = code;
    if (pid != a.pid && pid != b.pid) continue;
    --remaining;
    if (code == 2 && remaining > 0) kill(pid == a.pid ? b.pid : a.pid, SIGTERM);
  }
}

/** EAL options for one process: its own file prefix, its own core, an af_packet port. */
std::string EalArgs(const std::string& iface, int core) {
  return "--no-huge -m 256 --no-pci --no-shconf --no-telemetry --log-level=lib.eal:warning"
         " --file-prefix=ns" + iface + " -l " + std::to_string(core) +
         " --vdev=net_af_packet0,iface=" + iface;
}

TEST(DpdkTwoProcessTest, TwoProcessesExchange20kMessagesEachWayOverVeth) {
  if (geteuid() != 0) GTEST_SKIP() << "creating a veth pair needs root";
  if (!Shell("ip -V")) GTEST_SKIP() << "no 'ip' command (apt-get install iproute2)";
  VethPair veth;
  if (!veth.ok()) GTEST_SKIP() << "cannot create and raise veth pair " << veth.a() << "/" << veth.b();
  ScratchDir scratch("nicsim_two_process");
  ASSERT_FALSE(scratch.path().empty());
  // Busy-polling processes each get a core when there are two.
  const int second_core = std::thread::hardware_concurrency() >= 2 ? 1 : 0;
  auto argv = [&](const std::string& iface, int core, int node, int peer) {
    return std::vector<std::string>{NICSIM_BINARY, "port", "--eal", EalArgs(iface, core),
                                    "--node", std::to_string(node), "--peer",
                                    std::to_string(peer), "--messages", std::to_string(kMessages),
                                    "--seed", "7", "--timeout-s", "60"};
  };
  const std::string dir = scratch.path().string();
  // Both ends must carry traffic before the ports bind to them.
  for (int i = 0; i < 200 && !(OperUp(veth.a()) && OperUp(veth.b())); ++i) usleep(10'000);
  // The kernel may refuse an af_packet socket setting while the link settles (seen: EINVAL
  // on PACKET_FANOUT); such a start-up failure (exit 2) is retried, never the exchange.
  std::string setup_error;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const PortProcess a = StartPort(argv(veth.a(), 0, 1, 2), dir, "a");
    const PortProcess b = StartPort(argv(veth.b(), second_core, 2, 1), dir, "b");
    ASSERT_GT(a.pid, 0);
    ASSERT_GT(b.pid, 0);
    int code_a = -2, code_b = -2;
    WaitBoth(a, b, &code_a, &code_b);
    if (code_a == 2 || code_b == 2) {
      setup_error = ReadFile(a.err_path) + ReadFile(b.err_path);
      usleep(200'000);
      continue;
    }
    for (const PortProcess* p : {&a, &b}) {
      const std::string name = p == &a ? "a" : "b";
      const int code = p == &a ? code_a : code_b;
      const std::string out = ReadFile(p->out_path);
      EXPECT_EQ(code, 0) << "process " << name << "\nstdout: " << out
                         << "\nstderr: " << ReadFile(p->err_path);
      const nlohmann::json summary = nlohmann::json::parse(out, nullptr, false);
      ASSERT_TRUE(summary.is_object()) << "process " << name << " printed: " << out;
      EXPECT_EQ(summary.value("sent", 0), kMessages) << name << ": " << out;
      EXPECT_EQ(summary.value("received", 0), kMessages) << name << ": " << out;
      EXPECT_EQ(summary.value("errors", 1), 0) << name << ": " << out;
      std::cout << "process " << name << ": " << out;
    }
    return;
  }
  GTEST_SKIP() << "the af_packet ports could not be set up on this kernel: " << setup_error;
}

}  // namespace
}  // namespace nicsim
