// SPDX-License-Identifier: Apache-2.0
// DeviceAccess for the simulated adapters: the driver's view of one AdapterModel and the
// host memory of its node.
#pragma once

#include "driver/device_access.h"
#include "hw/func/adapter_model.h"

namespace nicsim::hw::func {

/** Host-to-device access to a FuncAdapter. */
class FuncDeviceAccess final : public driver::DeviceAccess {
 public:
  explicit FuncDeviceAccess(AdapterModel& adapter) : adapter_(adapter) {}

  uint16_t AdapterId() const override { return adapter_.AdapterId(); }
  uint32_t CacheLineBytes() const override { return adapter_.CacheLineBytes(); }
  void MmioWrite(uint64_t offset, uint64_t value) override { adapter_.MmioWrite(offset, value); }
  uint64_t MmioRead(uint64_t offset) override { return adapter_.MmioRead(offset); }
  void HostTimer(uint64_t delay_ps, std::function<void()> fn) override {
    adapter_.events().After(delay_ps, std::move(fn));
  }
  Result<host::HostRegion> AllocContiguous(uint64_t bytes) override {
    return adapter_.host().AllocContiguous(bytes);
  }
  void FreeContiguous(const host::HostRegion& region) override { adapter_.host().Free(region); }
  void SetInterruptHandler(InterruptHandler handler) override {
    adapter_.SetInterruptHandler(std::move(handler));
  }

 private:
  AdapterModel& adapter_;
};

}  // namespace nicsim::hw::func
