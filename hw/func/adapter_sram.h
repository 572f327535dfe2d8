// SPDX-License-Identifier: Apache-2.0
// The adapter's SRAM and global registers: the state the microcode and the host's MMIO
// window read and write, cleared by a reset.
#pragma once

#include <cstdint>
#include <memory>

#include "abi/mmio.h"

namespace nicsim::hw::func {

/** Unmaps an adapter's SRAM. */
struct SramUnmapper {
  uint64_t bytes = 0;
  void operator()(uint8_t* p) const;
};

/** SRAM (zeroed; a page costs memory once written) and the global registers of an adapter. */
class AdapterSram {
 public:
  explicit AdapterSram(uint64_t bytes);

  uint64_t bytes() const { return bytes_; }
  /** Copies `len` bytes at `addr` to `dst`; the range must lie in SRAM. */
  void Read(uint64_t addr, void* dst, uint64_t len) const;
  /** Copies `len` bytes from `src` to `addr`; the range must lie in SRAM. */
  void Write(uint64_t addr, const void* src, uint64_t len);
  uint64_t ReadGlobalReg(abi::GlobalReg reg) const {
    return global_regs_[static_cast<size_t>(reg)];
  }
  void WriteGlobalReg(abi::GlobalReg reg, uint64_t value) {
    global_regs_[static_cast<size_t>(reg)] = value;
  }
  /** Fresh, zeroed SRAM and registers (a reset: every LMT reads closed). */
  void Clear();

 private:
  /** Fresh, zeroed SRAM. */
  void ClearSram();

  /** Mapped on its own (not from the heap, which keeps freed memory for reuse and would
   *  hand back used memory to clear), so a large rCxt pool costs memory only where used. */
  std::unique_ptr<uint8_t, SramUnmapper> sram_;
  uint64_t bytes_;
  uint64_t global_regs_[static_cast<size_t>(abi::GlobalReg::kCount)] = {};
};

}  // namespace nicsim::hw::func
