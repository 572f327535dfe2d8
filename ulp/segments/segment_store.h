// SPDX-License-Identifier: Apache-2.0
// Named shared segments: the one view of the operating system that the shared-memory engines
// (postbox/, pushpull/) share. POSIX shared memory (ShmSegments), an in-process registry for
// tests (MemorySegments) and a simulated rank's task memory (mpi/node_segments.h) provide it.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace nicsim::ulp::segments {

/** One mapping of a segment into this process: where it landed and how long it is. */
struct Mapping {
  /** First byte of the mapping; differs from process to process for one segment. */
  void* base = nullptr;
  /** Length of the segment in bytes. */
  size_t bytes = 0;
};

/**
 * Segments are named so a process that did not create one can find it; whoever stores
 * anything inside one stores offsets, never pointers, because every process maps a segment
 * at its own address.
 */
class SegmentStore {
 public:
  virtual ~SegmentStore() = default;

  /** Creates a zero-filled segment of `bytes` and maps it; an error if `name` exists. */
  virtual Result<Mapping> Create(const std::string& name, size_t bytes) = 0;

  /** Maps an existing segment; an error if no segment has that name (yet). */
  virtual Result<Mapping> Attach(const std::string& name) = 0;

  /** Unmaps one mapping made by Create or Attach. The segment itself lives on. */
  virtual Status Detach(const Mapping& mapping) = 0;
};

}  // namespace nicsim::ulp::segments
