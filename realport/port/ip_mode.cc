// SPDX-License-Identifier: Apache-2.0
// `nicsim port --mode ip`: the node's window carries an IP interface (ulp/ip/) exposed as TUN
// device ipif0 in a network namespace this process creates (realport/tun/netns.h), so socket
// programs in the namespaces of two `nicsim port` processes talk across the real port through
// both adapters' microcode. Small datagrams go through the FIFOs, larger ones as IPv4
// fragments; unicast above the RDMA threshold by RDMA read where the link's frames carry RDMA
// packets. The interface's timers run on the wall clock. The run lasts --timeout or until
// SIGINT/SIGTERM, then the namespace is removed. Root only (checked in realport/port/command.cc).
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "abi/packet.h"
#include "hal/port.h"
#include "hal/task_host.h"
#include "kernel/clock.h"
#include "realport/port/modes.h"
#include "realport/port/node.h"
#include "realport/port/rdma_task.h"
#include "realport/port/run_loop.h"
#include "realport/tun/netns.h"
#include "ulp/ip/ip_interface.h"

namespace nicsim::sim {
namespace {

/** Reassembly timeout (and RDMA read timeout) of the interface, wall-clock time: 2 s. */
constexpr uint64_t kIpReassemblyTimeoutPs = 2'000'000'000'000;

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

/** Restores the previous SIGINT and SIGTERM handlers when the mode ends. */
class StopSignals {
 public:
  StopSignals() : int_(std::signal(SIGINT, OnSignal)), term_(std::signal(SIGTERM, OnSignal)) {
    g_stop = 0;
  }
  ~StopSignals() {
    std::signal(SIGINT, int_);
    std::signal(SIGTERM, term_);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  void (*int_)(int);
  void (*term_)(int);
};

}  // namespace

bool RunIpMode(WireNode& node, const PolledPort& polled, const PortCommandOptions& options,
               uint32_t link_mtu, hw::CoreLauncher* adapter_core, nlohmann::json* summary) {
  // From here on a signal ends the run and the namespace is removed.
  const StopSignals signals;
  Result<std::unique_ptr<RdmaTask>> rdma_task =
      RdmaTask::Start(node, polled, options, link_mtu, adapter_core);
  if (!rdma_task.ok()) {
    (*summary)["error"] = rdma_task.status().message();
    return false;
  }
  hal::Port& port = (*rdma_task)->port();
  hal::TaskHost& host = (*rdma_task)->host();
  kernel::WallClock& wall = (*rdma_task)->wall();
  const std::vector<hal::Peer> members = {port.self(),
                                          hal::Peer{static_cast<uint16_t>(options.peer), 0}};
  ulp::ip::IpConfig config;
  // The interface's timers run on the wall clock of a host whose CPUs the two processes and
  // the socket programs share: the simulated default (10 ms) would abandon reassemblies whose
  // fragments are merely late. The kernel's own default (ipfrag_time) is 30 s.
  config.reassembly_timeout_ps = kIpReassemblyTimeoutPs;
  ulp::ip::IpInterface ip(port, host, config, members);
  // The microcode cuts RDMA data into packets of kRdmaPacketBytes: on a link whose frames are
  // smaller (net_memif's default) every datagram goes through the FIFOs.
  const bool rdma_fits = link_mtu >= RdmaFrameBytes();
  if (rdma_fits) {
    if (Status s = ip.EnableRdma(); !s.ok()) {
      (*summary)["error"] = s.message();
      return false;
    }
  }
  const std::string ns_name =
      options.netns.empty() ? "nicsim-port-" + std::to_string(options.node) : options.netns;
  std::unique_ptr<TunNamespace> ns = TunNamespace::Create(
      ns_name, ip.address(), static_cast<uint32_t>(options.tun_mtu), "nicsim port");
  if (ns == nullptr) {
    (*summary)["error"] = "namespace " + ns_name + " or its TUN device could not be set up";
    return false;
  }
  uint64_t from_tun = 0, to_tun = 0, refused = 0, not_written = 0;
  ip.OnDeliver([&](const ulp::ip::Header& h, const uint8_t* payload, uint32_t len) {
    if (ns->Write(h, payload, len)) {
      ++to_tun;
    } else {
      ++not_written;
    }
  });
  std::fprintf(stderr, "nicsim port: namespace %s, ipif0 %s, peer %s: ready\n", ns_name.c_str(),
               ns->address().c_str(),
               ulp::ip::FormatAddress(*ulp::ip::AddressOf(members[1])).c_str());
  const bool split = adapter_core != nullptr;  // Spin drains the backlog every turn.
  RunLoop loop(node, polled, RunLimits{TimeLimit(options), PortClock::duration::zero()});
  loop.Run([] { return g_stop != 0; },
           [&](PortClock::time_point) {
             from_tun += ns->Drain(ip, &refused);
             wall.RunDue();
             // Sends the FIFO had no room for wait in the HAL's backlog, which drains when a
             // send completion is seen; one that came before the backlog formed would leave
             // it waiting for the next traffic (fragments held back for seconds). Drain here.
             if (!split && node.endpoint().backlog() > 0) node.endpoint().DrainBacklog();
           });
  ip.OnDeliver(nullptr);
  const double wall_s = loop.wall_s();
  nlohmann::json j;
  j["namespace"] = ns_name;
  j["address"] = ns->address();
  j["tun_mtu"] = options.tun_mtu;
  j["rdma"] = rdma_fits;
  j["stopped_by_signal"] = g_stop != 0;
  j["wall_s"] = wall_s;
  j["from_tun"] = from_tun;
  j["to_tun"] = to_tun;
  j["refused"] = refused;
  j["not_written"] = not_written;
  nlohmann::json stats = nlohmann::json::object();
  for (const auto& f : ulp::ip::IpStats::Fields()) {
    if (ip.stats().*f.member != 0) stats[std::string(f.name)] = ip.stats().*f.member;
  }
  j["ip"] = stats;
  loop.ReportErrors(&j);
  *summary = j;
  ns.reset();  // The namespace goes before the summary is printed.
  wall.Clear();
  return loop.error_count() == 0;
}

}  // namespace nicsim::sim
