// SPDX-License-Identifier: Apache-2.0
// A Platform on POSIX shared memory (shm_open, ftruncate, mmap), so postbox engines in
// separate processes of one machine can talk. Names carry a prefix so runs do not collide.
#pragma once

#include <string>
#include <vector>

#include "ulp/postbox/platform.h"

namespace nicsim::ulp::postbox {

/**
 * Segments are POSIX shared-memory objects named `prefix` + segment name. Every process of a
 * run must use the same prefix. The object that created a segment unlinks it when destroyed
 * (unless told KeepSegments); mappings still open elsewhere stay valid until they are
 * unmapped, as POSIX provides.
 */
class ShmPlatform : public Platform {
 public:
  /** `prefix` must start with '/' and contain no other '/'. */
  explicit ShmPlatform(std::string prefix);
  /** Unmaps what this object still has mapped and unlinks the segments it created. */
  ~ShmPlatform() override;
  ShmPlatform(const ShmPlatform&) = delete;
  ShmPlatform& operator=(const ShmPlatform&) = delete;

  /** "/nicsim-pbx-<pid>-": a prefix private to this process and the children it forks. */
  static std::string PrefixForThisProcess();

  /** shm_open(O_CREAT | O_EXCL), ftruncate to `bytes` (zero-filled), mmap shared. */
  Result<Mapping> Create(const std::string& name, size_t bytes) override;
  /** shm_open of an existing object, mapped at its current size; an error while it is 0. */
  Result<Mapping> Attach(const std::string& name) override;
  /** munmap of one mapping. */
  Status Detach(const Mapping& mapping) override;

  /**
   * Leaves the segments this platform created, and those it will create, to be unlinked by
   * someone else (the `nicsim shm-run` launcher, at the end of the run). A process that
   * leaves a run early must not unlink: a peer that has not attached its segment yet would
   * never find it, and a shared ACK segment made again under the same name would split the
   * run's acknowledgements in two.
   */
  void KeepSegments() { keep_segments_ = true; }

  /** Full names of the objects this platform created and has not yet unlinked. */
  const std::vector<std::string>& Created() const { return created_; }

 private:
  std::string prefix_;
  std::vector<std::string> created_;
  std::vector<Mapping> mapped_;
  bool keep_segments_ = false;
};

}  // namespace nicsim::ulp::postbox
