// SPDX-License-Identifier: Apache-2.0
// Prefaulting by madvise(MADV_POPULATE_WRITE) (Linux 5.14).
#include "host/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

namespace nicsim::host {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

bool PrefaultForWrite(const uint8_t* p, uint64_t len) {
  if (len == 0) return true;
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + len + page - 1) / page * page;
  return madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) == 0;
}

}  // namespace nicsim::host
