// SPDX-License-Identifier: Apache-2.0
// The PageTable seam: how the driver translates a process's virtual addresses to the real
// pages behind them when it pins and maps a buffer for RDMA.
#pragma once

#include <cstdint>
#include <optional>

namespace nicsim::host {

/** One virtual page as the operating system maps it. */
struct PageMapping {
  /** Real address of the page start (a multiple of the page size). */
  uint64_t real_addr;
  /** log2 of the page size in bytes. */
  uint32_t page_shift;
};

/** A process's page tables, read-only to the driver. */
class PageTable {
 public:
  virtual ~PageTable() = default;
  /** The real page behind virtual address vaddr, or nullopt if unmapped. */
  virtual std::optional<PageMapping> Lookup(uint64_t vaddr) const = 0;
};

}  // namespace nicsim::host
