// SPDX-License-Identifier: Apache-2.0
// The copies of message data one rank's MPI layer makes on its CPU: counted, timed one after
// another, and what must follow them (a hand-over to the transport, a completion, the return
// of the program's call) waits until they are done.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "hal/task_host.h"
#include "hal/task_timers.h"
#include "ulp/host_copy_time.h"
#include "ulp/mpi/blocker.h"
#include "ulp/mpi/mpi_stats.h"

namespace nicsim::mpi {

class CopyClock {
 public:
  /** `ps_per_byte`: the CPU's copy cost (0: copies are free); copies are counted in `stats`. */
  CopyClock(hal::TaskHost& host, Blocker& blocker, double ps_per_byte, MpiStats& stats)
      : host_(host), blocker_(blocker), stats_(stats), copies_(ps_per_byte), timers_(host) {}

  /** Counts one CPU copy of `bytes` of message data; the rank's CPU is busy with it. */
  void Count(size_t bytes) {
    if (bytes == 0) return;
    ++stats_.host_copies;
    stats_.host_copy_bytes += bytes;
    copies_.Copy(host_.NowPs(), bytes);
  }
  /**
   * Runs `fn` once the rank's CPU has finished the copies made so far: at once if it has and
   * nothing else waits, else after them and after what waits already (in order).
   */
  void After(std::function<void()> fn);
  /** In the program's call: returns when the rank's CPU has finished the copies so far. */
  void Spend();

 private:
  hal::TaskHost& host_;
  Blocker& blocker_;
  MpiStats& stats_;
  ulp::HostCopyTime copies_;
  /** What waits for copies to finish (After), and how many wait. */
  hal::TaskTimers timers_;
  uint64_t waiting_ = 0;
};

}  // namespace nicsim::mpi
