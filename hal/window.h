// SPDX-License-Identifier: Apache-2.0
// A HAL window: the send and receive FIFOs of one open adapter window, side by side.
// It keeps FIFO cursors only; protocol state belongs to the layers above.
#pragma once

#include <cstdint>

#include "abi/mmio.h"
#include "driver/adapter_driver.h"
#include "hal/recv_fifo.h"
#include "hal/send_fifo.h"

namespace nicsim::hal {

/** User-space access to one open window. */
class Window {
 public:
  Window(const driver::WindowInfo& info, driver::DeviceAccess& device, uint32_t return_batch)
      : info_(info), device_(device), send_(info, device), recv_(info, device, return_batch) {}

  SendFifo& send() { return send_; }
  RecvFifo& recv() { return recv_; }
  const driver::WindowInfo& info() const { return info_; }

  /**
   * Interrupt mode flags (abi::kEarlyInterrupt): early mode interrupts before the data is
   * coherent; the host then polls the first cache line. Meant for when the CPU is idle.
   */
  void SetInterruptMode(uint32_t flags) {
    device_.MmioWrite(abi::WindowCommandOffset(info_.window, abi::MmioCommand::kSetInterruptMode),
                      flags);
  }

  /** Asks for an interrupt when `count` send completions in all have been written. */
  void SetSendInterruptThreshold(uint32_t count) {
    device_.MmioWrite(
        abi::WindowCommandOffset(info_.window, abi::MmioCommand::kSetSendInterruptThreshold),
        count);
  }

 private:
  driver::WindowInfo info_;
  driver::DeviceAccess& device_;
  SendFifo send_;
  RecvFifo recv_;
};

}  // namespace nicsim::hal
