// SPDX-License-Identifier: Apache-2.0
// Adapter SRAM and global registers: range-checked copies in and out, and the reset that
// zeroes them.
#include "hw/func/adapter_sram.h"

#include <cstring>

#include "base/check.h"

namespace nicsim::hw::func {

AdapterSram::AdapterSram(uint64_t bytes) : bytes_(bytes) { ClearSram(); }

void AdapterSram::Read(uint64_t addr, void* dst, uint64_t len) const {
  NICSIM_CHECK(addr + len <= bytes_, "SRAM read out of range");
  std::memcpy(dst, sram_.get() + addr, len);
}

void AdapterSram::Write(uint64_t addr, const void* src, uint64_t len) {
  NICSIM_CHECK(addr + len <= bytes_, "SRAM write out of range");
  std::memcpy(sram_.get() + addr, src, len);
}

void AdapterSram::Clear() {
  ClearSram();
  for (uint64_t& r : global_regs_) r = 0;
}

void AdapterSram::ClearSram() {
  sram_.reset(static_cast<uint8_t*>(std::calloc(bytes_, 1)));
  NICSIM_CHECK(sram_ != nullptr, "no memory for %llu bytes of SRAM",
               static_cast<unsigned long long>(bytes_));
}

}  // namespace nicsim::hw::func
