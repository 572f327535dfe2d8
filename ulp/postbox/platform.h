// SPDX-License-Identifier: Apache-2.0
// The postbox engines' only view of the operating system: named shared-memory segments.
// An in-process registry (tests) and POSIX shm (real processes) both implement it.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace nicsim::ulp::postbox {

/** One mapping of a segment into this process: where it landed and how long it is. */
struct Mapping {
  /** First byte of the mapping; differs from process to process for one segment. */
  void* base = nullptr;
  /** Length of the segment in bytes. */
  size_t bytes = 0;
};

/**
 * The seam between the postbox engines and the place segments live. Segments are named so a
 * process that did not create one can find it; the engines store offsets, never pointers,
 * inside them because every process maps a segment at its own address.
 */
class Platform {
 public:
  virtual ~Platform() = default;

  /** Creates a zero-filled segment of `bytes` and maps it; an error if `name` exists. */
  virtual Result<Mapping> Create(const std::string& name, size_t bytes) = 0;

  /** Maps an existing segment; an error if no segment has that name (yet). */
  virtual Result<Mapping> Attach(const std::string& name) = 0;

  /** Unmaps one mapping made by Create or Attach. The segment itself lives on. */
  virtual Status Detach(const Mapping& mapping) = 0;
};

}  // namespace nicsim::ulp::postbox
