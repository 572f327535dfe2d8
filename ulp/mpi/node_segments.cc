// SPDX-License-Identifier: Apache-2.0
// NodeRanks and NodeSegments: rank lookup and named segments in simulated task memory.
#include "ulp/mpi/node_segments.h"

#include <algorithm>

namespace nicsim::mpi {

int NodeRanks::LocalOf(uint32_t world) const {
  auto it = std::lower_bound(world_ranks_.begin(), world_ranks_.end(), world);
  if (it == world_ranks_.end() || *it != world) return -1;
  return static_cast<int>(it - world_ranks_.begin());
}

Result<ulp::segments::Mapping> NodeSegments::Create(hal::TaskHost& host, const std::string& name,
                                                    size_t bytes) {
  if (segments_.count(name) > 0) {
    return nicsim::Status::Error(kind_ + " segment " + name + " exists");
  }
  Result<uint64_t> vaddr = host.MapContiguous(std::max<size_t>(bytes, 1));
  if (!vaddr.ok()) {
    return nicsim::Status::Error(kind_ + " segment " + name + " (" + std::to_string(bytes) +
                                 " B): " + vaddr.status().message());
  }
  ulp::segments::Mapping m{host.Contiguous(*vaddr, bytes), bytes};
  if (m.base == nullptr) {
    return nicsim::Status::Error(kind_ + " segment " + name + ": not contiguous");
  }
  segments_[name] = m;
  return m;
}

Result<ulp::segments::Mapping> NodeSegments::Attach(const std::string& name) const {
  auto it = segments_.find(name);
  if (it == segments_.end()) return nicsim::Status::Error("no " + kind_ + " segment " + name);
  return it->second;
}

}  // namespace nicsim::mpi
