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
  std::map<std::pair<uint16_t, uint16_t>, size_t> index_of;
  for (size_t i = 0; i < eps.size(); ++i)
    index_of[{eps[i]->addr().adapter, eps[i]->addr().window}] = i;

  WorkloadResult out;
  // One stream per sender: what a sender sends does not depend on when it gets to send it.
  std::vector<Rng> rngs;
  for (size_t i = 0; i < eps.size(); ++i) {
    rngs.emplace_back(cluster.config().seed, "random_exchange/" + std::to_string(i));
  }
  std::vector<SenderLog> logs(eps.size());
  std::vector<uint64_t> quota(eps.size(), config.messages / eps.size());
  for (size_t i = 0; i < config.messages % eps.size(); ++i) ++quota[i];
  std::vector<uint8_t> buf(max_payload);

  // A sender's next message: its destination and size, drawn from the sender's stream.
  auto draw_next = [&](size_t src) {
    SenderLog& log = logs[src];
    Rng& rng = rngs[src];
    auto dest = static_cast<uint32_t>(rng.Below(eps.size() - 1));
    if (dest >= src) ++dest;  // never to itself
    log.dest.push_back(dest);
    log.size.push_back(static_cast<uint16_t>(rng.Between(0, max_size)));
    log.arrivals.push_back(0);
  };
  // One process runs in windows of its own too, so a limit stops it at the same window as
  // any split (Cluster::windows).
  distrib::SplitRun& windows = cluster.windows();
  auto is_local = [&](size_t ep) {
    return windows.IsLocalNode(cluster.NodeOf(eps[ep]->addr().adapter));
  };
  auto pump = [&](size_t src) {
    WindowProcess& ep = *eps[src];
    SenderLog& log = logs[src];
    while (log.dest.size() < quota[src] && ep.backlog() == 0) {
      const auto seq = static_cast<uint32_t>(log.dest.size());
      draw_next(src);
      const uint32_t dest = log.dest[seq];
      const uint32_t size = log.size[seq];
      FillPattern(buf.data(), size, MessageKey(src, seq));
      ep.Send(eps[dest]->addr(), buf.data(), size, seq);
      ++out.messages_sent;
    }
  };
  for (size_t i = 0; i < eps.size(); ++i) {
    eps[i]->OnSendable([&pump, i] { pump(i); });
    eps[i]->OnReceive([&, i](const hal::RecvPacket& p) {
      auto it = index_of.find({p.header.src_adapter, p.header.src_window});
      const uint32_t seq = p.header.ulp_word;
      // A sender in another partition sent it: replay that sender's draws up to it here.
      if (it != index_of.end() && !is_local(it->second) && seq < quota[it->second]) {
        while (logs[it->second].dest.size() <= seq) draw_next(it->second);
      }
      const kernel::EventQueue& events = cluster.events();
      if (it == index_of.end() || seq >= logs[it->second].dest.size()) {
        out.AddErrorAt(events.now_ps(), events.running_tie(),
                       fmt::format("window {} got a message from unknown sender {}:{} seq {}", i,
                                   p.header.src_adapter, p.header.src_window, seq));
        return;
      }
      const size_t src = it->second;
      SenderLog& log = logs[src];
      if (log.dest[seq] != i) {
        out.AddErrorAt(events.now_ps(), events.running_tie(),
                       fmt::format("message {}:{} for window {} arrived at window {}", src, seq,
                                   log.dest[seq], i));
      } else if (p.header.len_bytes != log.size[seq] ||
                 !CheckPattern(p.payload, p.header.len_bytes, MessageKey(src, seq))) {
        ++out.messages_damaged;
        out.AddErrorAt(events.now_ps(), events.running_tie(),
                       fmt::format("message {}:{} arrived with wrong bytes ({} of {})", src, seq,
                                   p.header.len_bytes, log.size[seq]));
      } else if (log.arrivals[seq]++ > 0) {
        ++out.messages_duplicated;
        out.AddErrorAt(events.now_ps(), events.running_tie(),
                       fmt::format("message {}:{} delivered twice", src, seq));
      } else {
        ++out.messages_delivered;
        out.bytes_delivered += p.header.len_bytes;
        if (config.on_delivered) config.on_delivered(src, seq, i, p.payload, p.header.len_bytes);
      }
    });
  }
  for (size_t i = 0; i < eps.size(); ++i) {
    if (!is_local(i)) continue;  // its own process starts it
    // Each sender starts as its own node, like every later pump (which runs in its events).
    kernel::EventQueue::OwnerScope as_node(cluster.events(),
                                           cluster.NodeOf(eps[i]->addr().adapter));
    pump(i);
  }
  // Every partition runs to the end (no stop when done: it would need a global test per
  // event), or to run.time_limit.
  Result<uint64_t> stall_ps = RunWindowsToEnd(cluster);
  if (!stall_ps.ok()) return stall_ps.status();
  for (WindowProcess* ep : eps) {
    ep->OnSendable(nullptr);
    ep->OnReceive(nullptr);
  }
  out = MergeResults(windows.world(), out);
  if (out.messages_delivered + out.error_count < config.messages) {
    out.Stall(StalledError(cluster, "random_exchange", *stall_ps));
  }
  // A message is lost when it never arrived intact: sent less delivered, in any partition.
  const uint64_t lost = out.messages_sent - out.messages_delivered;
  out.messages_lost = lost;
  if (lost > 0) out.AddError(fmt::format("{} messages never arrived", lost));
  out.table = fmt::format("{:>10}  {:>10}  {:>12}  {:>8}\n{:>10}  {:>10}  {:>12}  {:>8}\n",
                          "windows", "messages", "bytes", "errors", eps.size(),
                          out.messages_delivered, out.bytes_delivered, out.error_count);
  out.results = {
      {"workload", "random_exchange"}, {"windows", eps.size()}, {"messages", config.messages},
      {"max_size", max_size},          {"lost", lost},          {"errors", out.error_count}};
  return out;
}

}  // namespace nicsim::sim
