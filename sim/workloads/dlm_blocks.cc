// SPDX-License-Identifier: Apache-2.0
// dlm_blocks workload: builds one block service node per cluster node, hands every node the
// others' directory entries (a job-start exchange, done by the simulation), issues seeded
// requests, checks every block that arrives and reports the service's counts.
#include "sim/workloads/dlm_blocks.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "base/rng.h"
#include "sim/workloads/delivery_ledger.h"
#include "ulp/dlm/block_service.h"

namespace nicsim::sim {
namespace {

constexpr uint64_t kBigPage = uint64_t{16} << 20;

uint64_t RoundUp(uint64_t bytes, uint64_t to) { return (bytes + to - 1) / to * to; }

ulp::BlockServiceConfig ServiceConfig(const DlmBlocksConfig& c, uint32_t nodes) {
  ulp::BlockServiceConfig s;
  s.transfer = c.transfer;
  s.nodes = nodes;
  s.blocks = c.blocks;
  s.block_bytes = static_cast<uint32_t>(c.block_size);
  s.slots = c.slots;
  s.timeout_ps = c.timeout_ps;
  s.max_tries = c.max_tries;
  return s;
}

/** A node that neither manages nor owns `block`, drawn from `rng`. */
uint32_t PickRequester(Rng& rng, uint32_t block, uint32_t nodes) {
  const uint32_t manager = ulp::BlockManager(block, nodes);
  const uint32_t owner = ulp::BlockOwner(block, nodes);
  auto k = static_cast<uint32_t>(rng.Below(nodes - 2));
  for (uint32_t n = 0;; ++n) {
    if (n == manager || n == owner) continue;
    if (k-- == 0) return n;
  }
}

}  // namespace

uint64_t DlmBlocksHostBytes(const DlmBlocksConfig& config, uint32_t nodes) {
  // Owned blocks (at most all of them) and the landing slots, each area on its own pages
  // (16 MiB ones for large areas), plus a page of slack each.
  const uint64_t owned = uint64_t{config.blocks} * config.block_size;
  const uint64_t landing = uint64_t{nodes} * config.slots * config.block_size;
  return RoundUp(owned, kBigPage) + RoundUp(landing, kBigPage) + 2 * kBigPage;
}

namespace {

/** The service's node on each cluster node, with the port and task host it runs on. */
struct ServiceNodes {
  std::vector<std::unique_ptr<hal::Port>> ports;
  std::vector<std::unique_ptr<hal::TaskHost>> hosts;
  std::vector<std::unique_ptr<ulp::BlockServiceNode>> services;
};

/** Builds a service node per cluster node; each owner writes its blocks (block b holds the
 *  pattern keyed by b). */
Status BuildServiceNodes(Cluster& cluster, const ulp::BlockServiceConfig& service,
                         ServiceNodes* out) {
  const ClusterConfig& cc = cluster.config();
  for (uint32_t n = 0; n < cc.nodes; ++n) {
    out->ports.push_back(cluster.MakePort(n * cc.adapters_per_node, 0));
    out->hosts.push_back(cluster.MakeTaskHost(n));
    Result<std::unique_ptr<ulp::BlockServiceNode>> made =
        ulp::BlockServiceNode::Create(n, service, *out->hosts.back(), *out->ports.back());
    if (!made.ok()) return Status::Error("dlm_blocks: " + made.status().message());
    out->services.push_back(std::move(*made));
  }
  std::vector<uint8_t> buf(service.block_bytes);
  for (uint32_t b = 0; b < service.blocks; ++b) {
    const uint32_t owner = ulp::BlockOwner(b, cc.nodes);
    FillPattern(buf.data(), service.block_bytes, b);
    out->hosts[owner]->Write(out->services[owner]->owned_vaddr(b), buf.data(), buf.size());
  }
  return Status();
}

/** What the requests cost and took, besides the service's own counts. */
struct RequestTimes {
  uint64_t finished = 0;
  uint64_t delivered = 0;
  /** Summed over arrivals: every request is made at the start. */
  uint64_t waited_ps = 0;
  double seconds = 0;
};

/** The table and the results of a run: packets and wake-ups per block, waits, bandwidth. */
void Report(const DlmBlocksConfig& config, const ulp::BlockServiceConfig& service,
            const ulp::BlockServiceStats& total, const RequestTimes& times, WorkloadResult& out) {
  const double mbps =
      times.seconds > 0 ? static_cast<double>(out.bytes_delivered) / times.seconds / 1e6 : 0;
  const bool third_party = config.transfer == ulp::BlockTransfer::kThirdParty;
  // Packets per block besides its data: the software's (requests, orders, reports, dones),
  // the read requests, and with third-party reads the completion the requester's adapter
  // sends to the manager (a plain read completes where it was posted).
  const uint64_t reads = total.third_party_reads + total.fetch_reads;
  const uint64_t software_packets =
      total.request_packets + total.orders_sent + total.reports_sent + total.dones_sent;
  const uint64_t remote_completions = third_party ? total.completions : 0;
  const uint64_t control_packets = software_packets + reads + remote_completions;
  // Times some node's software was woken per block: every software packet is received by
  // software, and so is every completion record (the manager's, or the requester's own).
  const uint64_t local_completions =
      total.landed_before_done + total.late_landings + (third_party ? 0 : total.blocks_received);
  const uint64_t handlings = software_packets + remote_completions + local_completions;
  const double blocks = std::max<double>(1, static_cast<double>(times.delivered));
  const double mean_wait_us = static_cast<double>(times.waited_ps) * 1e-6 /
                              std::max<double>(1, static_cast<double>(times.finished));
  // A design where the manager tells the requester to fetch the block itself sends one more
  // message per block (the manager's "fetch it from the owner"): third-party RDMA saves it.
  const uint64_t fetch_orders_saved = third_party ? times.delivered : 0;
  out.table = fmt::format(
      "{:>11}  {:>8}  {:>8}  {:>8}  {:>8}  {:>16}  {:>17}  {:>12}  {:>14}\n"
      "{:>11}  {:>8}  {:>8}  {:>8}  {:>8}  {:>16.2f}  {:>17.2f}  {:>12.1f}  {:>14.1f}\n",
      "transfer", "requests", "blocks", "reads", "redrives", "packets_per_block",
      "wakeups_per_block", "mean_wait_us", "bandwidth_MB/s",
      third_party ? "third_party" : "fetch_order", config.requests, times.delivered, reads,
      total.redrives + total.fetch_redrives, static_cast<double>(control_packets) / blocks,
      static_cast<double>(handlings) / blocks, mean_wait_us, mbps);
  out.results = {{"workload", "dlm_blocks"},
                 {"transfer", third_party ? "third_party" : "fetch_order"},
                 {"nodes", service.nodes},
                 {"blocks", config.blocks},
                 {"block_bytes", service.block_bytes},
                 {"requests", config.requests},
                 {"request_packets", total.request_packets},
                 {"request_resends", total.request_resends},
                 {"requests_abandoned", total.requests_abandoned},
                 {"duplicate_requests", total.duplicate_requests},
                 {"blocks_received", total.blocks_received},
                 {"duplicate_dones", total.duplicate_dones},
                 {"third_party_reads", total.third_party_reads},
                 {"redrives", total.redrives},
                 {"reads_abandoned", total.reads_abandoned},
                 {"completions_at_managers", third_party ? total.completions : 0},
                 {"early_completions", total.early_completions},
                 {"late_completions", total.late_completions},
                 {"stray_completions", total.stray_completions},
                 {"landed_before_done", total.landed_before_done},
                 {"late_landings", total.late_landings},
                 {"dones_sent", total.dones_sent},
                 {"orders_sent", total.orders_sent},
                 {"duplicate_orders", total.duplicate_orders},
                 {"fetch_reads", total.fetch_reads},
                 {"fetch_redrives", total.fetch_redrives},
                 {"cancel_notices", total.cancel_notices},
                 {"reports_sent", total.reports_sent},
                 {"duplicate_reports", total.duplicate_reports},
                 {"bytes_moved", total.bytes_moved},
                 {"fetch_orders_saved", fetch_orders_saved},
                 {"control_packets", control_packets},
                 {"software_wakeups", handlings},
                 {"mean_wait_us", mean_wait_us},
                 {"bandwidth_mbps", mbps}};
}

}  // namespace

Result<WorkloadResult> RunDlmBlocks(Cluster& cluster, const DlmBlocksConfig& config) {
  if (!cluster.rdma_enabled()) return Status::Error("dlm_blocks: the cluster has no RDMA");
  const ClusterConfig& cc = cluster.config();
  const uint32_t nodes = cc.nodes;
  if (nodes < 3) {
    return Status::Error("dlm_blocks: needs 3 nodes or more (requester, manager, owner)");
  }
  const ulp::BlockServiceConfig service = ServiceConfig(config, nodes);
  ServiceNodes built;
  if (Status s = BuildServiceNodes(cluster, service, &built); !s.ok()) return s;
  std::vector<std::unique_ptr<ulp::BlockServiceNode>>& services = built.services;
  std::vector<ulp::BlockDirectoryEntry> directory;
  for (const auto& s : services) directory.push_back(s->entry());

  WorkloadResult out;
  DeliveryLedger ledger("dlm_blocks request");
  RequestTimes times;
  std::vector<uint8_t> buf(service.block_bytes);
  const uint64_t start_ps = cluster.events().now_ps();
  uint64_t end_ps = start_ps;
  for (uint32_t n = 0; n < nodes; ++n) {
    hal::TaskHost& host = *built.hosts[n];
    services[n]->Start(
        directory,
        [&, &host = host](uint64_t request, uint32_t block, uint64_t vaddr) {
          const bool read = host.Read(vaddr, buf.data(), buf.size());
          const bool intact = read && CheckPattern(buf.data(), service.block_bytes, block);
          ledger.Arrived(request, intact, service.block_bytes, out);
          ++times.finished;
          end_ps = cluster.events().now_ps();
          times.waited_ps += end_ps - start_ps;
        },
        [&](uint64_t, uint32_t) { ++times.finished; });
  }
  Rng rng(cc.seed, "dlm_blocks");
  for (uint64_t i = 0; i < config.requests; ++i) {
    const auto block = static_cast<uint32_t>(rng.Below(config.blocks));
    const uint32_t requester = PickRequester(rng, block, nodes);
    ledger.Sent(i, out);
    services[requester]->Request(i, block);
  }
  Status s = RunUntil(
      cluster, [&] { return times.finished == config.requests; }, "dlm_blocks");
  // Late copies (redriven reads, resent answers) land now and are counted: a completion no
  // read sent fails the run.
  RunToQuiet(cluster);
  if (!s.ok()) out.Stall(s);
  ledger.Settle(out);

  ulp::BlockServiceStats total;
  for (const auto& svc : services) total += svc->stats();
  services.clear();  // stops receiving before the ports go
  if (total.stray_completions > 0) {
    out.AddError(fmt::format("dlm_blocks: {} completion records that no manager's read sent",
                             total.stray_completions));
  }
  times.delivered = ledger.delivered();
  times.seconds = static_cast<double>(end_ps - start_ps) * 1e-12;
  Report(config, service, total, times, out);
  return out;
}

}  // namespace nicsim::sim
