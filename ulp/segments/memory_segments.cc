// SPDX-License-Identifier: Apache-2.0
// MemorySegments: named heap buffers standing in for shared-memory segments, with the same
// create-once / attach-by-name contract as POSIX shared memory.
#include "ulp/segments/memory_segments.h"

namespace nicsim::ulp::segments {

Result<Mapping> MemorySegments::Create(const std::string& name, size_t bytes) {
  if (bytes == 0) return Status::Error("memory segments: segment " + name + " of 0 bytes");
  if (segments_.count(name) > 0) {
    return Status::Error("memory segments: segment " + name + " exists");
  }
  Segment s;
  s.words.reset(new uint64_t[(bytes + 7) / 8]());
  s.bytes = bytes;
  s.mappings = 1;
  Mapping m{s.words.get(), bytes};
  segments_.emplace(name, std::move(s));
  ++live_mappings_;
  return m;
}

Result<Mapping> MemorySegments::Attach(const std::string& name) {
  auto it = segments_.find(name);
  if (it == segments_.end()) return Status::Error("memory segments: no segment " + name);
  ++it->second.mappings;
  ++live_mappings_;
  return Mapping{it->second.words.get(), it->second.bytes};
}

Status MemorySegments::Detach(const Mapping& mapping) {
  for (auto& [name, s] : segments_) {
    (void)name;
    if (s.words.get() == mapping.base && s.mappings > 0) {
      --s.mappings;
      --live_mappings_;
      return Status();
    }
  }
  return Status::Error("memory segments: detach of an unknown mapping");
}

std::vector<std::string> MemorySegments::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, s] : segments_) {
    (void)s;
    names.push_back(name);
  }
  return names;
}

}  // namespace nicsim::ulp::segments
