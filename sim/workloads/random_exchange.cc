// SPDX-License-Identifier: Apache-2.0
// Random exchange: every window sends its share of messages, each to a random other window
// with a random size; receivers check every byte and that each message arrives exactly once.
#include <fmt/format.h>

#include <map>
#include <vector>

#include "base/rng.h"
#include "sim/workloads/merge_results.h"
#include "sim/distrib/split_run.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

/** What one sender has sent: per sequence number, destination and size. */
struct SenderLog {
  std::vector<uint32_t> dest;  // endpoint index
  std::vector<uint16_t> size;
  std::vector<uint8_t> arrivals;
};

uint64_t MessageKey(size_t src, uint32_t seq) { return (uint64_t{src} << 32) | seq; }

/** One run: every window's stream of draws, what each sent, what arrived. */
class RandomExchange {
 public:
  RandomExchange(Cluster& cluster, const ExchangeConfig& config, uint32_t max_size)
      : cluster_(cluster),
        config_(config),
        eps_(cluster.endpoints()),
        max_size_(max_size),
        logs_(eps_.size()),
        quota_(eps_.size(), config.messages / eps_.size()),
        buf_(eps_[0]->max_payload()),
        windows_(cluster.windows()) {
    for (size_t i = 0; i < eps_.size(); ++i) {
      index_of_[{eps_[i]->addr().adapter, eps_[i]->addr().window}] = i;
      // One stream per sender: what a sender sends does not depend on when it gets to send it.
      rngs_.emplace_back(cluster.config().seed, "random_exchange/" + std::to_string(i));
    }
    for (size_t i = 0; i < config.messages % eps_.size(); ++i) ++quota_[i];
  }

  Result<WorkloadResult> Run() {
    for (size_t i = 0; i < eps_.size(); ++i) {
      eps_[i]->OnSendable([this, i] { Pump(i); });
      eps_[i]->OnReceive([this, i](const hal::RecvPacket& p) { OnReceive(i, p); });
    }
    for (size_t i = 0; i < eps_.size(); ++i) {
      if (!IsLocal(i)) continue;  // its own process starts it
      // Each sender starts as its own node, like every later pump (which runs in its events).
      kernel::EventQueue::OwnerScope as_node(cluster_.events(),
                                             cluster_.NodeOf(eps_[i]->addr().adapter));
      Pump(i);
    }
    // Every partition runs to the end (no stop when done: it would need a global test per
    // event), or to run.time_limit.
    Result<uint64_t> stall_ps = RunWindowsToEnd(cluster_);
    if (!stall_ps.ok()) return stall_ps.status();
    for (WindowProcess* ep : eps_) {
      ep->OnSendable(nullptr);
      ep->OnReceive(nullptr);
    }
    WorkloadResult out = MergeResults(windows_.world(), out_);
    if (out.messages_delivered + out.error_count < config_.messages) {
      out.Stall(StalledError(cluster_, "random_exchange", *stall_ps));
    }
    // A message is lost when it never arrived intact: sent less delivered, in any partition.
    const uint64_t lost = out.messages_sent - out.messages_delivered;
    out.messages_lost = lost;
    if (lost > 0) out.AddError(fmt::format("{} messages never arrived", lost));
    out.table = fmt::format("{:>10}  {:>10}  {:>12}  {:>8}\n{:>10}  {:>10}  {:>12}  {:>8}\n",
                            "windows", "messages", "bytes", "errors", eps_.size(),
                            out.messages_delivered, out.bytes_delivered, out.error_count);
    out.results = {
        {"workload", "random_exchange"}, {"windows", eps_.size()}, {"messages", config_.messages},
        {"max_size", max_size_},         {"lost", lost},           {"errors", out.error_count}};
    return out;
  }

 private:
  /** A sender's next message: its destination and size, drawn from the sender's stream. */
  void DrawNext(size_t src) {
    SenderLog& log = logs_[src];
    Rng& rng = rngs_[src];
    auto dest = static_cast<uint32_t>(rng.Below(eps_.size() - 1));
    if (dest >= src) ++dest;  // never to itself
    log.dest.push_back(dest);
    log.size.push_back(static_cast<uint16_t>(rng.Between(0, max_size_)));
    log.arrivals.push_back(0);
  }

