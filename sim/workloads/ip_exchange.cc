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

/** One run of the workload: the interfaces, what each node sent, what arrived. */
class IpExchange {
 public:
  IpExchange(Cluster& cluster, const IpExchangeConfig& config)
      : cluster_(cluster),
        config_(config),
        nodes_(cluster.config().nodes),
        max_size_(static_cast<uint32_t>(config.max_size)),
        logs_(nodes_),
        quota_(nodes_, config.datagrams / nodes_),
        buf_(max_size_) {
    for (uint64_t i = 0; i < config.datagrams % nodes_; ++i) ++quota_[i];
    for (uint32_t n = 0; n < nodes_; ++n) {
      rngs_.emplace_back(cluster.config().seed, "ip_exchange/" + std::to_string(n));
    }
  }

  /** A port, a task host and an IP interface on window 0 of each node's first adapter. */
  Status Setup() {
    const ClusterConfig& cc = cluster_.config();
    std::vector<hal::Peer> members;
    for (uint32_t n = 0; n < nodes_; ++n) {
      const uint32_t adapter = n * cc.adapters_per_node;
      ports_.push_back(cluster_.MakePort(adapter, 0));
      hosts_.push_back(cluster_.MakeTaskHost(n));
      members.push_back(ports_.back()->self());
      for (WindowProcess* e : cluster_.endpoints()) {
        if (e->addr().adapter == adapter && e->addr().window == 0) eps_.push_back(e);
      }
    }
    if (eps_.size() != nodes_) return Status::Error("ip_exchange: window 0 missing on some node");
    ulp::ip::IpConfig ipc;
    ipc.reassembly_timeout_ps = config_.reassembly_timeout_ps;
    ipc.rdma_threshold = static_cast<uint32_t>(config_.rdma_threshold);
    ipc.rdma_slots = config_.rdma_slots;
    for (uint32_t n = 0; n < nodes_; ++n) {
      ifs_.push_back(std::make_unique<ulp::ip::IpInterface>(*ports_[n], *hosts_[n], ipc, members));
      if (config_.rdma_threshold < ulp::ip::kMaxPayloadBytes) {
        if (Status st = ifs_.back()->EnableRdma(); !st.ok())
          return Status::Error("ip_exchange: " + st.message());
      }
    }
    // Payload that fits one frame with its header: "small".
    one_frame_ = std::min(ports_[0]->max_payload(), ipc.frame_bytes) - ulp::ip::kHeaderBytes;
    return Status();
  }

  /** Sends every datagram, runs until all arrived (or the fabric is quiet) and reports. */
  WorkloadResult Run() {
    for (uint32_t n = 0; n < nodes_; ++n) {
      eps_[n]->OnSendable([this, n] { Pump(n); });
      ifs_[n]->OnDeliver([this, n](const ulp::ip::Header& h, const uint8_t* p, uint32_t len) {
        OnDeliver(n, h, p, len);
      });
    }
    const uint64_t start_ps = cluster_.events().now_ps();
    for (uint32_t n = 0; n < nodes_; ++n) Pump(n);
    Status s = RunUntil(
        cluster_,
        [&] {
          return sent_done_ == nodes_ && out_.messages_delivered + out_.error_count >= expected_;
        },
        "ip_exchange");
    const uint64_t last_ps = cluster_.events().now_ps();
    // Late copies land and unfinished reassemblies time out.
    RunToQuiet(cluster_);
    const bool faults = FaultsConfigured(cluster_.config().fabric);
    // Under faults the run stops on the quiet fabric instead: a lost datagram never completes.
    if (!s.ok() && faults && sent_done_ == nodes_ && !PastTimeLimit(cluster_)) s = Status();
    if (!s.ok()) out_.Stall(s);
    Report(faults, static_cast<double>(last_ps - start_ps) * 1e-12);
    for (uint32_t n = 0; n < nodes_; ++n) ifs_[n]->OnDeliver(nullptr);
    return out_;
  }

