// SPDX-License-Identifier: Apache-2.0
// Round-trip estimates: a smoothed mean and deviation (Jacobson/Karels), and per destination
// the retransmit timeout it allows for, with the back-off a retransmission leaves behind.
#pragma once

#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "ulp/transport/transport_config.h"

namespace nicsim::ulp {

/** A smoothed mean and mean deviation (Jacobson/Karels: gains 1/8 and 1/4). */
struct Smoothed {
  double mean = 0;
  double dev = 0;
  bool valid = false;
  /** The first sample sets the mean and half of it as the deviation. */
  void Add(double sample) {
    if (!valid) {
      mean = sample;
      dev = sample / 2;
      valid = true;
      return;
    }
    dev = 0.75 * dev + 0.25 * std::abs(mean - sample);
    mean = 0.875 * mean + 0.125 * sample;
  }
  /** The mean plus four deviations: what a timeout allows for. */
  double Bound() const { return mean + 4 * dev; }
};

/**
 * Round trip per destination, in picoseconds, and the timeout a first transmission to it
 * gets: the configured rto_ps until anything is known of the destination (for a sender that
 * only asks on a timeout, the estimate over every destination), then srtt + 4 rttvar (rto_ps
 * before the first sample), never below the back-off of its latest retransmission, within
 * [rto_min_ps, rto_max_ps].
 */
class RttEstimator {
 public:
  /** Takes rto_ps, rto_min_ps and rto_max_ps from `config`. */
  explicit RttEstimator(const TransportConfig& config)
      : initial_ps_(config.rto_ps), min_ps_(config.rto_min_ps), max_ps_(config.rto_max_ps) {}

  /** The retransmit timeout for a first transmission to `dest`. */
  uint64_t RtoFor(uint32_t dest) const;
  /** The same for a sender whose timeout only asks the receiver (a header-sized probe) and
   *  sends nothing again: a destination not heard from yet takes the estimate over every
   *  destination instead of rto_ps, so a loss there is found in a round trip's time. */
  uint64_t AskingRtoFor(uint32_t dest) const;
  /** An ack of a packet sent once (Karn's rule) came `rtt_ps` after it was sent: the
   *  estimate takes it in and the back-off is over. */
  void Sample(uint32_t dest, double rtt_ps);
  /** A packet to `dest` was retransmitted with timeout `rto_ps`: new packets there wait at
   *  least that long until the next sample. */
  void BackOff(uint32_t dest, uint64_t rto_ps);

 private:
  struct Estimate {
    Smoothed rtt;
    /** The timeout a retransmission backed off to: new packets to the destination wait at
     *  least this long until an ack of a packet sent once gives a new sample (RFC 6298 5.5;
     *  without it, queueing longer than the estimate retransmits every packet, and those
     *  give no samples under Karn's rule, so the estimate never catches up). */
    uint64_t backoff_ps = 0;
  };

  uint64_t initial_ps_;
  uint64_t min_ps_;
  uint64_t max_ps_;
  std::unordered_map<uint32_t, Estimate> estimates_;
  /** Every sample, whatever its destination. */
  Smoothed pooled_;
};

}  // namespace nicsim::ulp
