// SPDX-License-Identifier: Apache-2.0
// Host-side trace events: what the HAL and the process above it do that the adapter cannot see
// (a receive frame consumed), recorded beside the firmware trace in the same line format.
#pragma once

#include <cstdint>
#include <string_view>

namespace nicsim::sim {

/** Kinds of host trace events. */
enum class HostTraceKind : uint8_t {
  kFrameConsumed,  // the process consumed receive frame `value` (its sequence number) of `window`
};

/** The trace name of a host event kind ("frame_consumed"). */
constexpr std::string_view HostTraceKindName(HostTraceKind kind) {
  switch (kind) {
    case HostTraceKind::kFrameConsumed:
      return "frame_consumed";
  }
  return "?";
}

/** Every host kind, for parsing trace filters. */
inline constexpr HostTraceKind kHostTraceKinds[] = {HostTraceKind::kFrameConsumed};

/** One host event on a window of an adapter. */
struct HostTraceEvent {
  HostTraceKind kind = HostTraceKind::kFrameConsumed;
  uint32_t window = 0;
  uint64_t value = 0;
};

/** Receives host trace events with the host time and the adapter of the window. */
class HostTraceSink {
 public:
  virtual ~HostTraceSink() = default;
  virtual void RecordHost(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& event) = 0;
};

/** Records `event` if a sink is attached; nothing at all in a trace-compiled-out build. */
inline void TraceHost(HostTraceSink* sink, uint64_t time_ps, uint16_t adapter,
                      const HostTraceEvent& event) {
#ifndef NICSIM_TRACE_COMPILED_OUT  // defined only by bench/trace_overhead's reference build
  if (sink != nullptr) sink->RecordHost(time_ps, adapter, event);
#else
  static_cast<void>(sink);
  static_cast<void>(time_ps);
  static_cast<void>(adapter);
  static_cast<void>(event);
#endif
}

}  // namespace nicsim::sim
