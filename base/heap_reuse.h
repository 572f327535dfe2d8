// SPDX-License-Identifier: Apache-2.0
// The process heap keeps what is freed for the next allocation instead of giving it back to
// the system at once.
#pragma once

#include <malloc.h>

namespace nicsim {

/**
 * By default glibc maps a block above 128 KiB on its own and unmaps it when freed, and gives
 * back the heap's free top beyond 128 KiB: a simulation that frees and allocates message
 * buffers all the time then pays a page fault per 4 KiB of every buffer, every time
 * (docs/measurements.md has the figures). Blocks up to 32 MiB come from the heap, and up to
 * 256 MiB of free heap top is kept. The peak resident size is unchanged: what is kept is what was
 * in use before.
 */
inline void KeepFreedHeapForReuse() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

}  // namespace nicsim
