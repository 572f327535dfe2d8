// SPDX-License-Identifier: Apache-2.0
// Round-trip estimates per destination and the retransmit timeouts they give (see
// ulp/transport/rtt_estimator.h).
#include "ulp/transport/rtt_estimator.h"

#include <algorithm>

namespace nicsim::ulp {

uint64_t RttEstimator::RtoFor(uint32_t dest) const {
  auto it = estimates_.find(dest);
  if (it == estimates_.end()) return initial_ps_;
  const Estimate& e = it->second;
  const uint64_t estimate = e.rtt.valid ? static_cast<uint64_t>(e.rtt.Bound()) : initial_ps_;
  return std::clamp<uint64_t>(std::max(estimate, e.backoff_ps), min_ps_, max_ps_);
}

uint64_t RttEstimator::AskingRtoFor(uint32_t dest) const {
  if (estimates_.count(dest) > 0 || !pooled_.valid) return RtoFor(dest);
  return std::clamp<uint64_t>(static_cast<uint64_t>(pooled_.Bound()), min_ps_, max_ps_);
}

void RttEstimator::Sample(uint32_t dest, double rtt_ps) {
  Estimate& e = estimates_[dest];
  e.backoff_ps = 0;
  e.rtt.Add(rtt_ps);
  pooled_.Add(rtt_ps);
}

void RttEstimator::BackOff(uint32_t dest, uint64_t rto_ps) {
  uint64_t& backoff = estimates_[dest].backoff_ps;
  backoff = std::max(backoff, rto_ps);
}

}  // namespace nicsim::ulp
