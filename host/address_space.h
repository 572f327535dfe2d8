// SPDX-License-Identifier: Apache-2.0
// A process's virtual memory on a node's HostMemory: mappings of 4 KiB, 64 KiB or 16 MiB
// pages whose real pages are scattered, CPU reads and writes through them, and remapping.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "base/rng.h"
#include "base/status.h"
#include "host/page_table.h"
#include "host/host_memory.h"

namespace nicsim::host {

/**
 * Virtual memory of one process. Each mapping is a run of whole pages of one size at a
 * fresh virtual address, with an unmapped page after it so overruns fault; its real pages
 * are allocated separately and assigned in a shuffled order, so a virtually contiguous
 * buffer is never one physically contiguous run (as on a real, fragmented machine).
 */
class AddressSpace final : public PageTable {
 public:
  /** The first virtual address handed out. */
  static constexpr uint64_t kBaseVaddr = 0x7000'0000'0000;

  /** `seed` drives the order real pages are assigned in. `mem` must outlive this. */
  AddressSpace(HostMemory& mem, uint64_t seed);
  /** Frees the real pages of every mapping left. */
  ~AddressSpace() override;
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  /**
   * Maps `bytes` rounded up to whole pages of 1 << page_shift bytes (abi::kPageShift4K,
   * 64K or 16M); returns the mapping's virtual address (page aligned). When the node's memory
   * has no room, its reclaimers are asked to give back what they keep (HostMemory::Reclaim)
   * and the map is tried once more.
   */
  Result<uint64_t> Map(uint64_t bytes, uint32_t page_shift);
  /** The node's memory this space maps. */
  HostMemory& memory() { return mem_; }
  /** Removes the mapping that starts at `vaddr` and frees its real pages. */
  Status Unmap(uint64_t vaddr);
  /**
   * Gives the mapping that starts at `vaddr` newly allocated real pages (contents not
   * copied) and frees the old ones: a segment detached and another attached in its place.
   */
  Status Remap(uint64_t vaddr);

  /** CPU store of `len` bytes at `vaddr`; false (nothing written) if any byte is unmapped. */
  bool Write(uint64_t vaddr, const void* src, uint64_t len);
  /** CPU load of `len` bytes at `vaddr`; false if any byte is unmapped. */
  bool Read(uint64_t vaddr, void* dst, uint64_t len) const;
  /**
   * Read onto the end of `out`, which grows by `len` without being zero-filled first; false,
   * and `len` zero bytes appended, if any byte is unmapped.
   */
  bool ReadAppend(uint64_t vaddr, uint64_t len, std::vector<uint8_t>& out) const;

  /** The contents of [vaddr, vaddr + len) are no longer wanted: HostMemory::Discard of each
   *  real page's part (whole system pages given back, reading zero), up to the first
   *  unmapped byte. */
  void Discard(uint64_t vaddr, uint64_t len);
  /**
   * A CPU pointer to [vaddr, vaddr + len) when the range lies in one real page (so its bytes
   * are contiguous in host memory), else nullptr: how a process uses memory it keeps for the
   * adapter to read and write directly.
   */
  uint8_t* Contiguous(uint64_t vaddr, uint64_t len) const {
    uint64_t left = 0;
    uint8_t* at = Locate(vaddr, &left);
    return at != nullptr && len <= left ? at : nullptr;
  }

  /** The real page behind `vaddr`, or nullopt if unmapped. */
  std::optional<PageMapping> Lookup(uint64_t vaddr) const override;

 private:
  struct Mapping {
    uint32_t page_shift = 0;
    /** Real page behind each virtual page, in virtual order. */
    std::vector<HostRegion> pages;
  };
  /** Allocates `count` pages of 1 << page_shift bytes in a scattered order. */
  Result<std::vector<HostRegion>> AllocPages(uint64_t count, uint32_t page_shift);
  void FreePages(const std::vector<HostRegion>& pages);
  /** The mapping holding `vaddr` and its start, or nullptr. */
  const Mapping* Find(uint64_t vaddr, uint64_t* start) const;
  /** CPU pointer for the byte at `vaddr` and the bytes left in its page; nullptr if unmapped. */
  uint8_t* Locate(uint64_t vaddr, uint64_t* page_left) const;
  /** Every byte of [vaddr, vaddr + len) is mapped. */
  bool Mapped(uint64_t vaddr, uint64_t len) const;
  /** fn(CPU pointer, offset in the range, bytes) for each page's part of a Mapped range. */
  template <typename Fn>
  void ForEachPiece(uint64_t vaddr, uint64_t len, Fn&& fn) const;

  HostMemory& mem_;
  Rng rng_;
  /** Mappings by their first virtual address. */
  std::map<uint64_t, Mapping> mappings_;
  uint64_t next_vaddr_ = kBaseVaddr;
};

}  // namespace nicsim::host
