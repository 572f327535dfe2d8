// SPDX-License-Identifier: Apache-2.0
// Adapter SRAM and global registers: range-checked copies in and out, and the reset that
// zeroes them.
#include "hw/func/adapter_sram.h"

#include <sys/mman.h>

#include <algorithm>
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

void SramUnmapper::operator()(uint8_t* p) const { munmap(p, bytes); }

void AdapterSram::ClearSram() {
  sram_.reset();
  // Address space only: a page becomes memory when first written and reads zero until then.
  void* p = mmap(nullptr, std::max<uint64_t>(bytes_, 1), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  NICSIM_CHECK(p != MAP_FAILED, "no memory for %llu bytes of SRAM",
               static_cast<unsigned long long>(bytes_));
  sram_ = std::unique_ptr<uint8_t, SramUnmapper>(static_cast<uint8_t*>(p),
                                                 SramUnmapper{std::max<uint64_t>(bytes_, 1)});
}

}  // namespace nicsim::hw::func
