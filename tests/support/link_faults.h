// SPDX-License-Identifier: Apache-2.0
// Faults on one adapter's links, for tests that build a cluster configuration in code.
#pragma once

#include <cstdint>

#include "sim/cluster/cluster.h"
#include "sim/config/fault_rules.h"

namespace nicsim::sim {

/** Adds `rates` to every frame to or from `adapter` (its links into every plane). */
inline void AddLinkFaults(ClusterConfig& cluster, uint32_t adapter, const FaultRates& rates) {
  FaultRule rule;
  rule.scope = FaultRule::Scope::kLink;
  rule.id = adapter;
  rule.rates = rates;
  rule.text = "test link faults";
  cluster.fabric.fault_rules.push_back(rule);
}

}  // namespace nicsim::sim
