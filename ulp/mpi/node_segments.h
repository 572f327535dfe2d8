// SPDX-License-Identifier: Apache-2.0
// What the shared-memory paths of one simulated node have in common (mpi.intranode=postbox,
// pushpull): which world ranks share the node, and segments named in the ranks' task memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "hal/task_host.h"
#include "ulp/segments/segment_store.h"

namespace nicsim::mpi {

/** The world ranks of one node, ascending: local rank i is the i-th. */
class NodeRanks {
 public:
  explicit NodeRanks(std::vector<uint32_t> world_ranks) : world_ranks_(std::move(world_ranks)) {}

  /** Ranks on the node. */
  uint32_t size() const { return static_cast<uint32_t>(world_ranks_.size()); }
  /** The local rank of world rank `world`, or -1 if it is on another node. */
  int LocalOf(uint32_t world) const;
  /** The world rank of local rank `local`. */
  uint32_t WorldOf(uint32_t local) const { return world_ranks_[local]; }

 private:
  std::vector<uint32_t> world_ranks_;
};

/**
 * The segments made on one node, by name. Each lies in the task memory of the rank that made
 * it (a contiguous area, so it counts in the node's touched host memory) and the other ranks
 * map it by name. Segments live as long as the job: nothing is unmapped.
 */
class NodeSegments {
 public:
  /** `kind` starts every error message ("postbox", "pushpull"). */
  explicit NodeSegments(std::string kind) : kind_(std::move(kind)) {}

  /** Makes `name` in `host`'s memory: at most 16 MiB; an error if the name is taken. */
  Result<ulp::segments::Mapping> Create(hal::TaskHost& host, const std::string& name, size_t bytes);
  /** The segment named `name`; an error until someone made it. */
  Result<ulp::segments::Mapping> Attach(const std::string& name) const;
  /** Segments made so far. */
  size_t size() const { return segments_.size(); }

 private:
  std::string kind_;
  std::map<std::string, ulp::segments::Mapping> segments_;
};

/**
 * The segment store of one simulated rank (the postbox's Platform, under push-pull's): a
 * segment it makes is a contiguous area of its own task memory, registered by name with the
 * node so the other ranks find and map it.
 */
class TaskSegments final : public ulp::segments::SegmentStore {
 public:
  TaskSegments(hal::TaskHost& host, NodeSegments& node) : host_(host), node_(node) {}
  /** At most 16 MiB (one contiguous area); an error if the name is taken. */
  Result<ulp::segments::Mapping> Create(const std::string& name, size_t bytes) override {
    return node_.Create(host_, name, bytes);
  }
  /** The node's segment named `name`; an error until someone made it. */
  Result<ulp::segments::Mapping> Attach(const std::string& name) override {
    return node_.Attach(name);
  }
  /** Nothing to undo: segments live as long as the job. */
  nicsim::Status Detach(const ulp::segments::Mapping&) override { return nicsim::Status(); }

 private:
  hal::TaskHost& host_;
  NodeSegments& node_;
};

}  // namespace nicsim::mpi
