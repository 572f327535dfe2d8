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

namespace {

/** One sweep: the pair of windows, their buffers and rCxts, the transfers' completions. */
class RdmaSweep {
 public:
  RdmaSweep(Cluster& cluster, const RdmaSweepConfig& config, WindowProcess& a, WindowProcess& b)
      : cluster_(cluster), config_(config), a_(a), b_(b) {}

  /** Each window's buffer mapped and registered, an rCxt for each. */
  Status Setup() {
    const uint64_t largest = static_cast<uint64_t>(
        std::max<int64_t>(1, *std::max_element(config_.sizes.begin(), config_.sizes.end())));
    Result<Region> at_a =
        MapAndRegister(cluster_, cluster_.NodeOf(a_.addr().adapter), largest, config_.page_shift);
    if (!at_a.ok()) return at_a.status();
    Result<Region> at_b =
        MapAndRegister(cluster_, cluster_.NodeOf(b_.addr().adapter), largest, config_.page_shift);
    if (!at_b.ok()) return at_b.status();
    Result<uint32_t> rcxt_a = cluster_.rcxts(a_.addr().adapter).Acquire(a_.addr().window);
    Result<uint32_t> rcxt_b = cluster_.rcxts(b_.addr().adapter).Acquire(b_.addr().window);
    if (!rcxt_a.ok() || !rcxt_b.ok()) return Status::Error("rdma_sweep: no free rCxt");
    rcxt_a_ = *rcxt_a;
    rcxt_b_ = *rcxt_b;
    // Writes go a -> b; reads bring b's buffer into a's.
    source_ = config_.read ? *at_b : *at_a;
    target_ = config_.read ? *at_a : *at_b;
    return Status();
  }

  WorkloadResult Run() {
    a_.OnReceive([this](const hal::RecvPacket& p) { OnInitiatorPacket(p); });
    b_.OnReceive([](const hal::RecvPacket&) {});  // target completion records are consumed
    out_.table = fmt::format("{:>10}  {:>12}  {:>14}\n", "size_B", "latency_us", "bandwidth_MB/s");
    nlohmann::json points = nlohmann::json::array();
    Status status;
    for (int64_t size64 : config_.sizes) {
      const auto size = static_cast<uint32_t>(size64);
      double total_ps = 0;
      for (uint32_t i = 0; i < config_.iterations && status.ok(); ++i) {
        status = Transfer(size, i, &total_ps);
      }
      if (!status.ok()) break;
      const double latency_us = total_ps / config_.iterations / 1e6;
      const double mbps = latency_us > 0 ? size / latency_us : 0;
      out_.table += fmt::format("{:>10}  {:>12.3f}  {:>14.1f}\n", size, latency_us, mbps);
      points.push_back(
          {{"size_bytes", size}, {"latency_us", latency_us}, {"bandwidth_mbps", mbps}});
    }
    // A completion of a transfer already complete, still in flight, would be a duplicate.
    if (status.ok()) RunToQuiet(cluster_);
    if (stray_completions_ > 0) {
      out_.messages_duplicated += stray_completions_;
      out_.AddError(fmt::format("rdma_sweep: {} completions of transfers already complete",
                                stray_completions_));
    }
    a_.OnReceive(nullptr);
    b_.OnReceive(nullptr);
    out_.results = {{"workload", "rdma_sweep"},
                    {"op", config_.read ? "read" : "write"},
                    {"iterations", config_.iterations},
                    {"points", points}};
    return out_;
  }

 private:
  /** Completions per tid: the transfer with the current tid is done at its first one. */
  void OnInitiatorPacket(const hal::RecvPacket& p) {
    if (p.header.type != static_cast<uint8_t>(abi::PacketType::kRdmaCompletion)) return;
    abi::CompletionRecord c{};
    std::memcpy(&c, p.payload, std::min<size_t>(sizeof(c), p.header.len_bytes));
    if (c.tid != tid_ || completions_ >= tid_) {
      ++stray_completions_;
      return;
    }
    ++completions_;
    done_ps_ = cluster_.events().now_ps();
  }

  /** Transfer `i` of `size` bytes: posted, run to its completion, its bytes checked; its time
   *  added to `total_ps`. An error stalls the run. */
  Status Transfer(uint32_t size, uint32_t i, double* total_ps) {
    const uint64_t key = (uint64_t{size} << 20) | i;
    buf_.resize(size);
    FillPattern(buf_.data(), size, key);
    if (size > 0) cluster_.address_space(source_.node).Write(source_.vaddr, buf_.data(), size);
    abi::RdmaRequest r{};
    r.local_rcxt = rcxt_a_;
    r.remote_rcxt = rcxt_b_;
    r.tid = ++tid_;
    r.length = size;
    r.local_pvo = config_.read ? target_.pvo : source_.pvo;
    r.remote_pvo = config_.read ? source_.pvo : target_.pvo;
    r.flags = abi::kReqNotifyInitiator | abi::kReqNotifyTarget;
    hal::SendFifo& fifo = a_.window().send();
    if (fifo.PostRequest(config_.read ? abi::SlotType::kRdmaRead : abi::SlotType::kRdmaWrite,
                         b_.addr().adapter, b_.addr().window, r, tid_) != hal::SendResult::kOk) {
      Status status = Status::Error("rdma_sweep: the send FIFO is full");
      out_.Stall(status);
      return status;
    }
    const uint64_t start_ps = cluster_.events().now_ps();
    const uint64_t want = completions_ + 1;
    fifo.Flush();
    ++out_.messages_sent;
    Status status = RunUntil(
        cluster_, [&] { return completions_ >= want; },
        fmt::format("rdma_sweep ({} B, transfer {})", size, i));
    if (!status.ok()) {
      out_.Stall(status);
      ++out_.messages_lost;
      return status;
    }
    *total_ps += static_cast<double>(done_ps_ - start_ps);
    std::vector<uint8_t> landed(size);
    if (size > 0) cluster_.address_space(target_.node).Read(target_.vaddr, landed.data(), size);
    if (!CheckPattern(landed.data(), size, key)) {
      ++out_.messages_damaged;
      out_.AddError(fmt::format("rdma_sweep: {} B transfer {} landed damaged", size, i));
    } else {
      ++out_.messages_delivered;
      out_.bytes_delivered += size;
    }
    return Status();
  }

  Cluster& cluster_;
  const RdmaSweepConfig& config_;
  WindowProcess& a_;
  WindowProcess& b_;
  Region source_;
  Region target_;
  uint32_t rcxt_a_ = 0;
  uint32_t rcxt_b_ = 0;
  WorkloadResult out_;
  uint64_t completions_ = 0;
  uint64_t stray_completions_ = 0;
  uint32_t tid_ = 0;
  uint64_t done_ps_ = 0;
  std::vector<uint8_t> buf_;
};

}  // namespace

Result<WorkloadResult> RunRdmaSweep(Cluster& cluster, const RdmaSweepConfig& config) {
  if (!cluster.rdma_enabled()) return Status::Error("rdma_sweep: the cluster has no RDMA");
  Result<std::pair<WindowProcess*, WindowProcess*>> pair = PickPair(cluster);
  if (!pair.ok()) return pair.status();
  RdmaSweep sweep(cluster, config, *pair->first, *pair->second);
  if (Status s = sweep.Setup(); !s.ok()) return s;
  return sweep.Run();
}

}  // namespace nicsim::sim
