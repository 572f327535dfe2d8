// SPDX-License-Identifier: Apache-2.0
// Which process of a split run owns which simulated node: contiguous blocks by default, or
// an explicit list (one partition per node) for other schemes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace nicsim::sim::distrib {

/**
 * The partition of every node of the cluster. A partition always holds whole nodes: a node's
 * adapters share host memory and processes, so it is the unit a split may cut at
 * (docs/architecture.md, "Event order").
 */
class PartitionMap {
 public:
  /**
   * Contiguous blocks: partition p holds nodes [p N / K, (p + 1) N / K). Needs
   * 1 <= parts <= nodes, so that no partition is empty.
   */
  static Result<PartitionMap> Contiguous(uint32_t nodes, uint32_t parts);
  /** Node n in partition n mod K: every partition's nodes spread over the cluster. Needs
   *  1 <= parts <= nodes. */
  static Result<PartitionMap> RoundRobin(uint32_t nodes, uint32_t parts);
  /**
   * Node n in partition `of_node[n]`; every partition 0..parts-1 must hold at least one node.
   * The error names the first node out of range or the first empty partition.
   */
  static Result<PartitionMap> FromList(std::vector<uint32_t> of_node, uint32_t parts);

  uint32_t parts() const { return parts_; }
  uint32_t nodes() const { return static_cast<uint32_t>(of_node_.size()); }
  /** The partition that owns `node`. */
  uint32_t PartOf(uint32_t node) const { return of_node_[node]; }
  /** The nodes `part` owns, ascending. */
  std::vector<uint32_t> NodesOf(uint32_t part) const;

 private:
  PartitionMap(std::vector<uint32_t> of_node, uint32_t parts)
      : of_node_(std::move(of_node)), parts_(parts) {}
  std::vector<uint32_t> of_node_;
  uint32_t parts_;
};

}  // namespace nicsim::sim::distrib
