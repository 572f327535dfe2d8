// SPDX-License-Identifier: Apache-2.0
// What a task's process offers the layers above the HAL: time and timers, its virtual memory,
// and buffer registration for RDMA (the driver call that pins and maps pages in the node's
// TCE tables).
#pragma once

#include <cstdint>
#include <functional>

#include "abi/rdma.h"
#include "base/status.h"
#include "driver/tce_tables.h"
#include "host/address_space.h"
#include "kernel/clock.h"

namespace nicsim::hal {

class TaskHost {
 public:
  /** The node's TCE tables now (a node reboot builds new ones). */
  using TablesFn = std::function<driver::TceTables&()>;

  TaskHost(kernel::Clock& clock, host::AddressSpace& space, TablesFn tables, uint32_t job_key)
      : clock_(clock), space_(space), tables_(std::move(tables)), job_key_(job_key) {}

  uint64_t NowPs() { return clock_.NowPs(); }
  /** Runs `fn` after `delay_ps` (a timer). */
  void After(uint64_t delay_ps, std::function<void()> fn) { clock_.After(delay_ps, std::move(fn)); }
  /** A housekeeping timer, which keeps no simulation alive (kernel::Clock::Background). */
  void Background(uint64_t delay_ps, std::function<void()> fn) {
    clock_.Background(delay_ps, std::move(fn));
  }
  bool Read(uint64_t vaddr, void* dst, uint64_t len) { return space_.Read(vaddr, dst, len); }
  /** Read onto the end of `out`, which is not zero-filled first (AddressSpace::ReadAppend). */
  bool ReadAppend(uint64_t vaddr, uint64_t len, std::vector<uint8_t>& out) {
    return space_.ReadAppend(vaddr, len, out);
  }
  bool Write(uint64_t vaddr, const void* src, uint64_t len) {
    return space_.Write(vaddr, src, len);
  }
  /** The contents of [vaddr, vaddr + len) are no longer wanted (madvise(MADV_DONTNEED)):
   *  whole pages in it cost no memory and read zero until written again. */
  void Discard(uint64_t vaddr, uint64_t len) { space_.Discard(vaddr, len); }
  /** Maps fresh virtual memory (receive landing areas): large areas on 16 MiB pages (few
   *  TCEs), smaller ones on 64 KiB pages. */
  Result<uint64_t> Map(uint64_t bytes);
  /** Removes a mapping from Map or MapContiguous (deregister it first). */
  Status Unmap(uint64_t vaddr) { return space_.Unmap(vaddr); }
  /** Registers `fn` to give back memory kept for reuse when a map of any process of the
   *  node would fail (host::HostMemory::AddReclaimer); returns the handle to remove it. */
  uint64_t AddReclaimer(host::HostMemory::Reclaimer fn) {
    return space_.memory().AddReclaimer(std::move(fn));
  }
  void RemoveReclaimer(uint64_t handle) { space_.memory().RemoveReclaimer(handle); }
  /**
   * Maps up to 16 MiB on one 16 MiB page, so the area is contiguous in host memory and the
   * task can use it through a CPU pointer (Contiguous): buffers RDMA reaches without copies.
   */
  Result<uint64_t> MapContiguous(uint64_t bytes) {
    if (bytes > (uint64_t{16} << 20)) return Status::Error("MapContiguous: at most 16 MiB");
    return space_.Map(bytes, abi::kPageShift16M);
  }
  /** CPU pointer to [vaddr, vaddr + len) if it is contiguous in host memory, else nullptr. */
  uint8_t* Contiguous(uint64_t vaddr, uint64_t len) { return space_.Contiguous(vaddr, len); }
  /** The task's page tables. */
  const host::PageTable& pages() { return space_; }
  /** Pins and maps [vaddr, vaddr + len) for RDMA. */
  Result<driver::Registration> Register(uint64_t vaddr, uint64_t len) {
    return tables_().Register(job_key_, space_, vaddr, len);
  }
  /** Register, at exactly `pvo` (where the other members of a group have theirs), or fails. */
  Result<driver::Registration> RegisterAt(uint64_t vaddr, uint64_t len, uint64_t pvo) {
    return tables_().Register(job_key_, space_, vaddr, len, 0, pvo);
  }
  Status Deregister(const driver::Registration& reg) { return tables_().Deregister(reg); }

 private:
  kernel::Clock& clock_;
  host::AddressSpace& space_;
  TablesFn tables_;
  uint32_t job_key_;
};

}  // namespace nicsim::hal
