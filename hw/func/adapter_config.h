// SPDX-License-Identifier: Apache-2.0
// What one adapter is built with: its buffer counts and its nominal (functional) costs.
// Their parameter tables are in adapter_params.h.
#pragma once

#include <cstdint>

namespace nicsim::hw::func {

/** Hardware resources of the adapter. */
struct AdapterResources {
  /** Data transfer buffers (payload staging, each one receive frame). */
  uint32_t dtbs = 8;
  /** Header buffers for outgoing packets. */
  uint32_t header_buffers = 16;
  /**
   * Frames the link's output queue holds (the one being serialised included); a transmit
   * task waits for room rather than queue without bound.
   */
  uint32_t link_queue_frames = 4;
};

/** Nominal costs of the functional model (all deterministic). */
struct AdapterTiming {
  uint64_t mmio_latency_ps = 150'000;
  uint64_t dma_latency_ps = 400'000;
  /** Picoseconds per byte moved by the DMA engine (4 GB/s = 250). */
  double dma_ps_per_byte = 250.0;
  /** Picoseconds per byte on the link (2 GB/s = 500). */
  double link_ps_per_byte = 500.0;
  uint64_t interrupt_latency_ps = 2'000'000;
};

}  // namespace nicsim::hw::func
