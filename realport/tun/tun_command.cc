// SPDX-License-Identifier: Apache-2.0
// nicsim tun: namespaces `<prefix>-<node>`, each with a TUN device `ipif0` that carries the
// node's address (10.A.A.W+1 of window 0 on the node's first adapter, /8). Packets the kernel
// writes to a TUN device are sent by that node's IpInterface; datagrams it delivers are
// written to its TUN device. Simulated time follows the wall clock (1 simulated second per
// second). SIGINT or SIGTERM (or --duration) ends the run and removes the namespaces.
#include "realport/tun/tun_command.h"

#include <poll.h>
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
#include "sim/run/run_scenario.h"
#include "realport/tun/netns.h"
#include "sim/workloads/ip_exchange.h"
#include "ulp/ip/ip_interface.h"

namespace nicsim::sim {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

constexpr int kUsage = 2;

/** The cluster of `options.nodes` nodes on the functional backend, with the --set flags. */
Result<ClusterConfig> TunClusterConfig(const TunOptions& options) {
  Result<Scenario> scenario = ParseScenario(*BuiltinScenarioText("default"), "builtin:default");
  if (!scenario.ok()) return scenario.status();
  std::vector<std::string> sets = options.sets;
  sets.insert(sets.begin(), "nodes=" + std::to_string(options.nodes));
  sets.insert(sets.begin(), "backend=func");
  for (const std::string& s : sets) {
    if (Status st = ApplySetFlag(*scenario, s); !st.ok()) return st;
  }
  Result<ClusterConfig> config = ClusterConfigFromParams(scenario->params);
  if (!config.ok()) return config.status();
  config->rdma_host_bytes = IpExchangeHostBytes();
  return config;
}

/** An IP interface (with RDMA) on window 0 of each node's first adapter. */
struct TunNodes {
  std::vector<std::unique_ptr<hal::Port>> ports;
  std::vector<std::unique_ptr<hal::TaskHost>> hosts;
  std::vector<std::unique_ptr<ulp::ip::IpInterface>> ifs;
};

Status BuildInterfaces(Cluster& cluster, TunNodes* out) {
  const ClusterConfig& cc = cluster.config();
  std::vector<hal::Peer> members;
  for (uint32_t n = 0; n < cc.nodes; ++n) {
    out->ports.push_back(cluster.MakePort(n * cc.adapters_per_node, 0));
    out->hosts.push_back(cluster.MakeTaskHost(n));
    members.push_back(out->ports.back()->self());
  }
  for (uint32_t n = 0; n < cc.nodes; ++n) {
    out->ifs.push_back(std::make_unique<ulp::ip::IpInterface>(*out->ports[n], *out->hosts[n],
                                                              ulp::ip::IpConfig{}, members));
    if (Status st = out->ifs.back()->EnableRdma(); !st.ok()) return st;
  }
  return Status();
}

/** Packets through the bridge: read from the TUN devices, written to them, refused. */
struct BridgeCounts {
  uint64_t from_tun = 0;
  uint64_t to_tun = 0;
  uint64_t refused = 0;
};

/**
 * Until SIGINT, SIGTERM or `duration_s` (0: none): simulated time follows the wall clock and
 * what the TUN devices hold goes into the interfaces.
 */
void Bridge(Cluster& cluster, TunNodes& nodes,
            const std::vector<std::unique_ptr<TunNamespace>>& spaces, double duration_s,
            BridgeCounts* counts) {
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  kernel::EventQueue& events = cluster.events();
  const uint64_t sim_start = events.now_ps();
  const auto wall_start = std::chrono::steady_clock::now();
  std::vector<pollfd> polls(spaces.size());
  for (size_t n = 0; n < spaces.size(); ++n) polls[n] = pollfd{spaces[n]->fd(), POLLIN, 0};
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
    for (size_t n = 0; n < spaces.size(); ++n) {
      if ((polls[n].revents & POLLIN) != 0) {
        counts->from_tun += spaces[n]->Drain(*nodes.ifs[n], &counts->refused);
      }
    }
  }
}

void PrintTotals(const TunNodes& nodes, const BridgeCounts& counts) {
  std::printf("packets from the TUN devices %llu, to them %llu, refused %llu\n",
              static_cast<unsigned long long>(counts.from_tun),
              static_cast<unsigned long long>(counts.to_tun),
              static_cast<unsigned long long>(counts.refused));
  ulp::ip::IpStats total;
  for (const auto& i : nodes.ifs) total += i->stats();
  for (const auto& f : ulp::ip::IpStats::Fields()) {
    if (total.*f.member != 0) {
      std::printf("  %-22s %llu\n", std::string(f.name).c_str(),
                  static_cast<unsigned long long>(total.*f.member));
    }
  }
}

}  // namespace

int RunTun(const TunOptions& options) {
  const uint32_t nodes = options.nodes;
  const std::string& prefix = options.prefix;
  const uint32_t mtu = options.mtu;
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
  Result<ClusterConfig> config = TunClusterConfig(options);
  if (!config.ok()) {
    std::fprintf(stderr, "nicsim tun: %s\n", config.status().message().c_str());
    return kUsage;
  }
  Result<std::unique_ptr<Cluster>> made = Cluster::Create(*config);
  if (!made.ok()) {
    std::fprintf(stderr, "nicsim tun: %s\n", made.status().message().c_str());
    return 1;
  }
  Cluster& cluster = **made;
  TunNodes built;
  if (Status st = BuildInterfaces(cluster, &built); !st.ok()) {
    std::fprintf(stderr, "nicsim tun: %s\n", st.message().c_str());
    return 1;
  }
  // Namespaces and devices.
  std::vector<std::unique_ptr<TunNamespace>> spaces;
  for (uint32_t n = 0; n < nodes; ++n) {
    std::unique_ptr<TunNamespace> ns = TunNamespace::Create(
        prefix + "-" + std::to_string(n), built.ifs[n]->address(), mtu, "nicsim tun");
    if (ns == nullptr) return 1;  // The namespaces made so far are removed.
    std::printf("node %u: namespace %s, ipif0 %s\n", n, ns->name().c_str(), ns->address().c_str());
    spaces.push_back(std::move(ns));
  }
  BridgeCounts counts;
  for (uint32_t n = 0; n < nodes; ++n) {
    built.ifs[n]->OnDeliver([&, n](const ulp::ip::Header& h, const uint8_t* payload, uint32_t len) {
      if (spaces[n]->Write(h, payload, len)) ++counts.to_tun;
    });
  }
  std::printf("ready\n");
  std::fflush(stdout);
  Bridge(cluster, built, spaces, options.duration_s, &counts);
  PrintTotals(built, counts);
  for (auto& i : built.ifs) i->OnDeliver(nullptr);
  return 0;  // The namespaces go with `spaces`.
}

}  // namespace nicsim::sim
