// SPDX-License-Identifier: Apache-2.0
// Trace emission of one adapter: builds hardware events, stamps and counts firmware events.
#include "hw/func/adapter_trace.h"

namespace nicsim::hw::func {

void AdapterTrace::RecordHardware(fw::TraceKind kind, fw::TaskId task, uint32_t state,
                                  uint64_t value) {
  fw::TraceEvent ev;
  ev.kind = kind;
  ev.task = task;
  ev.state = state;
  ev.value = value;
  sink_->Record(hooks_.NowPs(), adapter_id_, ev);
}

// NICSIM_TRACE_COMPILED_OUT is defined only by bench/trace_overhead's reference build, which
// measures what tracing costs when it is off: there, a firmware event does nothing.
void AdapterTrace::Firmware(const fw::TraceEvent& event) {
#ifndef NICSIM_TRACE_COMPILED_OUT
  ++counters_.trace_events;
  if (sink_ != nullptr) sink_->Record(hooks_.NowPs(), adapter_id_, event);
#else
  static_cast<void>(event);
#endif
}

}  // namespace nicsim::hw::func
