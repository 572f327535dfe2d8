// SPDX-License-Identifier: Apache-2.0
// Microcode counters: packets handled, packets dropped by reason, and the stalls and
// resource waits that show contention. The names here are stats.json keys.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/counter_table.h"
#include "firmware/states.h"

namespace nicsim::fw {

/** Why the microcode discarded a packet or a send slot (kDropReasons says each). */
enum class DropReason : uint8_t {
  kTruncatedHeader,
  kBadCrc,
  kWrongAdapter,
  kUnknownType,
  kUnknownWindow,
  kWindowClosed,
  kBadProtectionKey,
  kOversizeLength,
  kLengthMismatch,
  kRxFifoFull,
  kTxBadSlot,
  kDmaError,
  kClosedInFlight,
  kWindowFatal,
  kRdmaBadRcxt,
  kRdmaStaleTid,
  kRdmaDuplicate,
  kRdmaRcxtBusy,
  kRdmaTableOwner,
  kRdmaAddressException,
  kRdmaBadRequest,
  kCount,
};

/** Each DropReason, in enum order: its stats.json key and what it means. */
inline constexpr std::array<CounterDoc, static_cast<size_t>(DropReason::kCount)> kDropReasons = {{
    {"truncated_header", "the frame was shorter than a wire header"},
    {"bad_crc", "the link CRC did not match (corrupted on the fabric)"},
    {"wrong_adapter", "routed to an adapter that is not this one"},
    {"unknown_type", "packet type not defined"},
    {"unknown_window", "window number beyond the adapter's windows"},
    {"window_closed", "the window is not open"},
    {"bad_protection_key", "the key does not match the window's job key"},
    {"oversize_length", "length larger than a receive frame can hold"},
    {"length_mismatch", "header length disagrees with the bytes that arrived"},
    {"rx_fifo_full", "no free receive frame: silently discarded"},
    {"tx_bad_slot", "a send slot with a bad length, type or status"},
    {"dma_error", "a DMA reported an address error"},
    {"closed_in_flight", "the window closed while the packet was being processed"},
    {"window_fatal", "the window is stopped by an earlier address exception"},
    {"rdma_bad_rcxt", "rCxt index out of range, owned by another window, or stale key"},
    {"rdma_stale_tid", "a tid older than the rCxt's (trickle traffic, an old attempt)"},
    {"rdma_duplicate", "bytes of this transfer already landed (a duplicated packet)"},
    {"rdma_rcxt_busy", "a read request for an rCxt that is in use"},
    {"rdma_table_owner", "the PVO's TCE table is not owned by the packet's job"},
    {"rdma_address_exception", "bad TCE key, invalid TCE, out of bounds or wrap: window fatal"},
    {"rdma_bad_request", "a malformed RDMA request in the send FIFO"},
}};

inline constexpr auto kDropReasonNames = NamesOf(kDropReasons);

constexpr std::string_view ToString(DropReason reason) {
  return kDropReasonNames[static_cast<size_t>(reason)];
}

/** Everything the microcode counts (kCounterFields says what each counter is). */
struct Counters {
  uint64_t rx_packets = 0;
  uint64_t rx_bytes = 0;
  uint64_t tx_packets = 0;
  uint64_t tx_bytes = 0;
  uint64_t mmio_commands = 0;
  uint64_t bad_mmio = 0;
  uint64_t dispatches = 0;
  uint64_t dispatch_queue_peak = 0;
  uint64_t start_transmit_no_task = 0;
  uint64_t work_manager_handoffs = 0;
  uint64_t work_manager_posts = 0;
  uint64_t cb_loads = 0;
  uint64_t cb_flushes = 0;
  uint64_t cb_shared = 0;
  uint64_t cb_kept = 0;
  uint64_t interrupt_events = 0;
  uint64_t interrupts_presented = 0;
  uint64_t interrupts_deferred = 0;
  uint64_t windows_closed = 0;
  uint64_t resets = 0;
  uint64_t rdma_packets_out = 0;
  uint64_t rdma_bytes_out = 0;
  uint64_t rdma_packets_in = 0;
  uint64_t rdma_bytes_in = 0;
  uint64_t rdma_requests = 0;
  uint64_t rdma_read_requests_served = 0;
  uint64_t rdma_transfers_landed = 0;
  uint64_t rdma_completions_sent = 0;
  uint64_t rdma_completions_written = 0;
  uint64_t rdma_conditional_fired = 0;
  uint64_t rdma_conditional_discarded = 0;
  uint64_t rdma_cancels = 0;
  uint64_t rdma_cancel_notices = 0;
  uint64_t tce_fetches = 0;
  /** Task suspensions by the resource waited for. */
  std::array<uint64_t, static_cast<size_t>(Resource::kCount)> waits{};
  std::array<uint64_t, static_cast<size_t>(DropReason::kCount)> drops{};