  /** One process runs in windows of its own too, so a limit stops it at the same window as
   *  any split (Cluster::windows). */
  bool IsLocal(size_t ep) const {
    return windows_.IsLocalNode(cluster_.NodeOf(eps_[ep]->addr().adapter));
  }

  void Pump(size_t src) {
    WindowProcess& ep = *eps_[src];
    SenderLog& log = logs_[src];
    while (log.dest.size() < quota_[src] && ep.backlog() == 0) {
      const auto seq = static_cast<uint32_t>(log.dest.size());
      DrawNext(src);
      const uint32_t dest = log.dest[seq];
      const uint32_t size = log.size[seq];
      FillPattern(buf_.data(), size, MessageKey(src, seq));
      ep.Send(eps_[dest]->addr(), buf_.data(), size, seq);
      ++out_.messages_sent;
    }
  }

  /** Checks a message window `i` received: sender, destination, bytes, first arrival. */
  void OnReceive(size_t i, const hal::RecvPacket& p) {
    auto it = index_of_.find({p.header.src_adapter, p.header.src_window});
    const uint32_t seq = p.header.ulp_word;
    // A sender in another partition sent it: replay that sender's draws up to it here.
    if (it != index_of_.end() && !IsLocal(it->second) && seq < quota_[it->second]) {
      while (logs_[it->second].dest.size() <= seq) DrawNext(it->second);
    }
    const kernel::EventQueue& events = cluster_.events();
    if (it == index_of_.end() || seq >= logs_[it->second].dest.size()) {
      out_.AddErrorAt(events.now_ps(), events.running_tie(),
                      fmt::format("window {} got a message from unknown sender {}:{} seq {}", i,
                                  p.header.src_adapter, p.header.src_window, seq));
      return;
    }
    const size_t src = it->second;
    SenderLog& log = logs_[src];
    if (log.dest[seq] != i) {
      out_.AddErrorAt(events.now_ps(), events.running_tie(),
                      fmt::format("message {}:{} for window {} arrived at window {}", src, seq,
                                  log.dest[seq], i));
    } else if (p.header.len_bytes != log.size[seq] ||
               !CheckPattern(p.payload, p.header.len_bytes, MessageKey(src, seq))) {
      ++out_.messages_damaged;
      out_.AddErrorAt(events.now_ps(), events.running_tie(),
                      fmt::format("message {}:{} arrived with wrong bytes ({} of {})", src, seq,
                                  p.header.len_bytes, log.size[seq]));
    } else if (log.arrivals[seq]++ > 0) {
      ++out_.messages_duplicated;
      out_.AddErrorAt(events.now_ps(), events.running_tie(),
                      fmt::format("message {}:{} delivered twice", src, seq));
    } else {
      ++out_.messages_delivered;
      out_.bytes_delivered += p.header.len_bytes;
      if (config_.on_delivered) config_.on_delivered(src, seq, i, p.payload, p.header.len_bytes);
    }
  }

  Cluster& cluster_;
  const ExchangeConfig& config_;
  const std::vector<WindowProcess*> eps_;
  const uint32_t max_size_;
  std::map<std::pair<uint16_t, uint16_t>, size_t> index_of_;
  std::vector<Rng> rngs_;
  std::vector<SenderLog> logs_;
  std::vector<uint64_t> quota_;
  std::vector<uint8_t> buf_;
  distrib::SplitRun& windows_;
  WorkloadResult out_;
};

}  // namespace

Result<WorkloadResult> RunRandomExchange(Cluster& cluster, const ExchangeConfig& config) {
  const std::vector<WindowProcess*> eps = cluster.endpoints();
  if (eps.size() < 2) return Status::Error("random_exchange needs at least two windows");
  const uint32_t max_payload = eps[0]->max_payload();
  if (config.max_size > static_cast<int64_t>(max_payload)) {
    return Status::Error(
        fmt::format("exchange.max_size: {} exceeds the largest single-packet payload {}",
                    config.max_size, max_payload));
  }
  const uint32_t max_size =
      config.max_size < 0 ? max_payload : static_cast<uint32_t>(config.max_size);
  return RandomExchange(cluster, config, max_size).Run();
}

}  // namespace nicsim::sim
