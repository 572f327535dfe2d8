// SPDX-License-Identifier: Apache-2.0
// Which collectives mpi_collectives times: the names in table order, and the parameter text
// ("allreduce,bcast") read and written back. Header-only, so the parameter catalog can use it
// without linking the workloads.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/text.h"

namespace nicsim::sim {

/** The collectives mpi_collectives times, in the order of its table's columns. */
/** In mpi::CollectiveKind's order. */
inline constexpr std::array<std::string_view, 5> kCollectiveNames = {
    "barrier", "bcast", "allreduce", "allgather", "alltoall"};
/** Per entry of kCollectiveNames: whether it is timed. */
using CollectiveSelection = std::array<bool, kCollectiveNames.size()>;

/** Reads a comma-separated list of kCollectiveNames ("allreduce,bcast"); order is free. */
inline Result<CollectiveSelection> ParseCollectiveList(std::string_view text) {
  CollectiveSelection timed{};
  for (std::string_view item : SplitTrimmed(text, ',')) {
    const auto it = std::find(kCollectiveNames.begin(), kCollectiveNames.end(), item);
    if (it == kCollectiveNames.end()) {
      return Status::Error(
          "'" + std::string(item) +
          "' is not a collective (barrier, bcast, allreduce, allgather or alltoall)");
    }
    timed[static_cast<size_t>(it - kCollectiveNames.begin())] = true;
  }
  return timed;
}

/** The same list written back, in table order. */
inline std::string FormatCollectiveList(const CollectiveSelection& timed) {
  std::string text;
  for (size_t k = 0; k < timed.size(); ++k) {
    if (!timed[k]) continue;
    if (!text.empty()) text += ",";
    text += kCollectiveNames[k];
  }
  return text;
}

/** Status of ParseCollectiveList, for a parameter's syntax check. */
inline Status CheckCollectiveList(std::string_view text) {
  Result<CollectiveSelection> timed = ParseCollectiveList(text);
  return timed.ok() ? Status() : timed.status();
}

}  // namespace nicsim::sim
