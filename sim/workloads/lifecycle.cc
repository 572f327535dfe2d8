// SPDX-License-Identifier: Apache-2.0
// Window lifecycle under load: a stream whose receiving window is closed and reopened
// (close_under_load), or whose receiving adapter is recovered (recovery_under_load), mid-stream.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "base/life_token.h"
#include "firmware/counters.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

/** Packets of the second stream (after the event) carry this bit in their ulp_word. */
constexpr uint32_t kAfterBit = 1u << 31;

enum class LifecycleEvent { kClose, kRecovery };

/**
 * One run. Endpoints are never held across the event: the receiver's endpoint goes with the
 * close (and comes back new with the reopen), and a recovery rebuilds every endpoint of the
 * adapter, so both sides are looked up by address each time.
 */
class LifecycleRun {
 public:
  LifecycleRun(Cluster& cluster, const LifecycleConfig& config, LifecycleEvent event)
      : cluster_(cluster), config_(config), event_(event) {}

  ~LifecycleRun() {
    // The cluster outlives the run: leave no callback into it behind.
    if (cluster_.HasEndpoint(src_.adapter, src_.window)) Sender().OnSendable(nullptr);
    if (cluster_.HasEndpoint(dst_.adapter, dst_.window)) Receiver().OnReceive(nullptr);
  }

  Result<WorkloadResult> Run() {
    Result<std::pair<WindowProcess*, WindowProcess*>> pair = PickPair(cluster_);
    if (!pair.ok()) return pair.status();
    src_ = pair->first->addr();
    dst_ = pair->second->addr();
    if (config_.size > pair->first->max_payload()) {
      return Status::Error(
          fmt::format("lifecycle.size: {} exceeds the largest single-packet payload {}",
                      config_.size, pair->first->max_payload()));
    }
    buf_.resize(config_.size);
    for (auto& seen : seen_) seen.assign(config_.packets, 0);
    const hw::func::AdapterModel& dst_hw = cluster_.adapter(dst_.adapter);
    const uint64_t rx_at_start = dst_hw.firmware_counters().rx_packets;
    const uint64_t closed_at_start = ClosedDrops();
    const uint64_t recoveries_at_start = cluster_.driver(dst_.adapter).recovery_count();
    const uint64_t reset_drops_at_start = dst_hw.counters().dropped_by_reset;

    // The first stream, with the event scheduled into it.
    InstallSender();
    InstallReceiver();
    const uint64_t start_ps = cluster_.events().now_ps();
    cluster_.events().After(config_.at_ps, [this, alive = life_.watch()] {
      if (alive.alive()) Fire();
    });
    Pump();
    Status s = RunUntil(
        cluster_,
        [&] { return !status_.ok() || (settled_ && sent_[0] == config_.packets && SenderIdle()); },
        Name());
    if (s.ok()) s = status_;
    if (!s.ok()) {
      out_.Stall(s);
      return Report(start_ps, dst_hw.firmware_counters().rx_packets - rx_at_start,
                    event_ == LifecycleEvent::kClose
                        ? ClosedDrops() - closed_at_start
                        : dst_hw.counters().dropped_by_reset - reset_drops_at_start);
    }
    // Let every packet of the first stream land or be dropped before the window is used again.
    RunToQuiet(cluster_);
    if (delivered_before_event_ == config_.packets) {
      return Status::Error(fmt::format(
          "lifecycle.at: all {} packets had arrived before the {} at {}ns; lower lifecycle.at "
          "or raise lifecycle.packets",
          config_.packets, EventName(), (event_ps_ - start_ps) / 1000));
    }
    if (dst_hw.counters().dma_to_freed_memory != 0) {
      out_.AddError(fmt::format("{}: {} DMA writes reached freed host memory", Name(),
                                dst_hw.counters().dma_to_freed_memory));
    }
    const uint64_t written = dst_hw.firmware_counters().rx_packets - rx_at_start;
    const uint64_t closed = ClosedDrops() - closed_at_start;
    // Work the reset discarded (frames waiting for the microcode, DMAs in flight).
    const uint64_t reset_drops = dst_hw.counters().dropped_by_reset - reset_drops_at_start;
    if (Status st = AccountForTheEvent(written, closed, recoveries_at_start); !st.ok()) return st;
    SecondStream();
    return Report(start_ps, written, event_ == LifecycleEvent::kClose ? closed : reset_drops);
  }

