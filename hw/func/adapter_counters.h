// SPDX-License-Identifier: Apache-2.0
// Hardware-side counters of one adapter and the table that puts them in stats.json. Each
// part of the adapter counts its own fields (named in each part's header).
#pragma once

#include <array>
#include <cstdint>

#include "base/counter_table.h"

namespace nicsim::hw::func {

/** Hardware-side counters of one adapter (kAdapterCounterFields says what each is). */
struct AdapterCounters {
  uint64_t payload_dtb_waits = 0;
  uint64_t header_task_waits = 0;
  uint64_t dma_to_host = 0;
  uint64_t dma_from_host = 0;
  uint64_t dma_bytes = 0;
  uint64_t dma_address_errors = 0;
  uint64_t dma_to_freed_memory = 0;
  uint64_t input_queue_peak = 0;
  uint64_t link_queue_full = 0;
  uint64_t trace_events = 0;
  /**
   * Not in stats.json (the lifecycle workload reports dropped_by_reset in its results; the
   * link frame counts serve tests and the fuzz targets): DMA completions and payloads
   * discarded because the adapter was reset under them, and frames taken from and given to
   * the link.
   */
  uint64_t dropped_by_reset = 0;
  uint64_t frames_in = 0;
  uint64_t frames_out = 0;
};

/** The counters of AdapterCounters in stats.json (each adapter's entry) and what they count. */
inline constexpr std::array<CounterField<AdapterCounters>, 10> kAdapterCounterFields = {{
    {"payload_dtb_waits", &AdapterCounters::payload_dtb_waits,
     "payloads that had to wait for a free DTB"},
    {"header_task_waits", &AdapterCounters::header_task_waits,
     "headers that had to wait for a free receive task or channel buffer"},
    {"dma_to_host", &AdapterCounters::dma_to_host, "DMA writes into host memory"},
    {"dma_from_host", &AdapterCounters::dma_from_host, "DMA reads from host memory"},
    {"dma_bytes", &AdapterCounters::dma_bytes, "bytes moved by DMA, both directions"},
    {"dma_address_errors", &AdapterCounters::dma_address_errors,
     "DMAs that failed: an address outside host memory or in freed memory"},
    {"dma_to_freed_memory", &AdapterCounters::dma_to_freed_memory,
     "device writes aimed at host memory that had been freed (must stay zero)"},
    {"input_queue_peak", &AdapterCounters::input_queue_peak,
     "most frames waiting in the link's input queue at once"},
    {"link_queue_full", &AdapterCounters::link_queue_full,
     "times a transmit task found the link's output queue full and waited"},
    {"trace_events", &AdapterCounters::trace_events, "firmware trace events emitted"},
}};

}  // namespace nicsim::hw::func
