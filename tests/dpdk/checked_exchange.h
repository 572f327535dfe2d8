// SPDX-License-Identifier: Apache-2.0
// Two endpoints send each other seeded random-size patterned messages; every arrival is checked
// byte by byte and counted, so a test asserts exact delivery, exactly once, none lost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/rng.h"
#include "sim/cluster/window_process.h"
#include "sim/workloads/workload.h"

namespace nicsim::testing {

/**
 * `messages` in all, half from each endpoint, sizes drawn from `seed` up to the largest payload.
 * Installs OnSendable/OnReceive on both endpoints (removed by the destructor); Start() posts
 * the first messages and the endpoints' callbacks keep the rest coming.
 *
 * The fabric is unreliable: with the two adapters on different cores a sender can outrun its
 * receiver, and what overflows a receive FIFO or a port's queue is dropped. `window` then caps
 * the messages a sender has beyond those delivered (both endpoints run on the caller's
 * thread, so each sees the other's count); the default leaves senders unthrottled.
 */
class CheckedExchange {
 public:
  CheckedExchange(sim::WindowProcess& a, sim::WindowProcess& b, uint64_t messages, uint64_t seed,
                  uint64_t window = UINT64_MAX)
      : eps_{&a, &b},
        quota_(messages / 2),
        window_(window),
        rngs_{Rng(seed, "dpdk_exchange/0"), Rng(seed, "dpdk_exchange/1")},
        buf_(a.max_payload()) {
    for (size_t i = 0; i < 2; ++i) {
      eps_[i]->OnSendable([this, i] { Pump(i); });
      eps_[i]->OnReceive([this, i](const hal::RecvPacket& p) { Receive(1 - i, p); });
    }
  }
  ~CheckedExchange() {
    for (sim::WindowProcess* ep : eps_) {
      ep->OnSendable(nullptr);
      ep->OnReceive(nullptr);
    }
  }
  CheckedExchange(const CheckedExchange&) = delete;
  CheckedExchange& operator=(const CheckedExchange&) = delete;

  void Start() {
    Pump(0);
    Pump(1);
  }
  /** Every message has arrived intact, or something went wrong (errors). */
  bool Finished() const { return out_.messages_delivered + out_.error_count >= 2 * quota_; }
  /** Messages that never arrived. */
  uint64_t Lost() const {
    uint64_t lost = 0;
    for (const Log& log : logs_) {
      for (uint8_t a : log.arrivals) lost += a == 0;
    }
    return lost;
  }
  const sim::WorkloadResult& result() const { return out_; }
  /** Messages each side sends. */
  uint64_t quota() const { return quota_; }

 private:
  /** What a sender has sent: per sequence number, the size, and how often it arrived. */
  struct Log {
    std::vector<uint16_t> size;
    std::vector<uint8_t> arrivals;
  };
  static uint64_t MessageKey(size_t src, uint32_t seq) { return (uint64_t{src} << 32) | seq; }

  void Pump(size_t src) {
    sim::WindowProcess& ep = *eps_[src];
    Log& log = logs_[src];
    while (log.size.size() < quota_ && log.size.size() - delivered_[src] < window_ &&
           ep.backlog() == 0) {
      const auto size = static_cast<uint32_t>(rngs_[src].Between(0, ep.max_payload()));
      const auto seq = static_cast<uint32_t>(log.size.size());
      log.size.push_back(static_cast<uint16_t>(size));
      log.arrivals.push_back(0);
      sim::FillPattern(buf_.data(), size, MessageKey(src, seq));
      ep.Send(eps_[1 - src]->addr(), buf_.data(), size, seq);
      ++out_.messages_sent;
    }
  }

  void Receive(size_t src, const hal::RecvPacket& p) {
    const uint32_t seq = p.header.ulp_word;
    Log& log = logs_[src];
    if (p.header.src_adapter != eps_[src]->addr().adapter || p.header.src_window != 0 ||
        seq >= log.size.size()) {
      out_.AddError("window " + std::to_string(1 - src) + " got a message from " +
                    std::to_string(p.header.src_adapter) + ":" +
                    std::to_string(p.header.src_window) + " seq " + std::to_string(seq));
      return;
    }
    if (p.header.len_bytes != log.size[seq] ||
        !sim::CheckPattern(p.payload, p.header.len_bytes, MessageKey(src, seq))) {
      out_.AddError("message " + std::to_string(src) + ":" + std::to_string(seq) +
                    " arrived with wrong bytes (" + std::to_string(p.header.len_bytes) + " of " +
                    std::to_string(log.size[seq]) + ")");
    } else if (log.arrivals[seq]++ > 0) {
      out_.AddError("message " + std::to_string(src) + ":" + std::to_string(seq) +
                    " delivered twice");
    } else {
      ++out_.messages_delivered;
      out_.bytes_delivered += p.header.len_bytes;
      ++delivered_[src];
      if (window_ != UINT64_MAX) Pump(src);  // the sender has room in its window again
    }
  }

  sim::WindowProcess* eps_[2];
  uint64_t quota_;
  uint64_t window_;
  /** Messages of each sender delivered intact. */
  uint64_t delivered_[2] = {0, 0};
  Rng rngs_[2];
  Log logs_[2];
  std::vector<uint8_t> buf_;
  sim::WorkloadResult out_;
};

}  // namespace nicsim::testing
