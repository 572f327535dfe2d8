// SPDX-License-Identifier: Apache-2.0
// Timing parameters of the SystemC adapter model, as plain numbers (no SystemC types), so
// the simulation layer can fill them without including SystemC.
#pragma once

#include <array>
#include <cstdint>

namespace nicsim::hw::systemc {

/** Receive states in RxState order, transmit states in TxState order. */
inline constexpr size_t kRxCostStates = 7;
inline constexpr size_t kTxCostStates = 6;
/** RDMA receive states (rdma_admit .. rdma_notified) and transmit states (post .. rdma_inject),
 *  which follow the packet-mode states in RxState and TxState. */
inline constexpr size_t kRdmaRxCostStates = 7;
inline constexpr size_t kRdmaTxCostStates = 5;
/** Work manager task states (post). */
inline constexpr size_t kWorkCostStates = 1;

/** Costs of the cycle-approximate adapter. */
struct SystemcTiming {
  /** Temporal decoupling quantum; 0 is lock-step. */
  uint64_t quantum_ps = 1'000'000;
  /** Adapter clock period (500 MHz). */
  uint64_t cycle_ps = 2'000;
  /** Microcode cycles per receive state: validate, bind, admit, move_body, signal, finish, discard.
   */
  std::array<uint32_t, kRxCostStates> rx_cycles = {24, 8, 30, 12, 14, 20, 4};
  /** Microcode cycles per transmit state: select, fetch_header, fetch_body, inject, mark_done,
   * finish. */
  std::array<uint32_t, kTxCostStates> tx_cycles = {28, 10, 22, 30, 12, 16};
  /** Cycles per RDMA receive state: rdma_admit, rdma_translate, rdma_place, rdma_move,
   *  rdma_landed, rdma_notify, rdma_notified. */
  std::array<uint32_t, kRdmaRxCostStates> rdma_rx_cycles = {26, 16, 18, 12, 20, 14, 8};
  /** Cycles per RDMA transmit state: post, rdma_translate, rdma_check, rdma_load, rdma_inject. */
  std::array<uint32_t, kRdmaTxCostStates> rdma_tx_cycles = {24, 16, 14, 12, 26};
  /** Cycles per work manager state: post (per run; each LMT it updates costs its SRAM words). */
  std::array<uint32_t, kWorkCostStates> work_cycles = {16};
  /** Adapter SRAM access time per 8-byte word the microcode reads or writes. */
  uint64_t sram_word_ps = 4'000;
  /** Host bus (PCIe-like): latency of one DMA transaction and time per byte. */
  uint64_t bus_latency_ps = 400'000;
  double bus_ps_per_byte = 250.0;
};

}  // namespace nicsim::hw::systemc
