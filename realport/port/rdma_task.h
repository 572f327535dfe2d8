// SPDX-License-Identifier: Apache-2.0
// What the modes of `nicsim port` that run a protocol over the HAL with RDMA (--mode
// transport, --mode ip) stand on: the node's RDMA set up and settled, the adapter's own loop
// when asked for, a HAL port and a task host whose timers run on the wall clock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "hal/port.h"
#include "hal/task_host.h"
#include "hw/common/core_launcher.h"
#include "kernel/clock.h"
#include "realport/port/command.h"
#include "realport/port/node.h"
#include "realport/port/run_loop.h"

namespace nicsim::sim {

/** One task on a real port, reaching its adapter only through the HAL. */
class RdmaTask {
 public:
  /**
   * Sets up RDMA on `node` (TCE tables and rCxts: MMIO and DMA, let finish within the run's
   * time limit before anything else, so a port flooding frames does not hold it up), starts
   * the adapter's loop on `adapter_core` if given, then makes the port (frames of `link_mtu`)
   * and the task host. The error is the summary's "error" text.
   */
  static Result<std::unique_ptr<RdmaTask>> Start(WireNode& node, const PolledPort& polled,
                                                 const PortCommandOptions& options,
                                                 uint32_t link_mtu, hw::CoreLauncher* adapter_core);

  hal::Port& port() { return port_; }
  hal::TaskHost& host() { return host_; }
  /** The host's clock: its due timers run when the mode's turn calls RunDue. */
  kernel::WallClock& wall() { return wall_; }

 private:
  RdmaTask(WireNode& node, std::unique_ptr<WireNodeRdma> rdma, uint32_t link_mtu);

  std::unique_ptr<WireNodeRdma> rdma_;
  kernel::WallClock wall_;
  hal::Port port_;
  hal::TaskHost host_;
};

}  // namespace nicsim::sim
