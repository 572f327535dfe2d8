// SPDX-License-Identifier: Apache-2.0
// RDMA sweep: for each size, RDMA writes (or reads) from the first window to a window on
// another node, one at a time, reusing one pair of rCxts with rising tids. Each transfer is
// timed from the post to the initiator's completion record, and every byte of the target
// buffer is checked afterwards.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "abi/rdma.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

/** A registered buffer in a node's job address space. */
struct Region {
  uint32_t node = 0;
  uint64_t vaddr = 0;
  uint64_t pvo = 0;
};

Result<Region> MapAndRegister(Cluster& cluster, uint32_t node, uint64_t bytes,
                              uint32_t page_shift) {
  host::AddressSpace& space = cluster.address_space(node);
  Result<uint64_t> vaddr = space.Map(bytes, page_shift);
  if (!vaddr.ok()) return Status::Error("rdma_sweep: " + vaddr.status().message());
  Result<driver::Registration> reg =
      cluster.tce_tables(node).Register(cluster.job_key(), space, *vaddr, bytes);
  if (!reg.ok()) return Status::Error("rdma_sweep: " + reg.status().message());
  return Region{node, *vaddr, reg->pvo};
}

}  // namespace

uint64_t RdmaSweepHostBytes(const RdmaSweepConfig& config) {
  const uint64_t page = uint64_t{1} << config.page_shift;
  const int64_t largest = *std::max_element(config.sizes.begin(), config.sizes.end());
  const uint64_t buffer =
      (static_cast<uint64_t>(std::max<int64_t>(largest, 1)) + page - 1) / page * page;
  // Two buffers per node, plus one page of alignment slack and the guard pages between.
  return 2 * buffer + 3 * page;
}

Result<WorkloadResult> RunRdmaSweep(Cluster& cluster, const RdmaSweepConfig& config) {
  if (!cluster.rdma_enabled()) return Status::Error("rdma_sweep: the cluster has no RDMA");
  Result<std::pair<WindowProcess*, WindowProcess*>> pair = PickPair(cluster);
  if (!pair.ok()) return pair.status();
  WindowProcess& a = *pair->first;
  WindowProcess& b = *pair->second;
  const uint32_t node_a = cluster.NodeOf(a.addr().adapter);
  const uint32_t node_b = cluster.NodeOf(b.addr().adapter);
  const uint64_t largest = static_cast<uint64_t>(
      std::max<int64_t>(1, *std::max_element(config.sizes.begin(), config.sizes.end())));
  Result<Region> at_a = MapAndRegister(cluster, node_a, largest, config.page_shift);
  if (!at_a.ok()) return at_a.status();
  Result<Region> at_b = MapAndRegister(cluster, node_b, largest, config.page_shift);
  if (!at_b.ok()) return at_b.status();
  Result<uint32_t> rcxt_a = cluster.rcxts(a.addr().adapter).Acquire(a.addr().window);
  Result<uint32_t> rcxt_b = cluster.rcxts(b.addr().adapter).Acquire(b.addr().window);
  if (!rcxt_a.ok() || !rcxt_b.ok()) return Status::Error("rdma_sweep: no free rCxt");
  // Writes go a -> b; reads bring b's buffer into a's.
  const Region& source = config.read ? *at_b : *at_a;
  const Region& target = config.read ? *at_a : *at_b;

  WorkloadResult out;
  // Completions per tid: the transfer with the current tid is done at its first one.
  uint64_t completions = 0;
  uint64_t stray_completions = 0;
  uint32_t tid = 0;
  uint64_t done_ps = 0;
  a.OnReceive([&](const hal::RecvPacket& p) {
    if (p.header.type != static_cast<uint8_t>(abi::PacketType::kRdmaCompletion)) return;
    abi::CompletionRecord c{};
    std::memcpy(&c, p.payload, std::min<size_t>(sizeof(c), p.header.len_bytes));
    if (c.tid != tid || completions >= tid) {
      ++stray_completions;
      return;
    }
    ++completions;
    done_ps = cluster.events().now_ps();
  });
  b.OnReceive([](const hal::RecvPacket&) {});  // target completion records are consumed

  out.table = fmt::format("{:>10}  {:>12}  {:>14}\n", "size_B", "latency_us", "bandwidth_MB/s");
  nlohmann::json points = nlohmann::json::array();
  std::vector<uint8_t> buf;
  Status status;
  for (int64_t size64 : config.sizes) {
    const auto size = static_cast<uint32_t>(size64);
    double total_ps = 0;
    for (uint32_t i = 0; i < config.iterations && status.ok(); ++i) {
      const uint64_t key = (uint64_t{size} << 20) | i;
      buf.resize(size);
      FillPattern(buf.data(), size, key);
      if (size > 0) cluster.address_space(source.node).Write(source.vaddr, buf.data(), size);
      abi::RdmaRequest r{};
      r.local_rcxt = *rcxt_a;
      r.remote_rcxt = *rcxt_b;
      r.tid = ++tid;
      r.length = size;
      r.local_pvo = config.read ? target.pvo : source.pvo;
      r.remote_pvo = config.read ? source.pvo : target.pvo;
      r.flags = abi::kReqNotifyInitiator | abi::kReqNotifyTarget;
      hal::SendFifo& fifo = a.window().send();
      if (fifo.PostRequest(config.read ? abi::SlotType::kRdmaRead : abi::SlotType::kRdmaWrite,
                           b.addr().adapter, b.addr().window, r, tid) != hal::SendResult::kOk) {
        status = Status::Error("rdma_sweep: the send FIFO is full");
        out.Stall(status);
        break;
      }
      const uint64_t start_ps = cluster.events().now_ps();
      const uint64_t want = completions + 1;
      fifo.Flush();
      ++out.messages_sent;
      status = RunUntil(
          cluster, [&] { return completions >= want; },
          fmt::format("rdma_sweep ({} B, transfer {})", size, i));
      if (!status.ok()) {
        out.Stall(status);
        ++out.messages_lost;
        break;
      }
      total_ps += static_cast<double>(done_ps - start_ps);
      std::vector<uint8_t> landed(size);
      if (size > 0) cluster.address_space(target.node).Read(target.vaddr, landed.data(), size);
      if (!CheckPattern(landed.data(), size, key)) {
        ++out.messages_damaged;
        out.AddError(fmt::format("rdma_sweep: {} B transfer {} landed damaged", size, i));
      } else {
        ++out.messages_delivered;
        out.bytes_delivered += size;
      }
    }
    if (!status.ok()) break;
    const double latency_us = total_ps / config.iterations / 1e6;
    const double mbps = latency_us > 0 ? size / latency_us : 0;
    out.table += fmt::format("{:>10}  {:>12.3f}  {:>14.1f}\n", size, latency_us, mbps);
    points.push_back({{"size_bytes", size}, {"latency_us", latency_us}, {"bandwidth_mbps", mbps}});
  }
  // A completion of a transfer already complete, still in flight, would be a duplicate.
  if (status.ok()) RunToQuiet(cluster);
  if (stray_completions > 0) {
    out.messages_duplicated += stray_completions;
    out.AddError(
        fmt::format("rdma_sweep: {} completions of transfers already complete", stray_completions));
  }
  a.OnReceive(nullptr);
  b.OnReceive(nullptr);
  out.results = {{"workload", "rdma_sweep"},
                 {"op", config.read ? "read" : "write"},
                 {"iterations", config.iterations},
                 {"points", points}};
  return out;
}

}  // namespace nicsim::sim
