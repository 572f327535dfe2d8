// SPDX-License-Identifier: Apache-2.0
// PVO validation and translation, in the reference adapter's order: the table's owner
// against the packet's job, the TCE fetched from host memory, its key against the PVO's,
// and the page bounds (with the 64-bit wrap check); then real address = TCE + offset.
#pragma once

#include <cstdint>

#include "firmware/counters.h"
#include "firmware/platform.h"
#include "firmware/task.h"

namespace nicsim::fw {

/** Outcome of a translation step. */
enum class TceVerdict : uint8_t {
  kOk,
  /** The PVO's table is not owned by the job: the packet is dropped silently. */
  kNotOwner,
  /** A protection failure (bounds, wrap, invalid TCE, key): an address exception. */
  kException,
};

/** Which TCEs a translation needs: `count` consecutive entries at `entry_addr`. */
struct TcePlan {
  uint64_t entry_addr = 0;
  uint32_t count = 0;
  uint32_t page_shift = 0;
};

/**
 * Checks `len` bytes at `pvo` against the table descriptor in SRAM for `job` and plans the
 * TCE fetch. A zero-length access still needs the PVO's own TCE (its key is checked).
 */
TceVerdict PlanTranslation(Platform& platform, uint64_t pvo, uint64_t len, uint32_t job,
                           TcePlan* plan);

/**
 * Starts the DMA that brings the plan's TCEs into the task's header buffer and remembers the
 * plan in the task (its registers) for FinishTranslation.
 */
void StartTceFetch(Platform& platform, Counters& counters, Task& task, const TcePlan& plan);
/** The plan StartTceFetch remembered. */
inline TcePlan PlanOf(const Task& task) {
  return TcePlan{task.tce_addr, task.tce_count, task.page_shift};
}

/**
 * Checks the fetched entries (`plan.count` abi::TceEntry values at `entries`) and fills the
 * task's host segments for [pvo, pvo + len).
 */
TceVerdict FinishTranslation(const TcePlan& plan, const uint8_t* entries, uint64_t pvo,
                             uint32_t len, Task& task);

}  // namespace nicsim::fw
