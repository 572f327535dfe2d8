// SPDX-License-Identifier: Apache-2.0
// Stream workload: one window floods another with equal packets; reports the simulated
// bandwidth and packet rate (the bench harness also times it on the wall clock).
#include <fmt/format.h>

#include <vector>

#include "sim/workloads/delivery_ledger.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

Result<WorkloadResult> RunStream(Cluster& cluster, const StreamConfig& config) {
  Result<std::pair<Endpoint*, Endpoint*>> pair = PickPair(cluster);
  if (!pair.ok()) return pair.status();
  Endpoint& a = *pair->first;
  Endpoint& b = *pair->second;
  if (config.size > a.max_payload()) {
    return Status::Error(fmt::format("stream.size: {} exceeds the largest single-packet payload {}",
                                     config.size, a.max_payload()));
  }
  WorkloadResult out;
  DeliveryLedger ledger("stream packet");
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
  {
    // The sender starts as its own node, like every later pump (which runs in its events).
    kernel::EventQueue::OwnerScope as_node(cluster.events(), cluster.NodeOf(a.addr().adapter));
    pump();
  }
  Status s = RunUntil(cluster, [&] { return ledger.delivered() >= config.packets; }, "stream");
  // Whatever is still in flight lands now, so a late duplicate is caught too.
  RunToQuiet(cluster);
  a.OnSendable(nullptr);
  b.OnReceive(nullptr);
  if (!s.ok()) out.Stall(s);
  ledger.Settle(out);
  const uint64_t received = ledger.delivered();
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
