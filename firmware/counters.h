// SPDX-License-Identifier: Apache-2.0
// Microcode counters: packets handled, packets dropped by reason, and the stalls and
// resource waits that show contention. The names here are stats.json keys.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "firmware/states.h"

namespace nicsim::fw {

/** Why the microcode discarded a packet or a send slot. */
enum class DropReason : uint8_t {
  kTruncatedHeader,   // the frame was shorter than a wire header
  kBadCrc,            // the link CRC did not match (corrupted on the fabric)
  kWrongAdapter,      // routed to an adapter that is not this one
  kUnknownType,       // packet type not defined
  kUnknownWindow,     // window number beyond the adapter's windows
  kWindowClosed,      // the window is not open
  kBadProtectionKey,  // the key does not match the window's job key
  kOversizeLength,    // length larger than a receive frame can hold
  kLengthMismatch,    // header length disagrees with the bytes that arrived
  kRxFifoFull,        // no free receive frame: silently discarded
  kTxBadSlot,         // a send slot with a bad length, type or status
  kDmaError,          // a DMA reported an address error
  kClosedInFlight,    // the window closed while the packet was being processed
  kWindowFatal,       // the window is stopped by an earlier address exception
  kRdmaBadRcxt,       // rCxt index out of range, owned by another window, or stale key
  kRdmaStaleTid,      // a tid older than the rCxt's (trickle traffic, an old attempt)
  kRdmaDuplicate,     // bytes of this transfer already landed (a duplicated packet)
  kRdmaRcxtBusy,      // a read request for an rCxt that is in use
  kRdmaTableOwner,    // the PVO's TCE table is not owned by the packet's job
  kRdmaAddressException,  // bad TCE key, invalid TCE, out of bounds or wrap: window fatal
  kRdmaBadRequest,    // a malformed RDMA request in the send FIFO
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(DropReason::kCount)>
    kDropReasonNames = {
        "truncated_header", "bad_crc",       "wrong_adapter",      "unknown_type",
        "unknown_window",   "window_closed", "bad_protection_key", "oversize_length",
        "length_mismatch",  "rx_fifo_full",  "tx_bad_slot",        "dma_error",
        "closed_in_flight", "window_fatal",  "rdma_bad_rcxt",      "rdma_stale_tid",
        "rdma_duplicate",   "rdma_rcxt_busy", "rdma_table_owner",  "rdma_address_exception",
        "rdma_bad_request",
};

constexpr std::string_view ToString(DropReason reason) {
  return kDropReasonNames[static_cast<size_t>(reason)];
}

/** Everything the microcode counts. */
struct Counters {
  uint64_t rx_packets = 0;      // packets written into a receive FIFO
  uint64_t rx_bytes = 0;        // payload bytes of those packets
  uint64_t tx_packets = 0;      // packets injected into the fabric
  uint64_t tx_bytes = 0;        // payload bytes injected
  uint64_t mmio_commands = 0;   // commands received (window and global)
  uint64_t bad_mmio = 0;        // commands refused (closed window, bad count)
  uint64_t dispatches = 0;      // task dispatches from the dispatch queue
  uint64_t dispatch_queue_peak = 0;
  uint64_t start_transmit_no_task = 0;  // StartTransmit found every transmit task busy
  uint64_t work_manager_handoffs = 0;   // windows handed to transmit tasks as they freed
  uint64_t cb_loads = 0;        // LMTs fetched from SRAM into a channel buffer
  uint64_t cb_flushes = 0;      // channel buffers written back to SRAM
  uint64_t cb_shared = 0;       // binds that found the window's LMT already cached
  uint64_t interrupt_events = 0;     // window interrupt conditions raised
  uint64_t interrupts_presented = 0; // interrupts presented to a handler
  uint64_t interrupts_deferred = 0;  // events that waited for a handler to become ready
  uint64_t windows_closed = 0;
  uint64_t resets = 0;
  uint64_t rdma_packets_out = 0;       // RDMA data packets injected
  uint64_t rdma_bytes_out = 0;
  uint64_t rdma_packets_in = 0;        // RDMA data packets placed in host memory
  uint64_t rdma_bytes_in = 0;
  uint64_t rdma_requests = 0;          // RDMA requests accepted from send FIFOs
  uint64_t rdma_read_requests_served = 0;
  uint64_t rdma_transfers_landed = 0;  // transfers whose every byte reached coherence
  uint64_t rdma_completions_sent = 0;  // completion packets injected
  uint64_t rdma_completions_written = 0;  // completion records written into receive FIFOs
  uint64_t rdma_conditional_fired = 0;
  uint64_t rdma_cancels = 0;
  uint64_t tce_fetches = 0;
  /** Task suspensions by the resource waited for. */
  std::array<uint64_t, static_cast<size_t>(Resource::kCount)> waits{};
  std::array<uint64_t, static_cast<size_t>(DropReason::kCount)> drops{};

  uint64_t& drop(DropReason reason) { return drops[static_cast<size_t>(reason)]; }
  uint64_t drop(DropReason reason) const { return drops[static_cast<size_t>(reason)]; }
  uint64_t wait(Resource r) const { return waits[static_cast<size_t>(r)]; }
};

}  // namespace nicsim::fw