 private:
  /** Sends node `src`'s next datagrams while its window takes them. */
  void Pump(uint32_t src) {
    SentLog& log = logs_[src];
    Rng& rng = rngs_[src];
    while (log.dest.size() < quota_[src] && eps_[src]->backlog() == 0) {
      const auto seq = static_cast<uint32_t>(log.dest.size());
      const bool broadcast = rng.Below(100) < config_.broadcast_percent;
      const bool big = max_size_ > one_frame_ && rng.Below(2) == 1;
      const uint32_t lo = big ? one_frame_ + 1 : kStampBytes;
      const uint32_t hi = big ? max_size_ : std::min(one_frame_, max_size_);
      const auto size = static_cast<uint32_t>(rng.Between(lo, hi));
      int32_t dest = -1;
      if (!broadcast) {
        auto d = static_cast<uint32_t>(rng.Below(nodes_ - 1));
        if (d >= src) ++d;
        dest = static_cast<int32_t>(d);
      }
      log.dest.push_back(dest);
      log.size.push_back(size);
      log.arrivals.resize(log.arrivals.size() + nodes_, 0);
      Put32(buf_.data(), src);
      Put32(buf_.data() + 4, seq);
      FillPattern(buf_.data() + kStampBytes, size - kStampBytes, DatagramKey(src, seq));
      const uint32_t dst_ip =
          broadcast ? ulp::ip::kLimitedBroadcast : ifs_[static_cast<uint32_t>(dest)]->address();
      Status s = ifs_[src]->Send(dst_ip, kProtocol, buf_.data(), size);
      if (!s.ok()) {
        out_.AddError(fmt::format("node {} could not send datagram {}: {}", src, seq, s.message()));
        return;
      }
      ++out_.messages_sent;
      expected_ += broadcast ? nodes_ - 1 : 1;
      ++(broadcast ? broadcasts_ : (size > one_frame_ ? large_ : small_));
      if (log.dest.size() == quota_[src]) ++sent_done_;
    }
  }

  /** Checks a datagram node `n` received: stamp, destination, bytes, first arrival. */
  void OnDeliver(uint32_t n, const ulp::ip::Header& h, const uint8_t* p, uint32_t len) {
    if (h.protocol != kProtocol || len < kStampBytes) {
      ++out_.messages_damaged;
      out_.AddError(
          fmt::format("node {} got a datagram of {} bytes, protocol {}", n, len, h.protocol));
      return;
    }
    const uint32_t src = Get32(p);
    const uint32_t seq = Get32(p + 4);
    if (src >= nodes_ || seq >= logs_[src].dest.size() || ifs_[src]->address() != h.src) {
      ++out_.messages_damaged;
      out_.AddError(fmt::format("node {} got a datagram stamped {}:{} from {}", n, src, seq,
                                ulp::ip::FormatAddress(h.src)));
      return;
    }
    SentLog& log = logs_[src];
    const int32_t dest = log.dest[seq];
    if (dest >= 0 && static_cast<uint32_t>(dest) != n) {
      out_.AddError(
          fmt::format("datagram {}:{} for node {} arrived at node {}", src, seq, dest, n));
    } else if (len != log.size[seq] ||
               !CheckPattern(p + kStampBytes, len - kStampBytes, DatagramKey(src, seq))) {
      ++out_.messages_damaged;
      out_.AddError(fmt::format("datagram {}:{} arrived at node {} with wrong bytes ({} of {})",
                                src, seq, n, len, log.size[seq]));
    } else if (log.arrivals[uint64_t{seq} * nodes_ + n]++ > 0) {
      ++out_.messages_duplicated;
      out_.AddError(fmt::format("datagram {}:{} delivered twice at node {}", src, seq, n));
    } else {
      ++out_.messages_delivered;
      out_.bytes_delivered += len;
    }
  }

