// SPDX-License-Identifier: Apache-2.0
// bench/dpdk_pingpong: small-message round-trip time between two processes on a DPDK net_memif
// pair (shared memory, no root) and, as root, on af_packet over a veth pair (the kernel's
// path), through two `nicsim port --mode pingpong` processes (HAL, both microcodes and DPDK
// ports on every trip), against bench_dpdk_min_pingpong on the same vdevs.
//
// Both send 64-byte frames (nicsim: Ethernet 14 + WireHeader 48 + 2 payload bytes). Each
// program runs twice, alternating, and the better median counts (the machine is shared). The
// server side of the memif pair runs on lcore 1, the client on lcore 0, started once the
// server's socket file exists. The ratio is the reference median over nicsim's: 1.0 would mean
// the HAL and microcode add nothing to a round trip. The target: on memif, nicsim's
// median round trip at most 1.5 times the minimal one's (the p50 ratio >= 1/1.5); none on veth.
//
// NICSIM_BENCH_ROUNDS (default 20000) sets the timed rounds of each run (2000 more warm up).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/child_process.h"
#include "bench/bench_report.h"

namespace nicsim::bench {
namespace {

constexpr int kRepetitions = 2;
constexpr uint64_t kWarmup = 2000;
constexpr double kTimeoutS = 120;

uint64_t Rounds() {
  const char* env = std::getenv("NICSIM_BENCH_ROUNDS");
  const uint64_t n = env != nullptr ? std::strtoull(env, nullptr, 10) : 20'000;
  return n > 0 ? n : 20'000;
}

struct Process {
  pid_t pid = -1;
  std::string out_path;
};

/** Starts `args` with its stdout in `out_path` and its stderr in `out_path`.err. */
Process Start(const std::vector<std::string>& args, const std::string& out_path) {
  Process p;
  p.out_path = out_path;
  const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err = open((out_path + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  SpawnRequest request;
  request.argv = args;
  request.stdout_fd = out;
  request.stderr_fd = err;
  Result<pid_t> pid = Spawn(request);
  if (pid.ok()) p.pid = *pid;
  if (!pid.ok()) std::printf("dpdk_pingpong: %s\n", pid.status().message().c_str());
  for (int fd : {out, err}) {
    if (fd >= 0) close(fd);
  }
  return p;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/** Waits for a process; kills it if it outlives `limit_s`. Returns its exit code (-1: killed
 *  or never started). */
int Wait(const Process& p, double limit_s) {
  return p.pid > 0 ? ExitCodeOf(WaitFor(p.pid, limit_s)) : -1;
}

/** A vdev pair two processes can talk over. */
struct Link {
  std::string name;
  /** The --vdev of the server side (first to start) and the client side. */
  std::string server_vdev;
  std::string client_vdev;
  /** A file the server makes before the client may start (memif's socket); empty: none. */
  std::string ready_path;
};

/** A net_memif pair on a socket file in `dir` (shared memory; no root). */
Link MemifLink(const std::string& dir, int run) {
  const std::string socket = dir + "/memif" + std::to_string(run) + ".sock";
  const std::string args = ",socket=" + socket + ",socket-abstract=no";
  return {"memif", "net_memif0,role=server" + args, "net_memif0,role=client" + args, socket};
}

/** EAL options of one side: the server on lcore 1, the client on lcore 0. */
std::string Eal(const Link& link, bool server, const std::string& prefix) {
  return std::string("--no-huge -m 256 --no-pci --no-shconf --no-telemetry") +
         " --log-level=lib.eal:warning --file-prefix=" + prefix + (server ? " -l 1" : " -l 0") +
         " --vdev=" + (server ? link.server_vdev : link.client_vdev);
}

bool Shell(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/** A veth pair (root only), both ends up; deleted with the object. */
class VethPair {
 public:
  VethPair() : a_("nsbpa" + std::to_string(getpid())), b_("nsbpb" + std::to_string(getpid())) {
    created_ = Shell("ip link add " + a_ + " type veth peer name " + b_);
    ok_ = created_ && Shell("ip link set " + a_ + " up") && Shell("ip link set " + b_ + " up");
    for (int i = 0; ok_ && i < 200 && !(Up(a_) && Up(b_)); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~VethPair() {
    if (created_) Shell("ip link del " + a_);
  }
  VethPair(const VethPair&) = delete;
  VethPair& operator=(const VethPair&) = delete;
  bool ok() const { return ok_; }
  Link link() const {
    return {"veth", "net_af_packet0,iface=" + a_, "net_af_packet0,iface=" + b_, ""};
  }

 private:
  static bool Up(const std::string& iface) {
    std::ifstream in("/sys/class/net/" + iface + "/operstate");
    std::string state;
    in >> state;
    return state == "up";
  }
  std::string a_;
  std::string b_;
  bool created_ = false;
  bool ok_ = false;
};

std::vector<std::string> Split(const std::string& words) {
  std::vector<std::string> out;
  std::stringstream s(words);
  for (std::string w; s >> w;) out.push_back(w);
  return out;
}

/**
 * Runs a server and a client, the server first (it makes the memif socket). Returns the client's
 * JSON summary (the timing side), or a null value after printing what went wrong.
 */
nlohmann::json RunPair(const std::string& name, const Link& link,
                       const std::vector<std::string>& server,
                       const std::vector<std::string>& client, const std::string& dir) {
  const Process s = Start(server, dir + "/" + name + "_server.out");
  // A memif client fails to start without the server's socket: wait for the file.
  for (int i = 0; i < 1000 && !link.ready_path.empty() && !std::filesystem::exists(link.ready_path);
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (link.ready_path.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const Process c = Start(client, dir + "/" + name + "_client.out");
  const int client_code = Wait(c, kTimeoutS + 10);
  const int server_code = Wait(s, 15);
  const std::string out = Slurp(c.out_path);
  nlohmann::json summary;
  std::stringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("rtt_ns")) summary = j;
  }
  if (client_code != 0 || summary.is_null()) {
    std::printf(
        "dpdk_pingpong: %s failed (client exit %d, server exit %d)\nclient: %s%s\n"
        "server: %s%s\n",
        name.c_str(), client_code, server_code, out.c_str(), Slurp(c.out_path + ".err").c_str(),
        Slurp(s.out_path).c_str(), Slurp(s.out_path + ".err").c_str());
    return nullptr;
  }
  return summary;
}

/** The better (lower median) of each program's runs on `make_link()`'s links. */
struct Best {
  nlohmann::json reference;
  nlohmann::json nicsim;
};

/** Runs both programs kRepetitions times each, alternating; null values if a run failed. */
Best Measure(const std::function<Link(int)>& make_link, uint64_t rounds, const std::string& dir) {
  Best best;
  auto better = [](const nlohmann::json& a, const nlohmann::json& b) {
    return b.is_null() || a["rtt_ns"]["p50"].get<double>() < b["rtt_ns"]["p50"].get<double>();
  };
  const std::string timeout = std::to_string(static_cast<int>(kTimeoutS));
  int run = 0;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    const Link min_link = make_link(run++);
    auto min_argv = [&](bool server) {
      std::vector<std::string> a = {MIN_PINGPONG_BINARY};
      for (const std::string& w : Split(Eal(min_link, server, server ? "mps" : "mpc"))) {
        a.push_back(w);
      }
      for (const std::string& w :
           {std::string("--"), std::string("--role"), std::string(server ? "pong" : "ping"),
            std::string("--rounds"), std::to_string(rounds), std::string("--warmup"),
            std::to_string(kWarmup), std::string("--size"), std::string("64"),
            std::string("--timeout-s"), timeout}) {
        a.push_back(w);
      }
      return a;
    };
    const nlohmann::json r =
        RunPair(min_link.name + "_min", min_link, min_argv(true), min_argv(false), dir);
    if (r.is_null()) return {};
    if (better(r, best.reference)) best.reference = r;

    // The server is the responder (node 2); the client, node 1, initiates and times.
    const Link nicsim_link = make_link(run++);
    auto nicsim_argv = [&](bool server) {
      return std::vector<std::string>{
          NICSIM_BINARY, "port",
          "--eal",       Eal(nicsim_link, server, server ? "nps" : "npc"),
          "--node",      server ? "2" : "1",
          "--peer",      server ? "1" : "2",
          "--mode",      "pingpong",
          "--size",      "2",
          "--messages",  std::to_string(rounds),
          "--warmup",    std::to_string(kWarmup),
          "--timeout",   timeout + "s"};
    };
    const nlohmann::json n = RunPair(nicsim_link.name + "_nicsim", nicsim_link, nicsim_argv(true),
                                     nicsim_argv(false), dir);
    if (n.is_null()) return {};
    if (better(n, best.nicsim)) best.nicsim = n;
  }
  return best;
}

/** The target: nicsim's memif round trip within 1.5x the minimal ping-pong's (median). */
constexpr double kMemifP50Target = 1.0 / 1.5;

/** The link's figures and ratios; `p50_target`: the least median ratio that passes. */
void AddToReport(Report& report, const std::string& link, const Best& best, double p50_target) {
  for (const char* q : {"min", "p50", "p99", "mean"}) {
    report.Figure(link + "_min_pingpong_rtt_" + q + "_ns",
                  best.reference["rtt_ns"][q].get<double>());
    report.Figure(link + "_nicsim_rtt_" + q + "_ns", best.nicsim["rtt_ns"][q].get<double>());
  }
  report.Figure(link + "_nicsim_rounds_resent", best.nicsim.value("resent", 0.0));
  // Higher is better: the reference's round trip over nicsim's.
  for (const char* q : {"p50", "mean"}) {
    report.Ratio(link + "_rtt_" + q + "_min_pingpong_over_nicsim",
                 best.reference["rtt_ns"][q].get<double>() / best.nicsim["rtt_ns"][q].get<double>(),
                 std::string(q) == "p50" ? p50_target : 0.0);
  }
}

int Main() {
  const uint64_t rounds = Rounds();
  char dir_template[] = "/tmp/nicsim_pingpong_XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return 2;
  const std::string dir = dir_template;
  Report report("dpdk_pingpong",
                "64-byte round trip between two processes (net_memif; af_packet on veth as "
                "root): nicsim port (HAL + microcode) vs a minimal DPDK ping-pong");
  report.Figure("rounds_timed", static_cast<double>(rounds));
  const Best memif = Measure([&](int run) { return MemifLink(dir, run); }, rounds, dir);
  if (memif.reference.is_null() || memif.nicsim.is_null()) return 1;
  AddToReport(report, "memif", memif, kMemifP50Target);
  if (geteuid() != 0) {
    std::printf("dpdk_pingpong: not root, so no veth pair: af_packet figures left out\n");
  } else {
    VethPair veth;
    if (!veth.ok()) {
      std::printf("dpdk_pingpong: cannot create a veth pair: af_packet figures left out\n");
    } else {
      const Best af_packet = Measure([&](int) { return veth.link(); }, rounds, dir);
      if (af_packet.reference.is_null() || af_packet.nicsim.is_null()) {
        std::printf("dpdk_pingpong: af_packet on veth failed: its figures left out\n");
      } else {
        AddToReport(report, "veth", af_packet, 0.0);
      }
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return report.Finish();
}

}  // namespace
}  // namespace nicsim::bench

int main() { return nicsim::bench::Main(); }
