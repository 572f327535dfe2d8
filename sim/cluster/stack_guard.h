// SPDX-License-Identifier: Apache-2.0
// Turns a rank's stack overflow into a message instead of a bare segmentation fault: the guard
// pages below the rank stacks are registered, and a SIGSEGV handler (on its own signal stack,
// since the faulting stack is full) names the rank whose guard was hit and exits 1.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nicsim::sim {

/**
 * Registers [guard, guard + bytes) as the guard page of rank `rank`'s stack. The first call
 * installs the handler; a fault outside every registered guard keeps the default action (a
 * crash with its usual signal). Not installed under AddressSanitizer, which reports stack
 * overflows itself. Call from the thread that runs the ranks.
 */
void WatchStackGuard(const void* guard, size_t bytes, uint32_t rank);
/** Forgets the guard at `guard` (its stack is being unmapped). */
void UnwatchStackGuard(const void* guard);

}  // namespace nicsim::sim
