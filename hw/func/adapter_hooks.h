// SPDX-License-Identifier: Apache-2.0
// The adapter's clock and observer hooks as its parts call them. AdapterModel implements them
// with functional defaults; timed backends and checkers (hw/systemc) override them.
#pragma once

#include <cstdint>

#include "firmware/platform.h"
#include "hw/func/dma_job.h"

namespace nicsim::hw::func {

/** The overridable points of one adapter that its parts (DMA, link, trace) call. */
class AdapterHooks {
 public:
  virtual ~AdapterHooks() = default;
  /** Timing hook: the current time as the hardware sees it. */
  virtual uint64_t NowPs() = 0;
  /** Observer hook: a receive payload was given DTB `dtb` from the free list. */
  virtual void OnPayloadDtbTaken(fw::DtbId dtb) = 0;
  /** Observer hook: a DMA completed with `status` (before the microcode hears of it). */
  virtual void OnDmaCompleted(const DmaJob& job, fw::DmaStatus status) = 0;
};

}  // namespace nicsim::hw::func
