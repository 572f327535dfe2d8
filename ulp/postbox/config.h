// SPDX-License-Identifier: Apache-2.0
// Who talks (processes named by node and rank) and how big things are (postboxes, pieces,
// pool, quota). Every process of a run must use the same Topology and Params.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace nicsim::ulp::postbox {

/** A process: the node (SMP machine) it runs on and its rank among that node's processes. */
struct ProcessId {
  /** Index of the node. */
  uint32_t node = 0;
  /** Rank of the process on its node (0 .. processes on the node - 1). */
  uint32_t rank = 0;
  /** Same node and rank. */
  bool operator==(const ProcessId& o) const { return node == o.node && rank == o.rank; }
  /** Another node or rank. */
  bool operator!=(const ProcessId& o) const { return !(*this == o); }
  /** "n<node>.r<rank>", for messages and segment names. */
  std::string ToString() const { return "n" + std::to_string(node) + ".r" + std::to_string(rank); }
};

/** How many processes each node runs; node count is the vector's length. */
struct Topology {
  /** processes_per_node[n]: the processes on node n (each at least 1). */
  std::vector<uint32_t> processes_per_node;

  /** Number of nodes. */
  uint32_t nodes() const { return static_cast<uint32_t>(processes_per_node.size()); }
  /** Processes on `node` (0 for a node that does not exist). */
  uint32_t ProcessesOn(uint32_t node) const {
    return node < nodes() ? processes_per_node[node] : 0;
  }
  /** Total processes across the nodes. */
  uint32_t TotalProcesses() const {
    uint32_t total = 0;
    for (uint32_t p : processes_per_node) total += p;
    return total;
  }
  /** A dense index 0 .. TotalProcesses()-1 of a valid process (node-major). */
  uint32_t Index(ProcessId p) const {
    uint32_t index = 0;
    for (uint32_t n = 0; n < p.node; ++n) index += processes_per_node[n];
    return index + p.rank;
  }
  /** Ok if the topology is usable: at least one node, each with at least one process. */
  Status Validate() const {
    if (processes_per_node.empty()) return Status::Error("postbox: topology has no nodes");
    for (size_t n = 0; n < processes_per_node.size(); ++n) {
      if (processes_per_node[n] == 0) {
        return Status::Error("postbox: node " + std::to_string(n) + " has no processes");
      }
    }
    return Status();
  }
  /** Ok if `p` names a process of this topology; `what` says whose id it is. */
  Status Check(ProcessId p, const char* what) const {
    if (p.node >= nodes()) {
      return Status::Error(std::string("postbox: ") + what + " " + p.ToString() + ": no node " +
                           std::to_string(p.node) + " (topology has " + std::to_string(nodes()) +
                           ")");
    }
    if (p.rank >= processes_per_node[p.node]) {
      return Status::Error(std::string("postbox: ") + what + " " + p.ToString() + ": node " +
                           std::to_string(p.node) + " has only " +
                           std::to_string(processes_per_node[p.node]) + " processes");
    }
    return Status();
  }
};

/** Sizes of the protocol; the same for every process of a run. */
struct Params {
  /**
   * The cyclic transaction size: a large message crosses in pieces of at most this many
   * bytes, one buffer block each, so a block is exactly this long.
   */
  uint32_t piece_bytes = 4096;
  /** Buffer blocks in the pool of each (sender, receiving node) segment. */
  uint32_t pool_blocks = 32;
  /** Postbox slots per receiver: messages or pieces posted and not yet acknowledged. */
  uint32_t slots_per_receiver = 16;
  /** Bytes a message may have and still travel inside its postbox slot. */
  uint32_t inline_bytes = 64;
  /**
   * Blocks of one pool that a single receiver may hold unacknowledged. The reference's rule:
   * a sender may not spend its whole pool on one receiver, so others are not starved. 0: the
   * pool shared among the receivers the sender may send to through it (the processes of the
   * receiving node, the sender itself not counted), pool_blocks / that many, at least 1.
   */
  uint32_t receiver_quota_blocks = 8;

  /** The quota of a receiver in a pool through which the sender may reach
   *  `potential_receivers` processes. */
  uint32_t QuotaFor(uint32_t potential_receivers) const {
    if (receiver_quota_blocks > 0) return receiver_quota_blocks;
    return std::max<uint32_t>(1, pool_blocks / std::max<uint32_t>(1, potential_receivers));
  }
  /** Largest message accepted by Send. */
  uint64_t max_message_bytes = uint64_t{1} << 30;

  /** Ok if the sizes are consistent; else an error that starts with the field's parameter
   *  name (postbox.*, ulp/postbox/params.h). */
  Status Validate() const {
    if (piece_bytes == 0 || piece_bytes % 8 != 0) {
      return Status::Error("postbox.piece_bytes: must be a positive multiple of 8, is " +
                           std::to_string(piece_bytes));
    }
    if (pool_blocks == 0) return Status::Error("postbox.pool_blocks: must be at least 1");
    if (slots_per_receiver == 0) {
      return Status::Error("postbox.slots_per_receiver: must be at least 1");
    }
    if (inline_bytes > 4096) {
      return Status::Error("postbox.inline_bytes: must be at most 4096, is " +
                           std::to_string(inline_bytes));
    }
    if (receiver_quota_blocks > pool_blocks) {
      return Status::Error("postbox.receiver_quota_blocks: must be in [0, postbox.pool_blocks=" +
                           std::to_string(pool_blocks) + "] (0: a share of the pool), is " +
                           std::to_string(receiver_quota_blocks));
    }
    return Status();
  }
};

}  // namespace nicsim::ulp::postbox
