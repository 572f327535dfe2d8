// SPDX-License-Identifier: Apache-2.0
// Partition maps: contiguous blocks of nodes, or an explicit node-to-partition list, checked
// so that every partition owns at least one node.
#include "sim/distrib/partition_map.h"

namespace nicsim::sim::distrib {

namespace {

Status CheckParts(uint32_t nodes, uint32_t parts) {
  if (parts == 0 || parts > nodes) {
    return Status::Error("a split over " + std::to_string(parts) + " processes needs 1 to " +
                         std::to_string(nodes) + " processes (one node at least each)");
  }
  return Status();
}

}  // namespace

Result<PartitionMap> PartitionMap::RoundRobin(uint32_t nodes, uint32_t parts) {
  if (Status s = CheckParts(nodes, parts); !s.ok()) return s;
  std::vector<uint32_t> of_node(nodes);
  for (uint32_t n = 0; n < nodes; ++n) of_node[n] = n % parts;
  return PartitionMap(std::move(of_node), parts);
}

Result<PartitionMap> PartitionMap::Contiguous(uint32_t nodes, uint32_t parts) {
  if (Status s = CheckParts(nodes, parts); !s.ok()) return s;
  std::vector<uint32_t> of_node(nodes);
  for (uint32_t p = 0; p < parts; ++p) {
    const uint64_t first = uint64_t{p} * nodes / parts;
    const uint64_t end = uint64_t{p + 1} * nodes / parts;
    for (uint64_t n = first; n < end; ++n) of_node[n] = p;
  }
  return PartitionMap(std::move(of_node), parts);
}

Result<PartitionMap> PartitionMap::FromList(std::vector<uint32_t> of_node, uint32_t parts) {
  std::vector<bool> used(parts, false);
  for (size_t n = 0; n < of_node.size(); ++n) {
    if (of_node[n] >= parts) {
      return Status::Error("node " + std::to_string(n) + " is given partition " +
                           std::to_string(of_node[n]) + ", but there are only " +
                           std::to_string(parts) + " (0-" + std::to_string(parts - 1) + ")");
    }
    used[of_node[n]] = true;
  }
  for (uint32_t p = 0; p < parts; ++p) {
    if (!used[p]) return Status::Error("partition " + std::to_string(p) + " holds no node");
  }
  return PartitionMap(std::move(of_node), parts);
}

std::vector<uint32_t> PartitionMap::NodesOf(uint32_t part) const {
  std::vector<uint32_t> nodes;
  for (uint32_t n = 0; n < of_node_.size(); ++n) {
    if (of_node_[n] == part) nodes.push_back(n);
  }
  return nodes;
}

}  // namespace nicsim::sim::distrib