 private:
  /**
   * After the first stream: every packet written or dropped as closed, none written after the
   * release, and the window reopened (close); or the adapter recovered exactly once.
   */
  Status AccountForTheEvent(uint64_t written, uint64_t closed, uint64_t recoveries_at_start) {
    const hw::func::AdapterModel& dst_hw = cluster_.adapter(dst_.adapter);
    if (event_ == LifecycleEvent::kClose) {
      if (dst_hw.firmware_counters().rx_packets != rx_at_release_) {
        out_.AddError(
            fmt::format("close_under_load: {} frames were written into the window after "
                        "the driver released it",
                        dst_hw.firmware_counters().rx_packets - rx_at_release_));
      }
      // Every packet of the first stream is accounted for: written into a frame (consumed by
      // the process, or still unread when it exited) or dropped because the window closed.
      if (written + closed != config_.packets) {
        out_.AddError(
            fmt::format("close_under_load: of {} packets, {} were written and {} dropped as closed",
                        config_.packets, written, closed));
      }
      if (Status st = cluster_.OpenWindow(dst_.adapter, dst_.window); !st.ok()) return st;
      reopened_ = true;
      InstallReceiver();
    } else if (cluster_.driver(dst_.adapter).recovery_count() != recoveries_at_start + 1) {
      out_.AddError("recovery_under_load: the adapter was not recovered exactly once");
    }
    return Status();
  }

  /** The second stream into the reopened (or recovered) window: every packet, exactly. */
  void SecondStream() {
    phase_ = 1;
    Pump();
    Status s = RunUntil(
        cluster_, [&] { return delivered_[1] == config_.packets; }, Name());
    if (!s.ok()) out_.Stall(s);
    RunToQuiet(cluster_);
    if (delivered_[1] != config_.packets) {
      out_.AddError(fmt::format("{}: {} of {} packets sent after the {} arrived", Name(),
                                delivered_[1], config_.packets, EventName()));
    }
  }

  /**
   * The outcome. The first stream may lose packets (the event drops them, and they are
   * accounted for above): those are the event's, counted in `lost` and the drops, and not
   * as sent, so that sent = delivered + lost holds; the second stream must arrive whole, so
   * its missing packets are lost.
   */
  WorkloadResult Report(uint64_t start_ps, uint64_t written, uint64_t dropped) {
    out_.messages_sent = delivered_[0] + sent_[1];
    out_.messages_delivered = delivered_[0] + delivered_[1];
    out_.messages_lost = sent_[1] - delivered_[1];
    const uint64_t lost = config_.packets - delivered_[0];
    out_.table = fmt::format(
        "{:>9}  {:>9}  {:>7}  {:>8}  {:>9}  {:>8}  {:>7}  {:>6}  {:>6}\n"
        "{:>9}  {:>9.3f}  {:>7}  {:>8}  {:>9}  {:>8}  {:>7}  {:>6}  {:>6}\n",
        "event", "at_us", "size_B", "packets", "delivered", "written", "dropped", "lost", "after",
        EventName(), static_cast<double>(event_ps_ - start_ps) / 1e6, config_.size, config_.packets,
        delivered_[0], written, dropped, lost, delivered_[1]);
    out_.results = {{"workload", Name()},
                    {"size_bytes", config_.size},
                    {"packets", config_.packets},
                    {"event_ns", (event_ps_ - start_ps) / 1000},
                    {"delivered_before_event", delivered_before_event_},
                    {"delivered", delivered_[0]},
                    {"written", written},
                    {"dropped_closed", event_ == LifecycleEvent::kClose ? dropped : 0},
                    {"lost", lost},
                    {"delivered_after", delivered_[1]},
                    {"errors", out_.error_count}};
    if (event_ == LifecycleEvent::kClose) {
      out_.results["released_ns"] = (released_ps_ - start_ps) / 1000;
    } else {
      out_.results["dropped_by_reset"] = dropped;
    }
    return std::move(out_);
  }

  const char* Name() const {
    return event_ == LifecycleEvent::kClose ? "close_under_load" : "recovery_under_load";
  }
  const char* EventName() const { return event_ == LifecycleEvent::kClose ? "close" : "recovery"; }

  WindowProcess& Sender() { return cluster_.endpoint(src_.adapter, src_.window); }
  WindowProcess& Receiver() { return cluster_.endpoint(dst_.adapter, dst_.window); }
  /** True when the sender has nothing left in its user-side backlog (or is gone). */
  bool SenderIdle() {
    return !cluster_.HasEndpoint(src_.adapter, src_.window) || Sender().backlog() == 0;
  }

