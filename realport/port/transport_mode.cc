// SPDX-License-Identifier: Apache-2.0
// `nicsim port --mode transport`: the reliable transport (ulp::Transport) runs over the node's
// window, as it does over a simulated one, and sends --messages seeded, patterned messages of
// random sizes to the peer process: about half small (packet mode), the rest up to --max-size
// (RDMA reads through both adapters' microcode over the port when above the RDMA threshold).
// Every byte delivered is checked, and every message must arrive exactly once. The transport
// retransmits, so no start-up handshake is needed: what is sent before the peer is up is lost
// and sent again. Its timers run on the wall clock (kernel::WallClock): the peer is another
// process, so a retransmit timeout must mean real time.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "abi/packet.h"
#include "abi/rdma.h"
#include "base/rng.h"
#include "firmware/platform.h"
#include "hal/port.h"
#include "hal/task_host.h"
#include "kernel/clock.h"
#include "sim/observe/counters_json.h"
#include "realport/port/modes.h"
#include "realport/port/node.h"
#include "realport/port/rdma_task.h"
#include "realport/port/run_loop.h"
#include "sim/workloads/workload.h"
#include "ulp/transport/registration_cache.h"
#include "ulp/transport/transport.h"

namespace nicsim::sim {
namespace {

using Clock = PortClock;

/** Messages of this side in flight at once (each has its own send buffer). */
constexpr uint32_t kSendsInFlight = 8;
/** After both directions are complete and the transport is idle, keep answering this long. */
constexpr auto kTransportLinger = std::chrono::milliseconds(300);
/** Seconds a registration may idle before the cache drops it. */
constexpr uint32_t kRegistrationIdleS = 60;

/** Sizes of adapter `sender`'s messages: half up to the RDMA threshold, half up to max_size. */
std::vector<uint32_t> TransportSizes(uint64_t seed, uint16_t sender, uint64_t count,
                                     uint32_t max_size, uint64_t threshold) {
  Rng rng(seed, "nicsim_port_transport/" + std::to_string(sender));
  std::vector<uint32_t> sizes(count);
  const auto small = static_cast<uint32_t>(std::min<uint64_t>(max_size, threshold));
  for (uint32_t& s : sizes) {
    const bool big = rng.Between(0, 1) == 1;
    s = static_cast<uint32_t>(rng.Between(0, big ? max_size : small));
  }
  return sizes;
}

class TransportExchange {
 public:
  TransportExchange(hal::TaskHost& host, ulp::Transport& transport, const PortCommandOptions& o,
                    uint32_t max_size, std::vector<uint64_t> buffers, RunLoop& loop)
      : host_(host),
        transport_(transport),
        loop_(loop),
        node_(static_cast<uint16_t>(o.node)),
        peer_(static_cast<uint16_t>(o.peer)),
        messages_(static_cast<uint64_t>(o.messages)),
        my_sizes_(TransportSizes(static_cast<uint64_t>(o.seed), node_, messages_, max_size,
                                 transport.config().rdma_threshold)),
        peer_sizes_(TransportSizes(static_cast<uint64_t>(o.seed), peer_, messages_, max_size,
                                   transport.config().rdma_threshold)),
        arrived_(messages_, false),
        free_buffers_(std::move(buffers)) {
    transport_.OnDeliver([this](uint32_t src, uint32_t context, uint32_t tag,
                                std::vector<uint8_t> data) { Deliver(src, context, tag, data); });
  }
  ~TransportExchange() { transport_.OnDeliver(nullptr); }
  TransportExchange(const TransportExchange&) = delete;
  TransportExchange& operator=(const TransportExchange&) = delete;

  /** Starts messages while a send buffer is free. */
  void Pump() {
    if (pumping_) return;
    pumping_ = true;
    while (sent_ < messages_ && !free_buffers_.empty()) {
      const auto seq = static_cast<uint32_t>(sent_++);
      const uint32_t size = my_sizes_[seq];
      const uint64_t vaddr = free_buffers_.back();
      free_buffers_.pop_back();
      scratch_.resize(size);
      FillPattern(scratch_.data(), size, MessageKey(node_, seq));
      if (size > 0 && !host_.Write(vaddr, scratch_.data(), size)) {
        loop_.AddError(fmt::format("message {}: the send buffer is not mapped", seq));
      }
      if (size > transport_.config().rdma_threshold) ++big_sent_;
      transport_.Send(peer_, 0, seq, vaddr, size, [this, vaddr] {
        ++acknowledged_;
        free_buffers_.push_back(vaddr);
      });
    }
    pumping_ = false;
  }

  bool Done() const {
    return acknowledged_ == messages_ && received_ == messages_ && transport_.Idle();
  }

