// SPDX-License-Identifier: Apache-2.0
// A Platform for real processes: channels in POSIX shared memory (segments::ShmSegments) and
// the zero-buffer pull as one process_vm_writev into the receiving process.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "ulp/pushpull/platform.h"
#include "ulp/segments/shm_segments.h"

namespace nicsim::ulp::pushpull {

/**
 * Segments are POSIX shared-memory objects named `prefix` + name; the object that created one
 * unlinks it when destroyed. CopyTo writes straight into the other process (one copy); where
 * the kernel refuses (EPERM: ptrace rules, ENOSYS: no such call, e.g. under a seccomp filter)
 * it answers kUnsupported and the sender stages instead. `force_fallback` makes it always do so.
 */
class ShmPlatform : public Platform {
 public:
  /** `prefix` must start with '/' and contain no other '/'. */
  explicit ShmPlatform(std::string prefix, bool force_fallback = false)
      : Platform(segments_), segments_(std::move(prefix)), force_fallback_(force_fallback) {}

  /** "/nicsim-pp-<pid>-": private to this process and the children it forks. */
  static std::string PrefixForThisProcess();

  /** Leaves every segment this object made in place when it goes (a launcher unlinks them). */
  void KeepSegments() { segments_.KeepSegments(); }
  /** This process's pid. */
  uint64_t ProcessToken() const override;
  /** process_vm_writev into pid `token`, looping over IOV_MAX-sized batches. */
  CrossCopy CopyTo(uint64_t token, const Extent* local, size_t local_count, const Extent* remote,
                   size_t remote_count) override;

 private:
  segments::ShmSegments segments_;
  bool force_fallback_;
};

}  // namespace nicsim::ulp::pushpull
