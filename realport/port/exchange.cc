// SPDX-License-Identifier: Apache-2.0
// `nicsim port --mode exchange`: an adapter on a real port (DPDK ethdev or verbs UD QP) sends
// seeded, patterned messages to a peer adapter in another process and checks the peer's byte by
// byte, exactly once.
//
// Start-up and pacing. The peer may start later and nothing is retransmitted, so a side sends
// no message before it has heard from the peer: each side sends a HELLO (ulp_word
// kHelloUlpWord, 8-byte payload: how many distinct peer messages it has received) when it
// starts, when it first hears the peer, and as HelloPacer (realport/port/modes.h) says. The first
// HELLO heard starts the sending; the count in every later one is a credit, so a sender keeps
// at most kCreditWindow messages unreported. That keeps the peer's receive FIFO and the
// kernel's socket ring from overflowing when one process runs ahead of the other (without it
// a fast sender overruns a slow receiver, and lost messages are never resent).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/rng.h"
#include "realport/port/modes.h"
#include "realport/port/run_loop.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

/** Messages a sender may have beyond the peer's last report (half the receive FIFO). */
constexpr uint64_t kCreditWindow = 128;
/** A receiver reports its count after this many new messages, besides the periodic HELLO. */
constexpr uint64_t kCreditEvery = 32;
/**
 * After both directions are complete a side keeps running (and sending HELLOs) this long, so
 * the peer hears the final count even if one HELLO is lost, and a late duplicate is caught.
 */
constexpr auto kExchangeLinger = std::chrono::milliseconds(100);

/** The payload sizes adapter `sender` uses: both sides derive them from the shared seed. */
std::vector<uint16_t> MessageSizes(uint64_t seed, uint16_t sender, uint64_t count,
                                   uint32_t max_size) {
  Rng rng(seed, "nicsim_port/" + std::to_string(sender));
  std::vector<uint16_t> sizes(count);
  for (uint16_t& s : sizes) s = static_cast<uint16_t>(rng.Between(0, max_size));
  return sizes;
}

/** One side of the exchange: what it sent, what the peer reported, what it received. */
class PortExchange {
 public:
  PortExchange(WireNode& node, const PortCommandOptions& o, uint32_t max_size, RunLoop& loop)
      : ep_(node.endpoint()),
        loop_(loop),
        node_(static_cast<uint16_t>(o.node)),
        peer_{static_cast<uint16_t>(o.peer), 0},
        messages_(static_cast<uint64_t>(o.messages)),
        my_sizes_(MessageSizes(static_cast<uint64_t>(o.seed), node_, messages_, max_size)),
        peer_sizes_(
            MessageSizes(static_cast<uint64_t>(o.seed), peer_.adapter, messages_, max_size)),
        arrived_(messages_, false),
        buf_(std::max<uint32_t>(max_size, kHelloBytes)) {
    ep_.OnSendable([this] { Pump(); });
    ep_.OnReceive([this](const hal::RecvPacket& p) { Receive(p); });
  }
  ~PortExchange() {
    ep_.OnSendable(nullptr);
    ep_.OnReceive(nullptr);
  }
  PortExchange(const PortExchange&) = delete;
  PortExchange& operator=(const PortExchange&) = delete;

  /** Tells the peer we are up and how many of its messages have arrived. */
  void SendHello() {
    uint8_t payload[kHelloBytes];
    for (uint32_t i = 0; i < kHelloBytes; ++i)
      payload[i] = static_cast<uint8_t>(received_ >> (8 * i));
    ep_.Send(peer_, payload, kHelloBytes, kHelloUlpWord);
    reported_ = received_;
    ++hellos_sent_;
  }

  /** Whether a periodic HELLO is due at `now` (it is then taken as sent). */
  bool HelloDue(PortClock::time_point now) {
    return pacer_.Due(now, !peer_up_ || reported_ != received_, hellos_received_);
  }

  /** Both directions complete: every peer message here, the peer reports all of ours. */
  bool Done() const { return received_ == messages_ && peer_received_ >= messages_; }