  nlohmann::json Summary() const {
    const ulp::TransportStats& s = transport_.stats();
    nlohmann::json j;
    j["sent"] = sent_;
    j["acknowledged"] = acknowledged_;
    j["received"] = received_;
    j["large_sent"] = big_sent_;
    j["messages_sent"] = s.messages_sent;
    j["messages_delivered"] = s.messages_delivered;
    j["packets_sent"] = s.packets_sent;
    j["retransmits"] = s.retransmits;
    j["duplicates"] = s.duplicates;
    j["rdma_messages"] = s.rdma_messages;
    j["rdma_chunks"] = s.rdma_chunks;
    j["rdma_redrives"] = s.rdma_redrives;
    j["rdma_splits"] = s.rdma_splits;
    j["fallbacks"] = s.fallbacks;
    loop_.ReportErrors(&j);
    return j;
  }

 private:
  void Deliver(uint32_t src, uint32_t context, uint32_t tag, const std::vector<uint8_t>& data) {
    if (src != peer_ || context != 0) {
      return loop_.AddError(
          fmt::format("a message from task {} context {}, not from the peer", src, context));
    }
    const uint64_t expected = tag < messages_ ? peer_sizes_[tag] : 0;
    if (!loop_.AcceptMessage(peer_, tag, data.data(), data.size(), expected, arrived_)) return;
    ++received_;
  }

  hal::TaskHost& host_;
  ulp::Transport& transport_;
  RunLoop& loop_;
  uint16_t node_;
  uint16_t peer_;
  uint64_t messages_;
  std::vector<uint32_t> my_sizes_;
  std::vector<uint32_t> peer_sizes_;
  std::vector<bool> arrived_;
  std::vector<uint64_t> free_buffers_;
  std::vector<uint8_t> scratch_;
  bool pumping_ = false;
  uint64_t sent_ = 0;
  uint64_t big_sent_ = 0;
  uint64_t acknowledged_ = 0;
  uint64_t received_ = 0;
};

}  // namespace

uint64_t TransportHostBytes(uint32_t max_size) {
  // The send buffers, and room for the landing areas of the peer's pulls (power-of-two sizes,
  // reused) and registration slack.
  return uint64_t{kSendsInFlight} * std::max<uint64_t>(max_size, 64 * 1024) * 4 + (16u << 20);
}

bool RunTransport(WireNode& node, const PolledPort& polled, const PortCommandOptions& options,
                  uint32_t max_size, uint32_t link_mtu, hw::CoreLauncher* adapter_core,
                  nlohmann::json* summary) {
  Result<std::unique_ptr<RdmaTask>> rdma_task =
      RdmaTask::Start(node, polled, options, link_mtu, adapter_core);
  if (!rdma_task.ok()) {
    (*summary)["error"] = rdma_task.status().message();
    return false;
  }
  hal::Port& port = (*rdma_task)->port();
  hal::TaskHost& host = (*rdma_task)->host();
  kernel::WallClock& wall = (*rdma_task)->wall();
  bool ok = false;
  {
    ulp::RegistrationCache regs(host, kRegistrationIdleS);
    ulp::TransportConfig tc;
    tc.task = static_cast<uint32_t>(options.node);
    // Timers run on the wall clock, and one simulated adapter on a real port moves data far
    // slower than the simulated hardware: the timeouts are those of a software stack.
    tc.rto_ps = 100'000'000'000;
    tc.rto_min_ps = 5'000'000'000;
    tc.rto_max_ps = 1'000'000'000'000;
    tc.rdma_timeout_base_ps = 100'000'000'000;
    tc.rdma_timeout_ps_per_byte = 100'000.0;
    // The microcode cuts RDMA data into packets of kRdmaPacketBytes after a header of up to its
    // header register: a link with a smaller MTU (net_memif's is 1500) drops every one, so RDMA
    // is used only where its packets fit; elsewhere everything goes in packet mode.
    const bool rdma_fits = link_mtu >= RdmaFrameBytes();
    tc.rdma = rdma_fits;
    ulp::Transport transport(host, port, regs, tc, [](uint32_t task) {
      return hal::Peer{static_cast<uint16_t>(task), 0};
    });
    std::vector<uint64_t> buffers;
    for (uint32_t i = 0; i < kSendsInFlight; ++i) {
      Result<uint64_t> b = host.Map(std::max<uint32_t>(max_size, 1));
      if (!b.ok()) {
        (*summary)["error"] = "send buffers: " + b.status().message();
        return false;
      }
      buffers.push_back(*b);
    }
    RunLoop loop(node, polled, RunLimits{TimeLimit(options), kTransportLinger});
    TransportExchange exchange(host, transport, options, max_size, std::move(buffers), loop);
    // Until done, idle and lingered: new messages, the transport's due timers, a turn.
    loop.Run([&] { return exchange.Done(); },
             [&](Clock::time_point) {
               exchange.Pump();
               wall.RunDue();
             });
    const double wall_s = loop.wall_s();
    *summary = exchange.Summary();
    (*summary)["timed_out"] = loop.timed_out();
    (*summary)["max_size"] = max_size;
    (*summary)["wall_s"] = wall_s;
    (*summary)["rdma"] = rdma_fits;
    (*summary)["registrations"] = CountersJson(regs.stats());
    ok = loop.Passed(exchange.Done());
    wall.Clear();
    port.OnReceive(nullptr);
  }
  return ok;
}

}  // namespace nicsim::sim
