// SPDX-License-Identifier: Apache-2.0
// What the parts of one adapter that schedule work and wake the microcode share: the event
// queue, the hardware's clock and observers, the reset generation, the microcode and how it
// runs, the trace and the counters. AdapterModel owns all of it and hands it to its parts.
#pragma once

#include <cstdint>

#include "firmware/microcode.h"
#include "hw/func/adapter_config.h"
#include "hw/func/adapter_counters.h"
#include "hw/func/adapter_hooks.h"
#include "hw/func/adapter_trace.h"
#include "hw/func/microcode_runner.h"
#include "kernel/event_queue.h"

namespace nicsim::hw::func {

/** References into the adapter that owns a part; valid for the adapter's lifetime. */
struct AdapterContext {
  kernel::EventQueue& events;
  /** The hardware's time (NowPs) and the observer hooks. */
  AdapterHooks& hooks;
  /** Bumped by a reset; work scheduled before it is discarded when its event fires. */
  const uint64_t& generation;
  MicrocodeRunner& runner;
  fw::Microcode& microcode;
  AdapterTrace& trace;
  AdapterCounters& counters;
  const AdapterTiming& timing;
  /**
   * Real-port bursts (AdapterModel::SetRealPortBursts): the payloads of one received burst
   * land as the burst is received (no event), DMA completions are delivered in batches, one
   * event per batch, and the link always has room (the port's own transmit queue is the
   * limit). False on every simulated backend, whose timing stays per frame.
   */
  const bool& bursts;
};

}  // namespace nicsim::hw::func
