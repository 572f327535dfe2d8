// SPDX-License-Identifier: Apache-2.0
// The functional adapter model's parameters, declared beside AdapterResources and
// AdapterTiming: their defaults are those structs' members'.
#pragma once

#include "base/params.h"
#include "hw/func/adapter_config.h"

namespace nicsim::hw::func {

inline const ParamDecls<AdapterResources>& AdapterResourceParams() {
  using C = AdapterResources;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int("adapter.dtbs", &C::dtbs, 1, 1024,
                 "Data transfer buffers (payload staging, one receive frame each)")
           .Int("adapter.header_buffers", &C::header_buffers, 1, 1024,
                "Header buffers for outgoing packets")
           .Int("adapter.link_queue_frames", &C::link_queue_frames, 1, 1024,
                "Frames the link output queue holds; a transmit task waits for room beyond that");
  return *decls;
}

inline const ParamDecls<AdapterTiming>& AdapterTimingParams() {
  using C = AdapterTiming;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->RatePsPerByte("link.bandwidth", &C::link_ps_per_byte,
                           "Bandwidth of each adapter's link to the fabric, per direction")
           .Duration("host.interrupt_latency", &C::interrupt_latency_ps,
                     "Time from an adapter interrupt to its handler running on the host")
           .Duration("mmio.latency", &C::mmio_latency_ps,
                     "Latency of one host MMIO access to the adapter")
           .Duration("dma.latency", &C::dma_latency_ps,
                     "Latency of one adapter DMA transfer to or from host memory")
           .RatePsPerByte("dma.bandwidth", &C::dma_ps_per_byte,
                          "Bandwidth of the adapter's DMA engine");
  return *decls;
}

}  // namespace nicsim::hw::func
