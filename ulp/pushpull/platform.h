// SPDX-License-Identifier: Apache-2.0
// The push-pull engines' only view of the operating system: named shared segments for the
// pushed buffers and control words, and a one-copy transfer into another process's memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "ulp/postbox/platform.h"

namespace nicsim::ulp::pushpull {

/** One mapping of a segment into this process (the postbox's type: same contract). */
using Mapping = postbox::Mapping;

/** One zero-buffer entry: `len` contiguous bytes at `addr` in some process's address space. */
struct Extent {
  /** Virtual address in the process the extent belongs to. */
  uint64_t addr = 0;
  /** Bytes; an entry never crosses a kPageBytes boundary. */
  uint64_t len = 0;
};

/** How a cross-space copy went. */
enum class CrossCopy {
  /** Every byte was written into the other process in one copy. */
  kDone,
  /** The platform cannot copy across processes (EPERM, ENOSYS, or forced): use staging. */
  kUnsupported,
  /** The copy failed or was partial (a bad address): use staging for this round. */
  kFailed,
};

/**
 * The seam between the push-pull engines and the place they run. Segments are named so the
 * process that did not create one can find it, and hold offsets, never pointers. The cross
 * copy is the reference's zero buffer: the sender hands over its source extents and the
 * receiver's destination extents and the bytes move once, with no buffer in between.
 */
class Platform {
 public:
  virtual ~Platform() = default;

  /** Creates a zero-filled segment of `bytes` and maps it; an error if `name` exists. */
  virtual Result<Mapping> Create(const std::string& name, size_t bytes) = 0;
  /** Maps an existing segment; an error if no segment has that name (yet). */
  virtual Result<Mapping> Attach(const std::string& name) = 0;
  /** Unmaps one mapping made by Create or Attach. */
  virtual Status Detach(const Mapping& mapping) = 0;

  /** What another process needs to address this one in CopyTo (a pid on real processes). */
  virtual uint64_t ProcessToken() const = 0;

  /**
   * Copies the bytes of `local` (in this process, `local_count` extents) into `remote` (in the
   * process `token` names, `remote_count` extents). Both lists cover the same byte count.
   */
  virtual CrossCopy CopyTo(uint64_t token, const Extent* local, size_t local_count,
                           const Extent* remote, size_t remote_count) = 0;
};

}  // namespace nicsim::ulp::pushpull
