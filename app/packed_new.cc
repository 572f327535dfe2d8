// SPDX-License-Identifier: Apache-2.0
// The nicsim executable's operator new and delete: inside a base::PackNodeState scope a block
// comes from the process's packed region, so one node's objects lie together; everywhere
// else, and once the region is full, from malloc. Linked into the nicsim executable only
// (cmake/allocator.cmake: not under the sanitizers, which check new and delete themselves).
// docs/measurements.md has what it saves.
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include "base/packed_region.h"

#ifdef NICSIM_WITH_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

namespace {

/**
 * Address space for every node's and rank's objects, paid as written: 4 GiB (the 1,024-rank
 * allreduce writes 72 MB of it), or a sixteenth of the process's address-space limit
 * (`ulimit -v`) if that is less, so that host memory keeps the rest.
 */
size_t PackedRegionBytes() {
  size_t bytes = size_t{4} << 30;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    bytes = std::min<size_t>(bytes, limit.rlim_cur / 16);
  }
  return bytes;
}

nicsim::base::PackedRegion& Region() {
  // Never destroyed: objects in it may be deleted by other static destructors at exit.
  static auto* region = new (std::malloc(sizeof(nicsim::base::PackedRegion)))
      nicsim::base::PackedRegion(PackedRegionBytes());
  return *region;
}

/** Off with NICSIM_PACKED_NEW=0 (to measure what packing brings). */
bool PackingEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("NICSIM_PACKED_NEW");
    return v == nullptr || v[0] != '0';
  }();
  return enabled;
}

/** malloc's alignment is enough (else the block comes from aligned_alloc). */
bool PlainAlignment(size_t align) { return align <= alignof(std::max_align_t); }

/** The size asked of malloc or aligned_alloc, and so the size given back to sdallocx. */
size_t MallocSize(size_t bytes, size_t align) {
  if (PlainAlignment(align)) return bytes == 0 ? 1 : bytes;
  return (bytes + align - 1) / align * align;
}

void* Allocate(size_t bytes, size_t align) {
  if (nicsim::base::PackNodeState::active() && PackingEnabled()) {
    if (void* p = Region().Allocate(bytes, align)) return p;
  }
  const size_t size = MallocSize(bytes, align);
  void* p = PlainAlignment(align) ? std::malloc(size) : std::aligned_alloc(align, size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

/** True (and `p` given back) if `p` came from the packed region. */
bool FreedFromRegion(void* p) noexcept {
  // Only a PackNodeState ever puts a block there, so a region exists when one is found.
  static nicsim::base::PackedRegion* const region = PackingEnabled() ? &Region() : nullptr;
  if (region == nullptr || !region->Owns(p)) return false;
  region->Release();
  return true;
}

void Free(void* p) noexcept {
  if (p == nullptr || FreedFromRegion(p)) return;
  std::free(p);
}

/**
 * A block whose size the caller knows: with jemalloc, given back without looking its size up
 * (the lookup is a read of allocator metadata, often cold in a large run).
 */
void FreeSized(void* p, size_t bytes, size_t align) noexcept {
  if (p == nullptr || FreedFromRegion(p)) return;
#ifdef NICSIM_WITH_JEMALLOC
  sdallocx(p, MallocSize(bytes, align), PlainAlignment(align) ? 0 : MALLOCX_ALIGN(align));
#else
  static_cast<void>(bytes);
  static_cast<void>(align);
  std::free(p);
#endif
}

constexpr size_t kDefaultAlign = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

}  // namespace

void* operator new(size_t n) { return Allocate(n, kDefaultAlign); }
void* operator new[](size_t n) { return Allocate(n, kDefaultAlign); }
void* operator new(size_t n, std::align_val_t a) { return Allocate(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return Allocate(n, static_cast<size_t>(a)); }
void operator delete(void* p) noexcept { Free(p); }
void operator delete[](void* p) noexcept { Free(p); }
void operator delete(void* p, size_t n) noexcept { FreeSized(p, n, kDefaultAlign); }
void operator delete[](void* p, size_t n) noexcept { FreeSized(p, n, kDefaultAlign); }
void operator delete(void* p, std::align_val_t) noexcept { Free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Free(p); }
void operator delete(void* p, size_t n, std::align_val_t a) noexcept {
  FreeSized(p, n, static_cast<size_t>(a));
}
void operator delete[](void* p, size_t n, std::align_val_t a) noexcept {
  FreeSized(p, n, static_cast<size_t>(a));
}
