// SPDX-License-Identifier: Apache-2.0
// nicsim tun: namespaces `<prefix>-<node>`, each with a TUN device `ipif0` that carries the
// node's address (10.A.A.W+1 of window 0 on the node's first adapter, /8). Packets the kernel
// writes to a TUN device are sent by that node's IpInterface; datagrams it delivers are
// written to its TUN device. Simulated time follows the wall clock (1 simulated second per
// second). SIGINT or SIGTERM (or --duration) ends the run and removes the namespaces.
#include "sim/tun/tun_command.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sim/cluster/cluster.h"
#include "sim/config/builtin_scenarios.h"
#include "sim/config/scenario.h"
#include "sim/run_scenario.h"
#include "sim/workloads/ip_exchange.h"
#include "ulp/ip/ip_interface.h"

namespace nicsim::sim {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

constexpr int kUsage = 2;

void Usage() {
  std::fprintf(stderr,
               "usage: nicsim tun [--nodes N] [--prefix NAME] [--duration SECONDS] [--mtu BYTES] "
               "[--set KEY=VALUE]...\n"
               "  Every node's IP interface becomes TUN device ipif0 in network namespace "
               "NAME-<node> (default NAME: nicsim). Needs root.\n");
}

/** Runs `ip ARGS...`; true if it exits 0. */
bool Ip(const std::vector<std::string>& args) {
  std::string cmd = "ip";
  for (const std::string& a : args) cmd += " " + a;
  cmd += " 2>&1";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) std::fprintf(stderr, "nicsim tun: '%s' failed\n", cmd.c_str());
  return rc == 0;
}

/** Opens TUN device `name` inside namespace `ns` (the fd stays usable from here). */
int OpenTunIn(const std::string& ns, const char* name) {
  const int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  const int target = open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  if (self < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0) {
    std::fprintf(stderr, "nicsim tun: cannot enter namespace %s: %s\n", ns.c_str(),
                 std::strerror(errno));
    if (self >= 0) close(self);
    if (target >= 0) close(target);
    return -1;
  }
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    ifreq ifr{};
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    std::strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
      std::fprintf(stderr, "nicsim tun: TUNSETIFF: %s\n", std::strerror(errno));
      close(fd);
      fd = -1;
    }
  } else {
    std::fprintf(stderr, "nicsim tun: /dev/net/tun: %s\n", std::strerror(errno));
  }
  const bool back = setns(self, CLONE_NEWNET) == 0;
  close(self);
  close(target);
  if (!back) {
    std::fprintf(stderr, "nicsim tun: cannot return to the first namespace\n");
    std::exit(1);
  }
  return fd;
}

}  // namespace

