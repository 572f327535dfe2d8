// SPDX-License-Identifier: Apache-2.0
// MMIO window of the adapter: SRAM accesses are served by hardware without the microcode;
// other writes are posted and reach the adapter in order after the MMIO latency.
#include "hw/func/adapter_mmio.h"

#include "abi/mmio.h"

namespace nicsim::hw::func {

bool AdapterMmio::InSram(uint64_t offset) const {
  return offset + sizeof(uint64_t) <= abi::kMmioSramBase + sram_.bytes();
}

void AdapterMmio::Write(uint64_t offset, uint64_t value) {
  if (InSram(offset)) {
    sram_.Write(offset - abi::kMmioSramBase, &value, sizeof(value));
    return;
  }
  const uint64_t seq = ++posted_;
  pending_.push_back(PendingMmio{seq, offset, value});
  events_.After(latency_ps_, [this, seq] { DeliverThrough(seq); });
}

void AdapterMmio::DeliverThrough(uint64_t seq) {
  while (!pending_.empty() && pending_.front().seq <= seq) {
    const PendingMmio cmd = pending_.front();
    pending_.pop_front();
    deliver_(cmd.offset, cmd.value);
  }
}

uint64_t AdapterMmio::Read(uint64_t offset) const {
  uint64_t value = ~uint64_t{0};
  if (InSram(offset)) {
    sram_.Read(offset - abi::kMmioSramBase, &value, sizeof(value));
  } else if (offset >= abi::kMmioRegisterBase && offset % 8 == 0 &&
             offset < abi::GlobalRegOffset(abi::GlobalReg::kCount)) {
    value = sram_.ReadGlobalReg(static_cast<abi::GlobalReg>((offset - abi::kMmioRegisterBase) / 8));
  }
  return value;
}

}  // namespace nicsim::hw::func
