// SPDX-License-Identifier: Apache-2.0
// An in-process Platform for tests: every "process" lives in one address space, segments are
// heap buffers (the postbox's registry) and the zero-buffer copy is a plain memcpy.
#pragma once

#include <cstdint>
#include <string>

#include "ulp/pushpull/platform.h"
#include "ulp/segments/memory_segments.h"

namespace nicsim::ulp::pushpull {

/** Segments on the heap, shared by every engine of a test that holds the same instance. */
class MemoryPlatform : public Platform {
 public:
  /** `force_fallback`: CopyTo always answers kUnsupported, so pulls go through staging. */
  explicit MemoryPlatform(bool force_fallback = false)
      : Platform(segments_), force_fallback_(force_fallback) {}

  /** One address space: the token is not needed. */
  uint64_t ProcessToken() const override { return 0; }
  /** memcpy extent by extent (both lists cover the same bytes). */
  CrossCopy CopyTo(uint64_t token, const Extent* local, size_t local_count, const Extent* remote,
                   size_t remote_count) override;

  /** Cross copies done (memcpy rounds). */
  uint64_t copies() const { return copies_; }
  /** The registry, to look at segment names in tests. */
  const segments::MemorySegments& segments() const { return segments_; }

 private:
  segments::MemorySegments segments_;
  bool force_fallback_;
  uint64_t copies_ = 0;
};

}  // namespace nicsim::ulp::pushpull
