// SPDX-License-Identifier: Apache-2.0
// The device driver for one adapter: init, open and close windows, route interrupts.
// A window gets contiguous host memory for its FIFOs and an LMT in adapter SRAM.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>

#include "abi/limits.h"
#include "abi/lmt.h"
#include "base/status.h"
#include "driver/device_access.h"

namespace nicsim::driver {

/** What a job asks for when it opens a window. */
struct WindowRequest {
  /** Protection key of the job; every window of the job carries it. */
  uint32_t job_key = 0;
  uint32_t recv_frames = 256;
  uint32_t send_slots = 64;
};

/** What the HAL needs to drive an open window. */
struct WindowInfo {
  uint32_t window = 0;
  uint16_t adapter_id = 0;
  uint32_t line_bytes = 0;
  uint32_t job_key = 0;
  HostRegion recv_fifo;
  uint32_t recv_frames = 0;
  HostRegion send_fifo;
  uint32_t send_slots = 0;
};

/** Driver instance bound to one adapter. */
class AdapterDriver {
 public:
  explicit AdapterDriver(DeviceAccess& device);
  ~AdapterDriver();
  AdapterDriver(const AdapterDriver&) = delete;
  AdapterDriver& operator=(const AdapterDriver&) = delete;

  /** Brings the adapter to a known state: every LMT closed. */
  Status Init();
  /** Opens `window` for a job: allocates and zeroes its FIFOs and writes its LMT. */
  Result<WindowInfo> OpenWindow(uint32_t window, const WindowRequest& request);
  /** Closes `window`: the adapter drops its traffic; its memory is freed. */
  Status CloseWindow(uint32_t window);
  /** Reads a window's LMT from adapter SRAM (may lag the microcode's working copy). */
  abi::LmtEntry ReadLmt(uint32_t window);

  /** Interrupt callback for one window: (cause). */
  using WindowInterruptFn = std::function<void(uint32_t cause)>;
  void SetWindowInterruptHandler(uint32_t window, WindowInterruptFn fn);

  DeviceAccess& device() { return device_; }
  bool IsOpen(uint32_t window) const { return window < abi::kMaxWindows && open_[window].has_value(); }
  uint64_t interrupts_delivered() const { return interrupts_delivered_; }

 private:
  void WriteLmt(uint32_t window, const abi::LmtEntry& lmt);

  DeviceAccess& device_;
  std::array<std::optional<WindowInfo>, abi::kMaxWindows> open_;
  std::array<WindowInterruptFn, abi::kMaxWindows> handlers_;
  uint64_t interrupts_delivered_ = 0;
};

}  // namespace nicsim::driver
