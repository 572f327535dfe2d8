// SPDX-License-Identifier: Apache-2.0
// Segments in POSIX shared memory (shm_open, ftruncate, mmap), so engines in separate
// processes of one machine can talk. Names carry a prefix so runs do not collide.
#pragma once

#include <string>
#include <vector>

#include "ulp/segments/segment_store.h"

namespace nicsim::ulp::segments {

/**
 * Segments are POSIX shared-memory objects named `prefix` + segment name. Every process of a
 * run must use the same prefix. The object that created a segment unlinks it when destroyed
 * (unless told KeepSegments); mappings still open elsewhere stay valid until they are
 * unmapped, as POSIX provides.
 */
class ShmSegments : public SegmentStore {
 public:
  /** `prefix` must start with '/' and contain no other '/'. */
  explicit ShmSegments(std::string prefix);
  /** Unmaps what this object still has mapped and unlinks the segments it created. */
  ~ShmSegments() override;
  ShmSegments(const ShmSegments&) = delete;
  ShmSegments& operator=(const ShmSegments&) = delete;

  /** "/nicsim-ENGINE-<pid>-": a prefix private to this process and the children it forks
   *  (`engine` "pbx" for the postbox, "pp" for push-pull). */
  static std::string PrefixForThisProcess(const std::string& engine);

  /** shm_open(O_CREAT | O_EXCL), ftruncate to `bytes` (zero-filled), mmap shared. */
  Result<Mapping> Create(const std::string& name, size_t bytes) override;
  /** shm_open of an existing object, mapped at its current size; an error while it is 0. */
  Result<Mapping> Attach(const std::string& name) override;
  /** munmap of one mapping. */
  Status Detach(const Mapping& mapping) override;

  /**
   * Leaves the segments this object created, and those it will create, to be unlinked by
   * someone else (the `nicsim shm-run` launcher, at the end of the run). A process that
   * leaves a run early must not unlink: a peer that has not attached its segment yet would
   * never find it, and a shared ACK segment made again under the same name would split the
   * run's acknowledgements in two.
   */
  void KeepSegments() { keep_segments_ = true; }

  /** Full names of the objects this store created and has not yet unlinked. */
  const std::vector<std::string>& Created() const { return created_; }

 private:
  std::string prefix_;
  std::vector<std::string> created_;
  std::vector<Mapping> mapped_;
  bool keep_segments_ = false;
};

}  // namespace nicsim::ulp::segments
