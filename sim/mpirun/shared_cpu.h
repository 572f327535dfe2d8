// SPDX-License-Identifier: Apache-2.0
// The one CPU a program run's processes share. Exactly one of nicsim and the rank processes
// runs at any time (each waits for the other's message), so a run loses nothing by sharing one
// CPU, and gains the cheapest hand-off the kernel has: a wake-up of a process on the waker's
// own CPU, which then sleeps, is one context switch; a wake-up on another CPU costs an
// interrupt to that CPU (an exit to the hypervisor, on a virtual machine) and its scheduling.
#pragma once

#include <sched.h>

#include <cstdint>
#include <optional>

namespace nicsim::sim {

class SharedCpu {
 public:
  /** Pins the calling thread to a CPU it may use: the least busy, over a short look at the
   *  CPUs' idle time; or, for partition `partition` of a split run (whose partitions run at
   *  once, and would all see the same CPU idle), the partition-th in turn. The threads and
   *  processes it starts inherit the pin, and its own mask comes back when this ends. Nothing
   *  when the mask cannot be read. */
  explicit SharedCpu(std::optional<uint32_t> partition = std::nullopt);
  ~SharedCpu();
  SharedCpu(const SharedCpu&) = delete;
  SharedCpu& operator=(const SharedCpu&) = delete;

  /** The CPU chosen, if any. */
  std::optional<int> cpu() const { return cpu_; }

 private:
  std::optional<int> cpu_;
  cpu_set_t previous_{};
};

}  // namespace nicsim::sim
