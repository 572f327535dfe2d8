// SPDX-License-Identifier: Apache-2.0
// Address space: mappings of whole pages at fresh virtual addresses, real pages allocated
// aligned to their size and assigned in a seeded shuffled order, and CPU access through them.
#include "host/address_space.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "abi/rdma.h"

namespace nicsim::host {
namespace {

/** Virtual addresses stay below this (a 47-bit user address space). */
constexpr uint64_t kEndVaddr = 0x8000'0000'0000;
/** Shuffles tried before falling back to a descending order. */
constexpr int kShuffleTries = 64;

bool IsPageShift(uint32_t shift) {
  return shift == abi::kPageShift4K || shift == abi::kPageShift64K || shift == abi::kPageShift16M;
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/** True if some virtual page is followed by the real page right after its own. */
bool HasAscendingRun(const std::vector<HostRegion>& pages, uint64_t page_bytes) {
  for (size_t i = 1; i < pages.size(); ++i) {
    if (pages[i].real_addr == pages[i - 1].real_addr + page_bytes) return true;
  }
  return false;
}

}  // namespace

AddressSpace::AddressSpace(HostMemory& mem, uint64_t seed)
    : mem_(mem), rng_(seed, "address-space") {}

AddressSpace::~AddressSpace() {
  for (const auto& [vaddr, mapping] : mappings_) FreePages(mapping.pages);
}

Result<uint64_t> AddressSpace::Map(uint64_t bytes, uint32_t page_shift) {
  if (!IsPageShift(page_shift)) {
    return Status::Error("map: page shift " + std::to_string(page_shift) +
                         " is not 12 (4 KiB), 16 (64 KiB) or 24 (16 MiB)");
  }
  if (bytes == 0) return Status::Error("map: cannot map 0 bytes");
  const uint64_t page = uint64_t{1} << page_shift;
  const uint64_t count = bytes / page + (bytes % page != 0 ? 1 : 0);
  if (count > mem_.size() / page) {
    return Status::Error("map: " + std::to_string(bytes) + " bytes exceed the node's " +
                         std::to_string(mem_.size()) + " bytes of host memory");
  }
  const uint64_t vaddr = (next_vaddr_ + page - 1) / page * page;
  // The mapping and the unmapped guard page after it must fit below the end.
  if (vaddr >= kEndVaddr || count + 1 > (kEndVaddr - vaddr) / page) {
    return Status::Error("map: virtual address space exhausted");
  }
  Result<std::vector<HostRegion>> pages = AllocPages(count, page_shift);
  // Memory that processes keep for reuse (their buffer pools) is given back before a map
  // fails for want of it.
  if (!pages.ok() && mem_.Reclaim()) pages = AllocPages(count, page_shift);
  if (!pages.ok()) return Status::Error("map: " + pages.status().message());
  mappings_[vaddr] = Mapping{page_shift, std::move(*pages)};
  next_vaddr_ = vaddr + (count + 1) * page;
  return vaddr;
}

Status AddressSpace::Unmap(uint64_t vaddr) {
  auto it = mappings_.find(vaddr);
  if (it == mappings_.end()) return Status::Error("unmap: no mapping starts at " + Hex(vaddr));
  FreePages(it->second.pages);
  mappings_.erase(it);
  return Status();
}

Status AddressSpace::Remap(uint64_t vaddr) {
  auto it = mappings_.find(vaddr);
  if (it == mappings_.end()) return Status::Error("remap: no mapping starts at " + Hex(vaddr));
  // New pages first, so none of the old real pages comes back behind the same address.
  Result<std::vector<HostRegion>> pages =
      AllocPages(it->second.pages.size(), it->second.page_shift);
  if (!pages.ok()) return Status::Error("remap: " + pages.status().message());
  FreePages(it->second.pages);
  it->second.pages = std::move(*pages);
  return Status();
}

Result<std::vector<HostRegion>> AddressSpace::AllocPages(uint64_t count, uint32_t page_shift) {
  const uint64_t page = uint64_t{1} << page_shift;
  std::vector<HostRegion> pages;
  pages.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    Result<HostRegion> region = mem_.AllocAligned(page, page);
    if (!region.ok()) {
      FreePages(pages);
      return region.status();
    }
    pages.push_back(*region);
  }
  // Fisher-Yates until no virtual page is followed by its real successor; a descending
  // order is the fallback that never has one.
  for (int attempt = 0; attempt < kShuffleTries; ++attempt) {
    for (size_t i = pages.size(); i > 1; --i) std::swap(pages[i - 1], pages[rng_.Below(i)]);
    if (!HasAscendingRun(pages, page)) return pages;
  }
  std::sort(pages.begin(), pages.end(),
            [](const HostRegion& a, const HostRegion& b) { return a.real_addr > b.real_addr; });
  return pages;
}

void AddressSpace::FreePages(const std::vector<HostRegion>& pages) {
  for (const HostRegion& p : pages) mem_.Free(p);
}

const AddressSpace::Mapping* AddressSpace::Find(uint64_t vaddr, uint64_t* start) const {
  auto it = mappings_.upper_bound(vaddr);
  if (it == mappings_.begin()) return nullptr;
  --it;
  const uint64_t offset = vaddr - it->first;
  if ((offset >> it->second.page_shift) >= it->second.pages.size()) return nullptr;
  *start = it->first;
  return &it->second;
}

std::optional<PageMapping> AddressSpace::Lookup(uint64_t vaddr) const {
  uint64_t start = 0;
  const Mapping* m = Find(vaddr, &start);
  if (m == nullptr) return std::nullopt;
  const HostRegion& page = m->pages[(vaddr - start) >> m->page_shift];
  return PageMapping{page.real_addr, m->page_shift};
}

uint8_t* AddressSpace::Locate(uint64_t vaddr, uint64_t* page_left) const {
  uint64_t start = 0;
  const Mapping* m = Find(vaddr, &start);
  if (m == nullptr) return nullptr;
  const uint64_t offset = vaddr - start;
  const uint64_t in_page = offset & ((uint64_t{1} << m->page_shift) - 1);
  *page_left = (uint64_t{1} << m->page_shift) - in_page;
  return m->pages[offset >> m->page_shift].ptr + in_page;
}

template <typename Fn>
void AddressSpace::ForEachPiece(uint64_t vaddr, uint64_t len, Fn&& fn) const {
  for (uint64_t done = 0, left = 0; done < len; done += left) {
    uint8_t* p = Locate(vaddr + done, &left);
    left = std::min(left, len - done);
    fn(p, done, left);
  }
}

bool AddressSpace::Write(uint64_t vaddr, const void* src, uint64_t len) {
  // Check every page first so a faulting store writes nothing.
  if (!Mapped(vaddr, len)) return false;
  const auto* in = static_cast<const uint8_t*>(src);
  ForEachPiece(vaddr, len,
               [in](uint8_t* p, uint64_t done, uint64_t n) { std::memcpy(p, in + done, n); });
  return true;
}

void AddressSpace::Discard(uint64_t vaddr, uint64_t len) {
  if (len > ~uint64_t{0} - vaddr) return;
  for (uint64_t done = 0, left = 0; done < len; done += left) {
    uint64_t start = 0;
    const Mapping* m = Find(vaddr + done, &start);
    if (m == nullptr) return;  // the mapped run ends: nothing further is given back
    const uint64_t offset = vaddr + done - start;
    const uint64_t page = uint64_t{1} << m->page_shift;
    const uint64_t in_page = offset & (page - 1);
    left = std::min(page - in_page, len - done);
    mem_.Discard(m->pages[offset >> m->page_shift].real_addr + in_page, left);
  }
}

bool AddressSpace::Mapped(uint64_t vaddr, uint64_t len) const {
  if (len > ~uint64_t{0} - vaddr) return false;
  for (uint64_t done = 0, left = 0; done < len; done += left) {
    if (Locate(vaddr + done, &left) == nullptr) return false;
  }
  return true;
}

bool AddressSpace::Read(uint64_t vaddr, void* dst, uint64_t len) const {
  if (!Mapped(vaddr, len)) return false;
  auto* out = static_cast<uint8_t*>(dst);
  ForEachPiece(vaddr, len, [out](const uint8_t* p, uint64_t done, uint64_t n) {
    std::memcpy(out + done, p, n);
  });
  return true;
}

bool AddressSpace::ReadAppend(uint64_t vaddr, uint64_t len, std::vector<uint8_t>& out) const {
  if (!Mapped(vaddr, len)) {
    out.resize(out.size() + len);
    return false;
  }
  out.reserve(out.size() + len);
  ForEachPiece(vaddr, len,
               [&out](const uint8_t* p, uint64_t, uint64_t n) { out.insert(out.end(), p, p + n); });
  return true;
}

}  // namespace nicsim::host
