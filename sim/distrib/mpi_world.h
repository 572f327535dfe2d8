// SPDX-License-Identifier: Apache-2.0
// The processes of a split run (`mpirun -n K nicsim run ...`): detection, and the collective
// steps the window loop needs, each bounded by a wall-clock timeout.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/distrib/collectives.h"

namespace nicsim::sim::distrib {

/**
 * K processes started by mpirun. Every collective waits at most the timeout: a process that
 * died (or hangs) makes the others print which step had no answer and end with exit code 1,
 * instead of waiting for ever; MPI_ERRORS_ARE_FATAL (the default on MPI_COMM_WORLD) ends them
 * when the library itself sees the failure first.
 */
class MpiWorld final : public Collectives {
 public:
  /** Processes mpirun started, from OMPI_COMM_WORLD_SIZE; 1 when not under mpirun. */
  static uint32_t RequestedSize();
  /**
   * How long a collective waits for the other processes before the run ends: the
   * environment's NICSIM_SPLIT_TIMEOUT_S if set (seconds), else 120.
   */
  static double TimeoutSeconds();
  /** True if this build can split a run (it was built with MPI). */
  static bool Available();
  /** Initialises MPI (call only when RequestedSize() > 1). */
  static Result<std::unique_ptr<MpiWorld>> Init(double timeout_s);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  const char* members() const override { return "processes"; }
  std::vector<std::vector<uint8_t>> Exchange(const std::vector<std::vector<uint8_t>>& out) override;
  uint64_t Min(uint64_t v) override;
  uint64_t Sum(uint64_t v) override;
  std::vector<std::string> GatherToRoot(const std::string& text) override;

 private:
  MpiWorld(uint32_t rank, uint32_t size, double timeout_s)
      : rank_(rank), size_(size), timeout_s_(timeout_s) {}
  uint32_t rank_;
  uint32_t size_;
  double timeout_s_;
};

}  // namespace nicsim::sim::distrib
