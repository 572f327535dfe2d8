// SPDX-License-Identifier: Apache-2.0
// The push-pull engines' only view of the operating system: named shared segments for the
// pushed buffers and control words, and a one-copy transfer into another process's memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "ulp/segments/segment_store.h"

namespace nicsim::ulp::pushpull {

using Mapping = segments::Mapping;

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
 * The seam between the push-pull engines and the place they run: a segment store (named
 * segments, holding offsets, never pointers) and the cross copy, the reference's zero buffer:
 * the sender hands over its source extents and the receiver's destination extents and the
 * bytes move once, with no buffer in between. Segments go to the store the platform is built
 * on; a platform supplies the copy.
 */
class Platform : public segments::SegmentStore {
 public:
  /** `store` must outlive the platform (a member of the derived class is). */
  explicit Platform(segments::SegmentStore& store) : store_(store) {}

  Result<Mapping> Create(const std::string& name, size_t bytes) final {
    return store_.Create(name, bytes);
  }
  Result<Mapping> Attach(const std::string& name) final { return store_.Attach(name); }
  Status Detach(const Mapping& mapping) final { return store_.Detach(mapping); }

  /** What another process needs to address this one in CopyTo (a pid on real processes). */
  virtual uint64_t ProcessToken() const = 0;

  /**
   * Copies the bytes of `local` (in this process, `local_count` extents) into `remote` (in the
   * process `token` names, `remote_count` extents). Both lists cover the same byte count.
   */
  virtual CrossCopy CopyTo(uint64_t token, const Extent* local, size_t local_count,
                           const Extent* remote, size_t remote_count) = 0;

 private:
  segments::SegmentStore& store_;
};

}  // namespace nicsim::ulp::pushpull
