// SPDX-License-Identifier: Apache-2.0
// The microcode's parameters (adapter.* tasks and buffers, rdma.rcxts), declared beside
// MicrocodeConfig: their defaults are its members'.
#pragma once

#include "base/params.h"
#include "firmware/microcode.h"

namespace nicsim::fw {

inline const ParamDecls<MicrocodeConfig>& MicrocodeParams() {
  using C = MicrocodeConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int("adapter.tasks", &C::tasks, 2, 64,
                 "Microcode tasks the hardware pre-allocates (one is the work manager's)")
           .Int("adapter.rx_tasks", &C::rx_tasks, 1, 64,
                "Receive tasks active at once (concurrent packet handlers)")
           .Int("adapter.tx_tasks", &C::tx_tasks, 1, 64,
                "Transmit tasks active at once (concurrent packet builders)")
           .Int("adapter.tx_switch_every", &C::tx_switch_every, 1, 1024,
                "Packets a send task sends from one window before switching to the next with work")
           .Int("adapter.channel_buffers", &C::channel_buffers, 1, 128,
                "Channel buffers (LMT caches, 2 x 256 bytes each); tasks of one window share one")
           .Int("adapter.interrupt_handlers", &C::interrupt_handlers, 1, 8,
                "Interrupt handlers registered with the adapter; events go to the next ready one")
           .Int(
               "rdma.rcxts", &C::rcxts, 1, abi::kMaxRcxts,
               "rCxts per adapter (64 bytes each in adapter SRAM, which the host reaches through a "
               "16 MiB window)");
  return *decls;
}

}  // namespace nicsim::fw