  /** Drops at the receiving adapter caused by the close. */
  uint64_t ClosedDrops() const {
    const fw::Counters& c = cluster_.adapter(dst_.adapter).firmware_counters();
    return c.drop(fw::DropReason::kWindowClosed) + c.drop(fw::DropReason::kClosedInFlight);
  }

  void InstallSender() {
    if (cluster_.HasEndpoint(src_.adapter, src_.window)) Sender().OnSendable([this] { Pump(); });
  }
  void InstallReceiver() {
    Receiver().OnReceive([this](const hal::RecvPacket& p) { OnPacket(p); });
  }

  /** Sends the current stream's next packets until one has to wait for a send slot. */
  void Pump() {
    if (!cluster_.HasEndpoint(src_.adapter, src_.window)) return;
    WindowProcess& a = Sender();
    while (sent_[phase_] < config_.packets && a.backlog() == 0) {
      const uint32_t tag = static_cast<uint32_t>(sent_[phase_]) | (phase_ == 1 ? kAfterBit : 0);
      FillPattern(buf_.data(), config_.size, tag);
      a.Send(dst_, buf_.data(), config_.size, tag);
      ++sent_[phase_];
    }
  }

  void OnPacket(const hal::RecvPacket& p) {
    const uint32_t tag = p.header.ulp_word;
    const int phase = (tag & kAfterBit) != 0 ? 1 : 0;
    const uint32_t seq = tag & ~kAfterBit;
    if (p.header.src_adapter != src_.adapter || p.header.src_window != src_.window ||
        seq >= sent_[phase]) {
      out_.AddError(fmt::format("{}: unknown packet {:#x} from {}:{}", Name(), tag,
                                p.header.src_adapter, p.header.src_window));
      return;
    }
    if (phase == 0 && reopened_) {
      out_.AddError(fmt::format("{}: packet {} sent before the close reached the reopened window",
                                Name(), seq));
      return;
    }
    if (p.header.len_bytes != config_.size || !CheckPattern(p.payload, config_.size, tag)) {
      ++out_.messages_damaged;
      out_.AddError(fmt::format("{}: packet {:#x} arrived damaged ({} bytes)", Name(), tag,
                                p.header.len_bytes));
      return;
    }
    if (seen_[phase][seq]++ > 0) {
      ++out_.messages_duplicated;
      out_.AddError(fmt::format("{}: packet {:#x} arrived twice", Name(), tag));
      return;
    }
    ++delivered_[phase];
    out_.bytes_delivered += p.header.len_bytes;
  }

  /** The close or the recovery, at its configured time. */
  void Fire() {
    event_ps_ = cluster_.events().now_ps();
    delivered_before_event_ = delivered_[0];
    if (event_ == LifecycleEvent::kClose) {
      status_ = cluster_.CloseWindow(dst_.adapter, dst_.window, [this] {
        released_ps_ = cluster_.events().now_ps();
        rx_at_release_ = cluster_.adapter(dst_.adapter).firmware_counters().rx_packets;
        settled_ = true;
      });
      return;
    }
    status_ = cluster_.RecoverAdapter(dst_.adapter);
    if (!status_.ok()) return;
    // The recovery rebuilt the adapter's endpoints: the process attaches to the new one.
    InstallReceiver();
    InstallSender();
    settled_ = true;
    Pump();
  }

  Cluster& cluster_;
  const LifecycleConfig& config_;
  const LifecycleEvent event_;
  WindowAddr src_;
  WindowAddr dst_;
  std::vector<uint8_t> buf_;
  /** Stream 0 runs into the event; stream 1 starts once the first has settled. */
  int phase_ = 0;
  uint64_t sent_[2] = {0, 0};
  uint64_t delivered_[2] = {0, 0};
  std::vector<uint8_t> seen_[2];
  uint64_t delivered_before_event_ = 0;
  uint64_t event_ps_ = 0;
  uint64_t released_ps_ = 0;
  uint64_t rx_at_release_ = 0;
  /** The close's memory is released, or the recovery is done. */
  bool settled_ = false;
  bool reopened_ = false;
  Status status_;
  WorkloadResult out_;
  /** Ends with the run, so the scheduled event is a no-op if the run ends first. */
  LifeToken life_;
};

}  // namespace

Result<WorkloadResult> RunCloseUnderLoad(Cluster& cluster, const LifecycleConfig& config) {
  return LifecycleRun(cluster, config, LifecycleEvent::kClose).Run();
}

Result<WorkloadResult> RunRecoveryUnderLoad(Cluster& cluster, const LifecycleConfig& config) {
  return LifecycleRun(cluster, config, LifecycleEvent::kRecovery).Run();
}

}  // namespace nicsim::sim