  nlohmann::json Summary() const {
    nlohmann::json j;
    j["sent"] = sent_;
    j["received"] = received_;
    j["peer_reported"] = peer_received_;
    j["hellos_sent"] = hellos_sent_;
    j["hellos_received"] = hellos_received_;
    loop_.ReportErrors(&j);
    return j;
  }

 private:
  /** Sends while the peer is up, the credit allows and the send FIFO takes messages. */
  void Pump() {
    while (peer_up_ && sent_ < messages_ && sent_ < peer_received_ + kCreditWindow &&
           ep_.backlog() == 0) {
      const auto seq = static_cast<uint32_t>(sent_);
      const uint32_t size = my_sizes_[seq];
      FillPattern(buf_.data(), size, MessageKey(node_, seq));
      ep_.Send(peer_, buf_.data(), size, seq);
      ++sent_;
    }
  }

  void Receive(const hal::RecvPacket& p) {
    const uint32_t seq = p.header.ulp_word;
    if (p.header.src_adapter != peer_.adapter || p.header.src_window != peer_.window) {
      loop_.AddError(fmt::format("a packet from {}:{} (ulp_word {:#x}), not from the peer {}:{}",
                                 p.header.src_adapter, p.header.src_window, seq, peer_.adapter,
                                 peer_.window));
      return;
    }
    if (seq == kHelloUlpWord) {
      if (p.header.len_bytes != kHelloBytes) {
        loop_.AddError(fmt::format("a HELLO of {} bytes", p.header.len_bytes));
        return;
      }
      uint64_t count = 0;
      for (uint32_t i = 0; i < kHelloBytes; ++i) count |= uint64_t{p.payload[i]} << (8 * i);
      ++hellos_received_;
      // HELLOs may overtake each other only if the wire reorders; a count never goes back.
      peer_received_ = std::max(peer_received_, count);
      if (!peer_up_) {
        peer_up_ = true;
        SendHello();  // the peer may be waiting for us too
      }
      Pump();
      return;
    }
    const uint64_t expected = seq < messages_ ? peer_sizes_[seq] : 0;
    if (!loop_.AcceptMessage(peer_.adapter, seq, p.payload, p.header.len_bytes, expected,
                             arrived_)) {
      return;
    }
    ++received_;
    if (received_ - reported_ >= kCreditEvery || received_ == messages_) SendHello();
  }

  WindowProcess& ep_;
  RunLoop& loop_;
  uint16_t node_;
  WindowAddr peer_;
  uint64_t messages_;
  std::vector<uint16_t> my_sizes_;
  std::vector<uint16_t> peer_sizes_;
  /** Which peer messages have arrived: exactly once is checked against it. */
  std::vector<bool> arrived_;
  std::vector<uint8_t> buf_;
  bool peer_up_ = false;
  uint64_t sent_ = 0;
  uint64_t received_ = 0;
  /** The count in our last HELLO. */
  uint64_t reported_ = 0;
  /** The highest count the peer has reported: our messages it has. */
  uint64_t peer_received_ = 0;
  uint64_t hellos_sent_ = 0;
  uint64_t hellos_received_ = 0;
  HelloPacer pacer_;
};

}  // namespace

bool RunExchange(WireNode& node, const PolledPort& polled, const PortCommandOptions& options,
                 uint32_t max_size, nlohmann::json* summary) {
  RunLoop loop(node, polled, RunLimits{TimeLimit(options), kExchangeLinger});
  PortExchange exchange(node, options, max_size, loop);
  // Until done and lingered: HELLOs on the wall clock, then a turn of the node (simulated
  // events and port polls on this thread, or the FIFOs while the adapter's lcore runs it).
  loop.Run([&] { return exchange.Done(); },
           [&](PortClock::time_point now) {
             if (exchange.HelloDue(now)) exchange.SendHello();
           });
  const double wall_s = loop.wall_s();
  *summary = exchange.Summary();
  (*summary)["timed_out"] = loop.timed_out();
  (*summary)["max_size"] = max_size;
  (*summary)["wall_s"] = wall_s;
  return loop.Passed(exchange.Done());
}

}  // namespace nicsim::sim
