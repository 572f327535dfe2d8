// SPDX-License-Identifier: Apache-2.0
// ip_exchange workload: one IP interface per node, seeded random datagrams (small unicast
// in one frame, large unicast in fragments, broadcasts to everyone), every byte checked at
// every receiver, each arrival counted per (sender, sequence, receiver).
#include "sim/workloads/ip_exchange.h"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <vector>

#include "base/rng.h"
#include "sim/observe/counters_json.h"
#include "ulp/ip/ip_interface.h"

namespace nicsim::sim {
namespace {

/** The IP protocol number the workload uses (253: for experiments, RFC 3692). */
constexpr uint8_t kProtocol = 253;
/** Every datagram starts with its sender's node and its sequence (4 bytes each). */
constexpr uint32_t kStampBytes = 8;

uint64_t DatagramKey(uint32_t src, uint32_t seq) { return (uint64_t{src} << 32) | seq; }

void Put32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
uint32_t Get32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

/** What one node has sent: per sequence number. */
struct SentLog {
  /** Destination node, or -1 for a broadcast. */
  std::vector<int32_t> dest;
  std::vector<uint32_t> size;
  /** Arrivals per receiver node: index seq * nodes + receiver. */
  std::vector<uint8_t> arrivals;
};

bool FaultsConfigured(const FabricConfig& f) {
  return f.loss > 0 || f.corrupt > 0 || !f.fault_rules.empty() || !f.outages.empty();
}

}  // namespace

Result<WorkloadResult> RunIpExchange(Cluster& cluster, const IpExchangeConfig& config) {
  const ClusterConfig& cc = cluster.config();
  const uint32_t nodes = cc.nodes;
  if (nodes < 2) return Status::Error("nodes: ip_exchange needs 2 nodes or more");
  if (!cluster.rdma_enabled()) {
    return Status::Error("ip_exchange: the cluster has no task address spaces (rdma_host_bytes)");
  }
  if (config.max_size < kStampBytes || config.max_size > ulp::ip::kMaxPayloadBytes) {
    return Status::Error(fmt::format("ip.max_size: {} is outside [{}, {}]", config.max_size,
                                     kStampBytes, ulp::ip::kMaxPayloadBytes));
  }
  std::vector<std::unique_ptr<hal::Port>> ports;
  std::vector<std::unique_ptr<hal::TaskHost>> hosts;
  std::vector<hal::Endpoint*> eps;
  std::vector<hal::Peer> members;
  for (uint32_t n = 0; n < nodes; ++n) {
    const uint32_t adapter = n * cc.adapters_per_node;
    ports.push_back(cluster.MakePort(adapter, 0));
    hosts.push_back(cluster.MakeTaskHost(n));
    members.push_back(ports.back()->self());
    for (WindowProcess* e : cluster.endpoints()) {
      if (e->addr().adapter == adapter && e->addr().window == 0) eps.push_back(e);
    }
  }
  if (eps.size() != nodes) return Status::Error("ip_exchange: window 0 missing on some node");
  ulp::ip::IpConfig ipc;
  ipc.reassembly_timeout_ps = config.reassembly_timeout_ps;
  ipc.rdma_threshold = static_cast<uint32_t>(config.rdma_threshold);
  ipc.rdma_slots = config.rdma_slots;
  std::vector<std::unique_ptr<ulp::ip::IpInterface>> ifs;
  for (uint32_t n = 0; n < nodes; ++n) {
    ifs.push_back(std::make_unique<ulp::ip::IpInterface>(*ports[n], *hosts[n], ipc, members));
    if (config.rdma_threshold < ulp::ip::kMaxPayloadBytes) {
      if (Status st = ifs.back()->EnableRdma(); !st.ok())
        return Status::Error("ip_exchange: " + st.message());
    }
  }
  // Payload that fits one frame with its header: "small".
  const uint32_t one_frame =
      std::min(ports[0]->max_payload(), ipc.frame_bytes) - ulp::ip::kHeaderBytes;
  const auto max_size = static_cast<uint32_t>(config.max_size);

  WorkloadResult out;
  std::vector<Rng> rngs;
  for (uint32_t n = 0; n < nodes; ++n)
    rngs.emplace_back(cc.seed, "ip_exchange/" + std::to_string(n));
  std::vector<SentLog> logs(nodes);
  std::vector<uint64_t> quota(nodes, config.datagrams / nodes);
  for (uint64_t i = 0; i < config.datagrams % nodes; ++i) ++quota[i];
  uint64_t expected = 0;  // arrivals expected in all
  uint64_t small = 0, large = 0, broadcasts = 0;
  std::vector<uint8_t> buf(max_size);
  uint64_t sent_done = 0;  // nodes that have sent their quota

  auto pump = [&](uint32_t src) {
    SentLog& log = logs[src];
    Rng& rng = rngs[src];
    while (log.dest.size() < quota[src] && eps[src]->backlog() == 0) {
      const auto seq = static_cast<uint32_t>(log.dest.size());
      const bool broadcast = rng.Below(100) < config.broadcast_percent;
      const bool big = max_size > one_frame && rng.Below(2) == 1;
      const uint32_t lo = big ? one_frame + 1 : kStampBytes;
      const uint32_t hi = big ? max_size : std::min(one_frame, max_size);
      const auto size = static_cast<uint32_t>(rng.Between(lo, hi));
      int32_t dest = -1;
      if (!broadcast) {
        auto d = static_cast<uint32_t>(rng.Below(nodes - 1));
        if (d >= src) ++d;
        dest = static_cast<int32_t>(d);
      }
      log.dest.push_back(dest);
      log.size.push_back(size);
      log.arrivals.resize(log.arrivals.size() + nodes, 0);
      Put32(buf.data(), src);
      Put32(buf.data() + 4, seq);
      FillPattern(buf.data() + kStampBytes, size - kStampBytes, DatagramKey(src, seq));
      const uint32_t dst_ip =
          broadcast ? ulp::ip::kLimitedBroadcast : ifs[static_cast<uint32_t>(dest)]->address();
      Status s = ifs[src]->Send(dst_ip, kProtocol, buf.data(), size);
      if (!s.ok()) {
        out.AddError(fmt::format("node {} could not send datagram {}: {}", src, seq, s.message()));
        return;
      }
      ++out.messages_sent;
      expected += broadcast ? nodes - 1 : 1;
      ++(broadcast ? broadcasts : (size > one_frame ? large : small));
      if (log.dest.size() == quota[src]) ++sent_done;
    }
  };
  for (uint32_t n = 0; n < nodes; ++n) {
    eps[n]->OnSendable([&pump, n] { pump(n); });
    ifs[n]->OnDeliver([&, n](const ulp::ip::Header& h, const uint8_t* p, uint32_t len) {
      if (h.protocol != kProtocol || len < kStampBytes) {
        ++out.messages_damaged;
        out.AddError(
            fmt::format("node {} got a datagram of {} bytes, protocol {}", n, len, h.protocol));
        return;
      }
      const uint32_t src = Get32(p);
      const uint32_t seq = Get32(p + 4);
      if (src >= nodes || seq >= logs[src].dest.size() || ifs[src]->address() != h.src) {
        ++out.messages_damaged;
        out.AddError(fmt::format("node {} got a datagram stamped {}:{} from {}", n, src, seq,
                                 ulp::ip::FormatAddress(h.src)));
        return;
      }
      SentLog& log = logs[src];
      const int32_t dest = log.dest[seq];
      if (dest >= 0 && static_cast<uint32_t>(dest) != n) {
        out.AddError(
            fmt::format("datagram {}:{} for node {} arrived at node {}", src, seq, dest, n));
      } else if (len != log.size[seq] ||
                 !CheckPattern(p + kStampBytes, len - kStampBytes, DatagramKey(src, seq))) {
        ++out.messages_damaged;
        out.AddError(fmt::format("datagram {}:{} arrived at node {} with wrong bytes ({} of {})",
                                 src, seq, n, len, log.size[seq]));
      } else if (log.arrivals[uint64_t{seq} * nodes + n]++ > 0) {
        ++out.messages_duplicated;
        out.AddError(fmt::format("datagram {}:{} delivered twice at node {}", src, seq, n));
      } else {
        ++out.messages_delivered;
        out.bytes_delivered += len;
      }
    });
  }
  const uint64_t start_ps = cluster.events().now_ps();
  uint64_t last_ps = start_ps;
  for (uint32_t n = 0; n < nodes; ++n) pump(n);
  Status s = RunUntil(
      cluster,
      [&] { return sent_done == nodes && out.messages_delivered + out.error_count >= expected; },
      "ip_exchange");
  last_ps = cluster.events().now_ps();
  // Late copies land and unfinished reassemblies time out.
  RunToQuiet(cluster);
  const bool faults = FaultsConfigured(cc.fabric);
  // Under faults the run stops on the quiet fabric instead: a lost datagram never completes.
  if (!s.ok() && faults && sent_done == nodes && !PastTimeLimit(cluster)) s = Status();
  ulp::ip::IpStats total;
  uint64_t pending = 0;
  for (uint32_t n = 0; n < nodes; ++n) {
    eps[n]->OnSendable(nullptr);
    total += ifs[n]->stats();
    pending += ifs[n]->pending_reassemblies();
  }
  if (!s.ok()) out.Stall(s);
  const uint64_t lost = expected - std::min(expected, out.messages_delivered);
  out.messages_lost = lost;
  // IP does not retransmit, so under fabric faults losses are expected; the run still fails
  // (exit 1): the verdict says whether every message arrived once, whatever the cause.
  if (lost > 0) {
    out.AddError(faults ? fmt::format("{} datagram arrivals lost to the fabric's faults (IP over "
                                      "the adapter does not retransmit)",
                                      lost)
                        : fmt::format("{} datagram arrivals missing with no fabric fault "
                                      "configured",
                                      lost));
  }
  if (pending > 0)
    out.AddError(fmt::format("{} reassemblies still pending after the run", pending));
  const nlohmann::json ip = CountersJson(total);
  const double seconds = static_cast<double>(last_ps - start_ps) * 1e-12;
  out.results = {{"workload", "ip_exchange"},
                 {"nodes", nodes},
                 {"datagrams", out.messages_sent},
                 {"small_unicast", small},
                 {"large_unicast", large},
                 {"broadcasts", broadcasts},
                 {"arrivals_expected", expected},
                 {"arrivals", out.messages_delivered},
                 {"lost_to_faults", faults ? lost : 0},
                 {"simulated_seconds", seconds},
                 {"ip", ip},
                 {"errors", out.error_count}};
  out.table = fmt::format(
      "{:>6}  {:>10}  {:>9}  {:>9}  {:>10}  {:>10}  {:>12}  {:>8}  {:>8}\n"
      "{:>6}  {:>10}  {:>9}  {:>9}  {:>10}  {:>10}  {:>12}  {:>8}  {:>8}\n",
      "nodes", "datagrams", "small", "large", "broadcast", "arrivals", "bytes", "lost", "errors",
      nodes, out.messages_sent, small, large, broadcasts, out.messages_delivered,
      out.bytes_delivered, lost, out.error_count);
  for (uint32_t n = 0; n < nodes; ++n) ifs[n]->OnDeliver(nullptr);
  return out;
}

}  // namespace nicsim::sim
