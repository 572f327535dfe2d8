// SPDX-License-Identifier: Apache-2.0
// `nicsim port --mode pingpong`: one message in flight between two processes, through both
// adapters' microcode; the initiator (lower adapter id) times every round trip on the wall clock.
//
// Start-up is the exchange's HELLO handshake; HELLOs stop once the peer is heard, so they do not
// disturb the timed rounds. Nothing is retransmitted by the microcode, so the initiator sends a
// round's ping again if its pong has not come back in kResendAfter; such rounds are not timed.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "realport/port/modes.h"
#include "realport/port/run_loop.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

using Clock = PortClock;

constexpr auto kResendAfter = std::chrono::milliseconds(200);
/** After the last round a side keeps answering this long, in case the last ping is resent. */
constexpr auto kPingPongLinger = kResendAfter + std::chrono::milliseconds(300);

/** The pattern key of round `seq`'s payload; the pong carries the ping's bytes back. */
uint64_t RoundKey(uint16_t initiator, uint32_t seq) { return (uint64_t{initiator} << 32) | seq; }

class PingPong {
 public:
  PingPong(WireNode& node, const PortCommandOptions& o, RunLoop& loop)
      : ep_(node.endpoint()),
        loop_(loop),
        node_(static_cast<uint16_t>(o.node)),
        peer_{static_cast<uint16_t>(o.peer), 0},
        initiator_(o.node < o.peer),
        size_(static_cast<uint32_t>(o.size)),
        warmup_(static_cast<uint64_t>(o.warmup)),
        rounds_(static_cast<uint64_t>(o.warmup + o.messages)),
        buf_(std::max<uint32_t>(size_, kHelloBytes)) {
    rtt_ns_.reserve(static_cast<size_t>(o.messages));
    ep_.OnReceive([this](const hal::RecvPacket& p) { Receive(p); });
  }
  ~PingPong() { ep_.OnReceive(nullptr); }
  PingPong(const PingPong&) = delete;
  PingPong& operator=(const PingPong&) = delete;

  bool peer_up() const { return peer_up_; }
  bool Done() const { return done_; }

  void SendHello() {
    uint8_t payload[kHelloBytes] = {};
    ep_.Send(peer_, payload, kHelloBytes, kHelloUlpWord);
    ++hellos_sent_;
  }

  /** The initiator's ping of the current round went unanswered too long: send it again. */
  void ResendIfLate(Clock::time_point now) {
    if (!initiator_ || !in_flight_ || now - sent_at_ < kResendAfter) return;
    ++resent_;
    round_resent_ = true;
    SendPing(now);
  }

  nlohmann::json Summary() const {
    nlohmann::json j;
    j["role"] = initiator_ ? "initiator" : "responder";
    j["size"] = size_;
    j["warmup"] = warmup_;
    j["rounds"] = round_;
    j["timed_rounds"] = rtt_ns_.size();
    j["resent"] = resent_;
    j["hellos_sent"] = hellos_sent_;
    loop_.ReportErrors(&j);
    if (!rtt_ns_.empty()) {
      std::vector<double> sorted = rtt_ns_;
      std::sort(sorted.begin(), sorted.end());
      auto at = [&](double q) {
        return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * sorted.size()))];
      };
      double sum = 0;
      for (double v : sorted) sum += v;
      j["rtt_ns"] = {{"min", sorted.front()}, {"p50", at(0.50)},
                     {"p90", at(0.90)},       {"p99", at(0.99)},
                     {"max", sorted.back()},  {"mean", sum / sorted.size()}};
    }
    return j;
  }

 private:
  void SendPing(Clock::time_point now) {
    const auto seq = static_cast<uint32_t>(round_);
    FillPattern(buf_.data(), size_, RoundKey(node_, seq));
    sent_at_ = now;
    in_flight_ = true;
    ep_.Send(peer_, buf_.data(), size_, seq);
  }

  void StartRound() {
    if (round_ == rounds_) {
      done_ = true;
      return;
    }
    round_resent_ = false;
    SendPing(Clock::now());
  }

  void Receive(const hal::RecvPacket& p) {
    const Clock::time_point now = Clock::now();
    const uint32_t seq = p.header.ulp_word;
    if (p.header.src_adapter != peer_.adapter || p.header.src_window != peer_.window) {
      return loop_.AddError(fmt::format("a packet from {}:{}, not from the peer",
                                        p.header.src_adapter, p.header.src_window));
    }
    if (seq == kHelloUlpWord) {
      if (!peer_up_) {
        peer_up_ = true;
        SendHello();  // the peer may be waiting for us too
        if (initiator_ && round_ == 0 && !in_flight_) StartRound();
      }
      return;
    }
    peer_up_ = true;  // a ping means the peer heard us
    const uint16_t initiator = initiator_ ? node_ : peer_.adapter;
    if (seq >= rounds_ || p.header.len_bytes != size_ ||
        !CheckPattern(p.payload, p.header.len_bytes, RoundKey(initiator, seq))) {
      return loop_.AddError(
          fmt::format("round {} arrived with wrong bytes or size {}", seq, p.header.len_bytes));
    }
    if (!initiator_) {
      // Echo every ping, a resent one too; the round count is the highest seen.
      ep_.Send(peer_, p.payload, p.header.len_bytes, seq);
      round_ = std::max<uint64_t>(round_, seq + 1);
      done_ = round_ == rounds_;
      return;
    }
    if (!in_flight_ || seq != round_) return;  // the pong of a resent ping, already counted
    in_flight_ = false;
    if (round_ >= warmup_ && !round_resent_) {
      rtt_ns_.push_back(std::chrono::duration<double, std::nano>(now - sent_at_).count());
    }
    ++round_;
    StartRound();
  }

  WindowProcess& ep_;
  RunLoop& loop_;
  uint16_t node_;
  WindowAddr peer_;
  bool initiator_;
  uint32_t size_;
  uint64_t warmup_;
  uint64_t rounds_;
  std::vector<uint8_t> buf_;
  bool peer_up_ = false;
  bool done_ = false;
  /** Initiator: the round in flight; responder: rounds echoed (highest seq + 1). */
  uint64_t round_ = 0;
  bool in_flight_ = false;
  bool round_resent_ = false;
  Clock::time_point sent_at_;
  std::vector<double> rtt_ns_;
  uint64_t resent_ = 0;
  uint64_t hellos_sent_ = 0;
};

}  // namespace

bool RunPingPong(WireNode& node, const PolledPort& polled, const PortCommandOptions& options,
                 nlohmann::json* summary) {
  RunLoop loop(node, polled, RunLimits{TimeLimit(options), kPingPongLinger});
  PingPong pingpong(node, options, loop);
  HelloPacer hellos;
  loop.Run([&] { return pingpong.Done(); },
           [&](Clock::time_point now) {
             if (!pingpong.peer_up() && hellos.Due(now, /*reporting=*/true, 0)) {
               pingpong.SendHello();
             }
             pingpong.ResendIfLate(now);
           });
  *summary = pingpong.Summary();
  (*summary)["timed_out"] = loop.timed_out();
  (*summary)["wall_s"] = loop.wall_s();
  return loop.Passed(pingpong.Done());
}

}  // namespace nicsim::sim