  /** Losses and pending reassemblies as errors, the results and the table. */
  void Report(bool faults, double seconds) {
    ulp::ip::IpStats total;
    uint64_t pending = 0;
    for (uint32_t n = 0; n < nodes_; ++n) {
      eps_[n]->OnSendable(nullptr);
      total += ifs_[n]->stats();
      pending += ifs_[n]->pending_reassemblies();
    }
    const uint64_t lost = expected_ - std::min(expected_, out_.messages_delivered);
    out_.messages_lost = lost;
    // IP does not retransmit, so under fabric faults losses are expected; the run still fails
    // (exit 1): the verdict says whether every message arrived once, whatever the cause.
    if (lost > 0) {
      out_.AddError(faults ? fmt::format("{} datagram arrivals lost to the fabric's faults (IP "
                                         "over the adapter does not retransmit)",
                                         lost)
                           : fmt::format("{} datagram arrivals missing with no fabric fault "
                                         "configured",
                                         lost));
    }
    if (pending > 0)
      out_.AddError(fmt::format("{} reassemblies still pending after the run", pending));
    out_.results = {{"workload", "ip_exchange"},
                    {"nodes", nodes_},
                    {"datagrams", out_.messages_sent},
                    {"small_unicast", small_},
                    {"large_unicast", large_},
                    {"broadcasts", broadcasts_},
                    {"arrivals_expected", expected_},
                    {"arrivals", out_.messages_delivered},
                    {"lost_to_faults", faults ? lost : 0},
                    {"simulated_seconds", seconds},
                    {"ip", CountersJson(total)},
                    {"errors", out_.error_count}};
    out_.table = fmt::format(
        "{:>6}  {:>10}  {:>9}  {:>9}  {:>10}  {:>10}  {:>12}  {:>8}  {:>8}\n"
        "{:>6}  {:>10}  {:>9}  {:>9}  {:>10}  {:>10}  {:>12}  {:>8}  {:>8}\n",
        "nodes", "datagrams", "small", "large", "broadcast", "arrivals", "bytes", "lost", "errors",
        nodes_, out_.messages_sent, small_, large_, broadcasts_, out_.messages_delivered,
        out_.bytes_delivered, lost, out_.error_count);
  }

  Cluster& cluster_;
  const IpExchangeConfig& config_;
  const uint32_t nodes_;
  const uint32_t max_size_;
  uint32_t one_frame_ = 0;
  std::vector<std::unique_ptr<hal::Port>> ports_;
  std::vector<std::unique_ptr<hal::TaskHost>> hosts_;
  std::vector<hal::Endpoint*> eps_;
  std::vector<std::unique_ptr<ulp::ip::IpInterface>> ifs_;
  std::vector<Rng> rngs_;
  std::vector<SentLog> logs_;
  std::vector<uint64_t> quota_;
  std::vector<uint8_t> buf_;
  WorkloadResult out_;
  uint64_t expected_ = 0;  // arrivals expected in all
  uint64_t small_ = 0, large_ = 0, broadcasts_ = 0;
  uint64_t sent_done_ = 0;  // nodes that have sent their quota
};

}  // namespace

Result<WorkloadResult> RunIpExchange(Cluster& cluster, const IpExchangeConfig& config) {
  if (cluster.config().nodes < 2) return Status::Error("nodes: ip_exchange needs 2 nodes or more");
  if (!cluster.rdma_enabled()) {
    return Status::Error("ip_exchange: the cluster has no task address spaces (rdma_host_bytes)");
  }
  if (config.max_size < kStampBytes || config.max_size > ulp::ip::kMaxPayloadBytes) {
    return Status::Error(fmt::format("ip.max_size: {} is outside [{}, {}]", config.max_size,
                                     kStampBytes, ulp::ip::kMaxPayloadBytes));
  }
  IpExchange run(cluster, config);
  if (Status s = run.Setup(); !s.ok()) return s;
  return run.Run();
}

}  // namespace nicsim::sim
