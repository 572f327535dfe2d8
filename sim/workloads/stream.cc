// SPDX-License-Identifier: Apache-2.0
// Stream workload: one window floods another with equal packets; reports the simulated
// bandwidth and packet rate (the bench harness also times it on the wall clock).
#include <fmt/format.h>

#include <vector>

#include "sim/workloads/merge_results.h"
#include "sim/distrib/split_run.h"
#include "sim/workloads/delivery_ledger.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

Result<WorkloadResult> RunStream(Cluster& cluster, const StreamConfig& config) {
  Result<std::pair<WindowProcess*, WindowProcess*>> pair = PickPair(cluster);
  if (!pair.ok()) return pair.status();
  WindowProcess& a = *pair->first;
  WindowProcess& b = *pair->second;
  if (config.size > a.max_payload()) {
    return Status::Error(fmt::format("stream.size: {} exceeds the largest single-packet payload {}",
                                     config.size, a.max_payload()));
  }
  // Split or not, the stream runs in the cluster's windows: the sender's process sends, the
  // receiver's checks (Cluster::windows).
  distrib::SplitRun& windows = cluster.windows();
  distrib::Collectives& world = windows.world();
  const bool sends = windows.IsLocalNode(cluster.NodeOf(a.addr().adapter));
  const bool receives = windows.IsLocalNode(cluster.NodeOf(b.addr().adapter));
  WorkloadResult out;
  DeliveryLedger ledger("stream packet");
  ledger.KeyErrorsBy(&cluster.events());
  if (receives && !sends) ledger.MayArrive(config.packets);
  std::vector<uint8_t> buf(config.size);
  uint64_t sent = 0;
  const uint64_t start_ps = cluster.events().now_ps();
  uint64_t end_ps = start_ps;
  auto pump = [&] {
    while (sent < config.packets && a.CanSendNow()) {
      FillPattern(buf.data(), config.size, sent);
      a.Send(b.addr(), buf.data(), config.size, static_cast<uint32_t>(sent));
      ledger.Sent(sent, out);
      ++sent;
    }
  };
  a.OnSendable(pump);
  b.OnReceive([&](const hal::RecvPacket& p) {
    const bool intact = p.header.len_bytes == config.size &&
                        CheckPattern(p.payload, config.size, p.header.ulp_word);
    if (ledger.Arrived(p.header.ulp_word, intact, p.header.len_bytes, out)) {
      end_ps = cluster.events().now_ps();
    }
  });
  if (sends) {
    // The sender starts as its own node, like every later pump (which runs in its events).
    kernel::EventQueue::OwnerScope as_node(cluster.events(), cluster.NodeOf(a.addr().adapter));
    pump();
  }
  // To the end (a late duplicate is caught too) or to run.time_limit.
  Result<uint64_t> stall_ps = RunWindowsToEnd(cluster);
  if (!stall_ps.ok()) return stall_ps.status();
  a.OnSendable(nullptr);
  b.OnReceive(nullptr);
  const uint64_t received = world.Sum(ledger.delivered());
  if (received < config.packets) {
    // One process says it (the merge counts the errors of every process).
    if (world.rank() == 0) {
      out.Stall(StalledError(cluster, "stream", *stall_ps));
    } else {
      out.stalled = true;
    }
  }
  const uint64_t sent_everywhere = world.Sum(sends ? ledger.sent() : 0);
  if (receives) ledger.Settle(out, sent_everywhere);
  end_ps = world.Max(end_ps);
  out = MergeResults(world, out);
  const double seconds = static_cast<double>(end_ps - start_ps) * 1e-12;
  const double mbps = seconds > 0 ? static_cast<double>(out.bytes_delivered) / seconds / 1e6 : 0;
  const double mpps = seconds > 0 ? static_cast<double>(received) / seconds / 1e6 : 0;
  out.table = fmt::format("{:>10}  {:>10}  {:>14}  {:>10}\n{:>10}  {:>10}  {:>14.1f}  {:>10.3f}\n",
                          "size_B", "packets", "bandwidth_MB/s", "Mpkt/s", config.size, received,
                          mbps, mpps);
  out.results = {{"workload", "stream"},
                 {"size_bytes", config.size},
                 {"packets", received},
                 {"bandwidth_mbps", mbps},
                 {"packet_rate_mpps", mpps}};
  return out;
}

}  // namespace nicsim::sim
