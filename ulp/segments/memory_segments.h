// SPDX-License-Identifier: Apache-2.0
// Segments in one process, for tests: zeroed heap buffers in a registry keyed by name, shared
// by every engine that holds the same MemorySegments.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ulp/segments/segment_store.h"

namespace nicsim::ulp::segments {

/**
 * Segments on the heap. All the "processes" of a test share one instance; a segment lives
 * until the store is destroyed, like a named segment outlives its creator until unlinked.
 */
class MemorySegments : public SegmentStore {
 public:
  /** Creates a zeroed buffer named `name`; an error if the name is taken or bytes is 0. */
  Result<Mapping> Create(const std::string& name, size_t bytes) override;
  /** The buffer named `name`; an error if there is none. */
  Result<Mapping> Attach(const std::string& name) override;
  /** Forgets one mapping; an error if `mapping` is not a live mapping of this store. */
  Status Detach(const Mapping& mapping) override;

  /** Segments that exist. */
  size_t SegmentCount() const { return segments_.size(); }
  /** True if a segment named `name` exists. */
  bool Has(const std::string& name) const { return segments_.count(name) > 0; }
  /** Names of the segments, sorted. */
  std::vector<std::string> Names() const;
  /** Mappings made and not detached, over all segments. */
  int LiveMappings() const { return live_mappings_; }

 private:
  struct Segment {
    std::unique_ptr<uint64_t[]> words;  // 8-byte aligned, zeroed
    size_t bytes = 0;
    int mappings = 0;
  };
  std::map<std::string, Segment> segments_;
  int live_mappings_ = 0;
};

}  // namespace nicsim::ulp::segments
