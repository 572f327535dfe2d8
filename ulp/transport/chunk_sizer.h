// SPDX-License-Identifier: Apache-2.0
// The size a reader cuts RDMA chunks to. A lost packet costs its whole chunk (the read is
// redriven from its start), so chunks must be small enough to get through the loss there is,
// and as large as that allows (each chunk costs a request and a completion).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace nicsim::ulp {

/**
 * Estimates the fraction of RDMA packets lost from the chunks that landed and those that did
 * not (each counted as one loss: a chunk that fails usually lost one packet; a chunk of n data
 * packets counts n + 2, its read request and its completion included), over roughly the
 * latest kMemoryPackets packets, and sizes chunks so that about kLossPerChunk of their data
 * packets' tries fail: n packets with n * loss = kLossPerChunk, between one packet and
 * `max_bytes`. With no loss seen, chunks are `max_bytes`.
 */
class ChunkSizer {
 public:
  /** Chunk failures aimed at (the expected losses in one chunk). */
  static constexpr double kLossPerChunk = 0.1;
  /** A failure streak less likely than this under the loss seen is not that loss. */
  static constexpr double kUnlikelyStreak = 1e-6;
  /** Packets the estimate remembers (older outcomes fade by halves). */
  static constexpr double kMemoryPackets = 4096;

  ChunkSizer(uint64_t max_bytes, uint32_t packet_bytes)
      : max_packets_(std::max<uint64_t>(1, max_bytes / packet_bytes)),
        packet_bytes_(packet_bytes) {}

  /** A chunk of `len` bytes landed whole. */
  void Landed(uint64_t len) { Add(len, 0); }
  /** A chunk of `len` bytes did not (redriven as lost). */
  void Lost(uint64_t len) { Add(len, 1); }
  /** Bytes to cut the next chunk to: a whole number of packets. */
  uint64_t size() const {
    if (losses_ == 0) return max_packets_ * packet_bytes_;
    const double loss = losses_ / packets_;
    const auto n = static_cast<uint64_t>(kLossPerChunk / loss);
    return std::clamp<uint64_t>(n, 1, max_packets_) * packet_bytes_;
  }
  /**
   * True if a one-packet read failing `attempts` times in a row is the loss seen and RDMA is
   * still worth it: each try (its request, its data packet and its completion through) is
   * more likely to get through than not, and the streak is more likely than kUnlikelyStreak
   * under that loss.
   */
  bool LossExplains(uint32_t attempts) const {
    const double through = 1 - loss();
    const double fails = 1 - through * through * through;
    return fails < 0.5 && std::pow(fails, attempts) > kUnlikelyStreak;
  }
  /** The packet loss fraction estimated now. */
  double loss() const { return packets_ > 0 ? losses_ / packets_ : 0; }

 private:
  void Add(uint64_t len, double losses) {
    // A read's request and completion are packets it needs through too.
    packets_ +=
        static_cast<double>(2 + std::max<uint64_t>(1, (len + packet_bytes_ - 1) / packet_bytes_));
    losses_ += losses;
    if (packets_ > kMemoryPackets) {
      packets_ /= 2;
      losses_ /= 2;
    }
  }

  uint64_t max_packets_;
  uint64_t packet_bytes_;
  double packets_ = 0;
  double losses_ = 0;
};

}  // namespace nicsim::ulp