  uint64_t& drop(DropReason reason) { return drops[static_cast<size_t>(reason)]; }
  uint64_t drop(DropReason reason) const { return drops[static_cast<size_t>(reason)]; }
  uint64_t wait(Resource r) const { return waits[static_cast<size_t>(r)]; }
};

/** Every scalar of Counters: its stats.json key (in each adapter's entry) and what it counts. */
inline constexpr std::array<CounterField<Counters>, 34> kCounterFields = {{
    {"rx_packets", &Counters::rx_packets, "packets written into a receive FIFO"},
    {"rx_bytes", &Counters::rx_bytes, "payload bytes of those packets"},
    {"tx_packets", &Counters::tx_packets, "packets injected into the fabric"},
    {"tx_bytes", &Counters::tx_bytes, "payload bytes injected"},
    {"mmio_commands", &Counters::mmio_commands, "commands received (window and global)"},
    {"bad_mmio", &Counters::bad_mmio, "commands refused (closed window, bad count)"},
    {"dispatches", &Counters::dispatches, "task dispatches from the dispatch queue"},
    {"dispatch_queue_peak", &Counters::dispatch_queue_peak,
     "most tasks waiting in the dispatch queue at once"},
    {"start_transmit_no_task", &Counters::start_transmit_no_task,
     "StartTransmit found every transmit task busy and left its count with the work manager task"},
    {"work_manager_handoffs", &Counters::work_manager_handoffs,
     "packets a transmit task went on to after finishing one (the next ready window)"},
    {"work_manager_posts", &Counters::work_manager_posts,
     "queued StartTransmit counts the work manager task added to a window's readyToSend"},

    {"cb_loads", &Counters::cb_loads, "LMTs fetched from SRAM into a channel buffer"},
    {"cb_flushes", &Counters::cb_flushes, "channel buffers written back to SRAM"},
    {"cb_shared", &Counters::cb_shared, "binds that found the window's LMT already cached"},
    {"cb_kept", &Counters::cb_kept,
     "packets after which a transmit task kept its CB for the same window's next packet "
     "(no unbind, so no write-back and fetch of the LMT between them)"},
    {"interrupt_events", &Counters::interrupt_events, "window interrupt conditions raised"},
    {"interrupts_presented", &Counters::interrupts_presented, "interrupts presented to a handler"},
    {"interrupts_deferred", &Counters::interrupts_deferred,
     "events that waited for a handler to become ready"},
    {"windows_closed", &Counters::windows_closed, "windows closed by a close command"},
    {"resets", &Counters::resets, "adapter resets (recoveries), each clearing tasks and queues"},
    {"rdma_packets_out", &Counters::rdma_packets_out, "RDMA data packets injected"},
    {"rdma_bytes_out", &Counters::rdma_bytes_out, "payload bytes of those RDMA data packets"},
    {"rdma_packets_in", &Counters::rdma_packets_in, "RDMA data packets placed in host memory"},
    {"rdma_bytes_in", &Counters::rdma_bytes_in, "payload bytes of those RDMA data packets"},
    {"rdma_requests", &Counters::rdma_requests, "RDMA requests accepted from send FIFOs"},
    {"rdma_read_requests_served", &Counters::rdma_read_requests_served,
     "read requests from peers served (a local rCxt starts sending)"},
    {"rdma_transfers_landed", &Counters::rdma_transfers_landed,
     "transfers whose every byte reached coherence"},
    {"rdma_completions_sent", &Counters::rdma_completions_sent, "completion packets injected"},
    {"rdma_completions_written", &Counters::rdma_completions_written,
     "completion records written into receive FIFOs"},
    {"rdma_conditional_fired", &Counters::rdma_conditional_fired,
     "parked conditional RDMA requests released when their condition fired"},
    {"rdma_conditional_discarded", &Counters::rdma_conditional_discarded,
     "parked conditional RDMA requests discarded when their queue was armed for a new transfer "
     "(SlotType::kRcxtArm)"},
    {"rdma_cancels", &Counters::rdma_cancels, "RDMA cancel requests carried out"},
    {"rdma_cancel_notices", &Counters::rdma_cancel_notices,
     "completion records with status cancelled written for a transfer a cancel stopped"},
    {"tce_fetches", &Counters::tce_fetches,
     "DMA reads of TCE entries from host memory (one batch each)"},
}};

}  // namespace nicsim::fw
