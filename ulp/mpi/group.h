// SPDX-License-Identifier: Apache-2.0
// An MPI group: the world ranks of a communicator's members, by rank. Communicators and the
// requests posted on them share one immutable Group, so posting a request copies nothing of
// size N and translating a world rank to a rank is a lookup, not a scan: at thousands of
// ranks, per-message work must not grow with the job.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

namespace nicsim::mpi {

class Group {
 public:
  /** Ranks 0..size-1 are world ranks 0..size-1 (the world's group): stores nothing. */
  static std::shared_ptr<const Group> Identity(int size) {
    return std::shared_ptr<const Group>(new Group(size, {}));
  }
  /** Rank i is `world_ranks[i]` (distinct world ranks). */
  static std::shared_ptr<const Group> Of(std::vector<int> world_ranks) {
    const int size = static_cast<int>(world_ranks.size());
    return std::shared_ptr<const Group>(new Group(size, std::move(world_ranks)));
  }

  int size() const { return size_; }
  /** The world rank of `rank` (0 <= rank < size()). */
  int World(int rank) const { return identity() ? rank : members_[static_cast<size_t>(rank)]; }
  /** The rank of world rank `world` in this group, or -1 if it is not a member. */
  int RankOf(int world) const {
    if (identity()) return world >= 0 && world < size_ ? world : -1;
    const auto it = rank_of_.find(world);
    return it == rank_of_.end() ? -1 : it->second;
  }

 private:
  Group(int size, std::vector<int> members) : size_(size), members_(std::move(members)) {
    for (int r = 0; r < static_cast<int>(members_.size()); ++r) rank_of_[members_[r]] = r;
  }
  bool identity() const { return members_.empty(); }

  int size_;
  /** Empty for the identity. */
  std::vector<int> members_;
  std::unordered_map<int, int> rank_of_;
};

}  // namespace nicsim::mpi
