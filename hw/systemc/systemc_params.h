// SPDX-License-Identifier: Apache-2.0
// The SystemC adapter's parameters, declared beside SystemcTiming: their defaults are its
// members'. The host bus's costs are the DMA engine's (dma.*), set by the cluster.
#pragma once

#include "base/params.h"
#include "hw/systemc/systemc_timing.h"

namespace nicsim::hw::systemc {

inline const ParamDecls<SystemcTiming>& SystemcTimingParams() {
  using C = SystemcTiming;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Duration("systemc.quantum", &C::quantum_ps,
                      "SystemC backend: temporal decoupling quantum (reported in stats.json); 0 = "
                      "lock-step")
           .Duration("adapter.cycle", &C::cycle_ps,
                     "SystemC backend: adapter clock period (2ns = 500 MHz)")
           .IntList("adapter.rx_cycles", &C::rx_cycles, 0, 1000000,
                    "SystemC backend: microcode cycles per receive state: validate, bind, admit, "
                    "move_body, signal, finish, discard",
                    "receive state")
           .IntList("adapter.tx_cycles", &C::tx_cycles, 0, 1000000,
                    "SystemC backend: microcode cycles per transmit state: select, fetch_header, "
                    "fetch_body, inject, mark_done, finish",
                    "transmit state")
           .IntList(
               "adapter.rdma_rx_cycles", &C::rdma_rx_cycles, 0, 1000000,
               "SystemC backend: microcode cycles per RDMA receive state: rdma_admit, "
               "rdma_translate, rdma_place, rdma_move, rdma_landed, rdma_notify, rdma_notified",
               "RDMA receive state")
           .IntList("adapter.rdma_tx_cycles", &C::rdma_tx_cycles, 0, 1000000,
                    "SystemC backend: microcode cycles per RDMA transmit state: post, "
                    "rdma_translate, rdma_check, rdma_load, rdma_inject",
                    "RDMA transmit state")
           .IntList("adapter.work_cycles", &C::work_cycles, 0, 1000000,
                    "SystemC backend: microcode cycles per work manager state: post",
                    "work manager state")
           .Duration(
               "adapter.sram_word", &C::sram_word_ps,
               "SystemC backend: adapter SRAM access time per 8-byte word the microcode touches");
  return *decls;
}

}  // namespace nicsim::hw::systemc
