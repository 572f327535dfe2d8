// SPDX-License-Identifier: Apache-2.0
// The DeviceAccess seam: how the driver reaches an adapter and its node's memory.
// Each hardware backend implements it; the driver and the HAL see nothing else of the hardware.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "abi/mmio.h"
#include "base/status.h"
#include "host/host_region.h"

namespace nicsim::driver {

/** Host-to-device access to one adapter. */
class DeviceAccess {
 public:
  virtual ~DeviceAccess() = default;

  /** Global id of the adapter on the fabric. */
  virtual uint16_t AdapterId() const = 0;
  /** Host cache line size in bytes (64 or 128). */
  virtual uint32_t CacheLineBytes() const = 0;

  /** Posted 8-byte MMIO write. */
  virtual void MmioWrite(uint64_t offset, uint64_t value) = 0;
  /** 8-byte MMIO read (SRAM and global registers). Earlier posted writes land first. */
  virtual uint64_t MmioRead(uint64_t offset) = 0;

  /** Pinned, contiguous, zeroed host memory the adapter may DMA to and from. */
  virtual Result<host::HostRegion> AllocContiguous(uint64_t bytes) = 0;
  /**
   * Frees memory from AllocContiguous: it reads zero from now on, and a device write into
   * it is refused.
   */
  virtual void FreeContiguous(const host::HostRegion& region) = 0;

  /** Device-to-host interrupts: (handler, the events pending when it was presented). */
  using InterruptHandler =
      std::function<void(uint32_t handler, const std::vector<abi::InterruptEvent>& events)>;
  virtual void SetInterruptHandler(InterruptHandler handler) = 0;

  /** Runs `fn` on the host after `delay_ps` (the operating system's timer). */
  virtual void HostTimer(uint64_t delay_ps, std::function<void()> fn) = 0;
};

}  // namespace nicsim::driver
