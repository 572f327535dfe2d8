// SPDX-License-Identifier: Apache-2.0
// The adapter's trace emission: firmware and hardware events, stamped with the hardware's
// time and the adapter's id, handed to the attached trace sink (if any) and counted.
#pragma once

#include <cstdint>

#include "firmware/platform.h"
#include "hw/func/adapter_counters.h"
#include "hw/func/adapter_hooks.h"

namespace nicsim::hw::func {

/** Receives firmware trace events with the time and adapter they came from. */
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) = 0;
};

/** Emits one adapter's trace events to its sink; counts trace_events. */
class AdapterTrace {
 public:
  /** Events are stamped with `hooks.NowPs()` and `adapter_id`. */
  AdapterTrace(uint16_t adapter_id, AdapterHooks& hooks, AdapterCounters& counters)
      : adapter_id_(adapter_id), hooks_(hooks), counters_(counters) {}

  /** Events go to `sink` from now on; none are recorded without one. */
  void Attach(TraceSink* sink) { sink_ = sink; }
  /** True while a trace sink records events. */
  bool tracing() const { return sink_ != nullptr; }

  /** Records a hardware event in the trace (only when a trace sink is attached). */
  void Hardware(fw::TraceKind kind, fw::TaskId task, uint32_t state, uint64_t value) {
#ifndef NICSIM_TRACE_COMPILED_OUT  // defined only by bench/trace_overhead's reference build
    // Inline, so a hardware event costs one test when tracing is off.
    if (sink_ != nullptr) RecordHardware(kind, task, state, value);
#else
    static_cast<void>(kind);
    static_cast<void>(task);
    static_cast<void>(state);
    static_cast<void>(value);
#endif
  }
  /** Counts a firmware event and records it when a sink is attached. */
  void Firmware(const fw::TraceEvent& event);
  /** Counts a firmware event that was not built because nothing records it. */
  void CountUnbuilt() { ++counters_.trace_events; }

 private:
  /** Builds a hardware trace event and hands it to the trace sink (which is attached). */
  void RecordHardware(fw::TraceKind kind, fw::TaskId task, uint32_t state, uint64_t value);

  uint16_t adapter_id_;
  AdapterHooks& hooks_;
  AdapterCounters& counters_;
  TraceSink* sink_ = nullptr;
};

}  // namespace nicsim::hw::func