int TunCommand(int argc, char** argv) {
  uint32_t nodes = 2;
  std::string prefix = "nicsim";
  double duration_s = 0;
  uint32_t mtu = 65535;
  std::vector<std::string> sets;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--help" || a == "-h") {
      Usage();
      return 0;
    } else if (a == "--nodes" && (v = value())) {
      nodes = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    } else if (a == "--prefix" && (v = value())) {
      prefix = v;
    } else if (a == "--duration" && (v = value())) {
      duration_s = std::strtod(v, nullptr);
    } else if (a == "--mtu" && (v = value())) {
      mtu = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    } else if (a == "--set" && (v = value())) {
      sets.emplace_back(v);
    } else {
      std::fprintf(stderr, "nicsim tun: unknown or incomplete argument '%s'\n", a.c_str());
      Usage();
      return kUsage;
    }
  }
  if (nodes < 2 || nodes > 64 || prefix.empty() || prefix.size() > 40 || mtu < 576 || mtu > 65535) {
    std::fprintf(stderr,
                 "nicsim tun: --nodes must be in [2, 64], --prefix 1..40 characters, "
                 "--mtu in [576, 65535]\n");
    return kUsage;
  }
  if (geteuid() != 0) {
    std::fprintf(stderr,
                 "nicsim tun: needs root: it creates network namespaces and TUN devices (run it "
                 "as root, e.g. with sudo)\n");
    return kUsage;
  }
  Result<Scenario> scenario = ParseScenario(*BuiltinScenarioText("default"), "builtin:default");
  if (!scenario.ok()) return kUsage;
  sets.insert(sets.begin(), "nodes=" + std::to_string(nodes));
  sets.insert(sets.begin(), "backend=func");
  for (const std::string& s : sets) {
    if (Status st = ApplySetFlag(*scenario, s); !st.ok()) {
      std::fprintf(stderr, "nicsim tun: %s\n", st.message().c_str());
      return kUsage;
    }
  }
  Result<ClusterConfig> config = ClusterConfigFromParams(scenario->params);
  if (!config.ok()) {
    std::fprintf(stderr, "nicsim tun: %s\n", config.status().message().c_str());
    return kUsage;
  }
  config->rdma_host_bytes = IpExchangeHostBytes();
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(*config);
  if (!made.ok()) {
    std::fprintf(stderr, "nicsim tun: %s\n", made.status().message().c_str());
    return 1;
  }
  Cluster& cluster = **made;
  const ClusterConfig& cc = cluster.config();

  std::vector<std::unique_ptr<hal::Port>> ports;
  std::vector<std::unique_ptr<hal::TaskHost>> hosts;
  std::vector<hal::Peer> members;
  for (uint32_t n = 0; n < nodes; ++n) {
    ports.push_back(cluster.MakePort(n * cc.adapters_per_node, 0));
    hosts.push_back(cluster.MakeTaskHost(n));
    members.push_back(ports.back()->self());
  }
  std::vector<std::unique_ptr<ulp::ip::IpInterface>> ifs;
  for (uint32_t n = 0; n < nodes; ++n) {
    ifs.push_back(
        std::make_unique<ulp::ip::IpInterface>(*ports[n], *hosts[n], ulp::ip::IpConfig{}, members));
    if (Status st = ifs.back()->EnableRdma(); !st.ok()) {
      std::fprintf(stderr, "nicsim tun: %s\n", st.message().c_str());
      return 1;
    }
  }

  // Namespaces and devices.
  std::vector<std::string> names;
  std::vector<int> fds;
  auto cleanup = [&] {
    for (int fd : fds) close(fd);
    for (const std::string& ns : names) Ip({"netns", "del", ns});
  };
  for (uint32_t n = 0; n < nodes; ++n) {
    const std::string ns = prefix + "-" + std::to_string(n);
    if (!Ip({"netns", "add", ns})) {
      cleanup();
      return 1;
    }
    names.push_back(ns);
    const int fd = OpenTunIn(ns, "ipif0");
    const std::string address = ulp::ip::FormatAddress(ifs[n]->address()) + "/8";
    if (fd < 0 || !Ip({"-n", ns, "addr", "add", address, "dev", "ipif0"}) ||
        !Ip({"-n", ns, "link", "set", "ipif0", "mtu", std::to_string(mtu), "up"}) ||
        !Ip({"-n", ns, "link", "set", "lo", "up"})) {
      if (fd >= 0) close(fd);
      cleanup();
      return 1;
    }
    fds.push_back(fd);
    std::printf("node %u: namespace %s, ipif0 %s\n", n, ns.c_str(), address.c_str());
  }
  uint64_t from_tun = 0, to_tun = 0, refused = 0;
  for (uint32_t n = 0; n < nodes; ++n) {
    ifs[n]->OnDeliver([&, n](const ulp::ip::Header& h, const uint8_t* payload, uint32_t len) {
      std::vector<uint8_t> packet(ulp::ip::kHeaderBytes + len);
      ulp::ip::Header out = h;
      out.total_length = static_cast<uint16_t>(packet.size());
      ulp::ip::WriteHeader(out, packet.data());
      std::memcpy(packet.data() + ulp::ip::kHeaderBytes, payload, len);
      if (write(fds[n], packet.data(), packet.size()) == static_cast<ssize_t>(packet.size())) {
        ++to_tun;
      }
    });
  }
  std::printf("ready\n");
  std::fflush(stdout);

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  kernel::EventQueue& events = cluster.events();
  const uint64_t sim_start = events.now_ps();
  const auto wall_start = std::chrono::steady_clock::now();
  std::vector<pollfd> polls(nodes);
  for (uint32_t n = 0; n < nodes; ++n) polls[n] = pollfd{fds[n], POLLIN, 0};
  std::vector<uint8_t> buf(65536);
  while (g_stop == 0) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (duration_s > 0 && elapsed >= duration_s) break;
    // Simulated time catches up with the wall clock: a marker event at the target time.
    const uint64_t target = sim_start + static_cast<uint64_t>(elapsed * 1e12);
    if (target > events.now_ps()) {
      bool reached = false;
      events.At(target, [&reached] { reached = true; });
      while (!reached && events.RunOne()) {
      }
    }
    if (poll(polls.data(), polls.size(), 1) <= 0) continue;
    for (uint32_t n = 0; n < nodes; ++n) {
      if ((polls[n].revents & POLLIN) == 0) continue;
      for (;;) {
        const ssize_t got = read(fds[n], buf.data(), buf.size());
        if (got <= 0) break;
        ulp::ip::Header h;
        const auto len = static_cast<uint32_t>(got);
        // Only whole datagrams: the interface fragments by itself (the kernel does not
        // fragment below the device's MTU).
        if (ulp::ip::ReadHeader(buf.data(), len, &h) != ulp::ip::HeaderError::kNone ||
            h.more_fragments || h.offset_bytes != 0 ||
            !ifs[n]
                 ->Send(h.dst, h.protocol, buf.data() + ulp::ip::kHeaderBytes,
                        len - ulp::ip::kHeaderBytes)
                 .ok()) {
          ++refused;
          continue;
        }
        ++from_tun;
      }
    }
  }
  std::printf("packets from the TUN devices %llu, to them %llu, refused %llu\n",
              static_cast<unsigned long long>(from_tun), static_cast<unsigned long long>(to_tun),
              static_cast<unsigned long long>(refused));
  ulp::ip::IpStats total;
  for (const auto& i : ifs) total += i->stats();
  for (const auto& f : ulp::ip::IpStats::Fields()) {
    if (total.*f.member != 0) {
      std::printf("  %-22s %llu\n", std::string(f.name).c_str(),
                  static_cast<unsigned long long>(total.*f.member));
    }
  }
  for (auto& i : ifs) i->OnDeliver(nullptr);
  cleanup();
  return 0;
}

}  // namespace nicsim::sim
