// SPDX-License-Identifier: Apache-2.0
// Microcode counters: packets handled and packets dropped, by reason.
// The names here are the keys of stats.json's "drops" object.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

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
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(DropReason::kCount)>
    kDropReasonNames = {
        "truncated_header", "bad_crc",      "wrong_adapter",     "unknown_type",
        "unknown_window",   "window_closed", "bad_protection_key", "oversize_length",
        "length_mismatch",  "rx_fifo_full", "tx_bad_slot",       "dma_error",
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
  uint64_t interrupts = 0;      // interrupts raised
  uint64_t mmio_commands = 0;   // window commands received
  uint64_t bad_mmio = 0;        // window commands refused (closed window, bad count)
  std::array<uint64_t, static_cast<size_t>(DropReason::kCount)> drops{};

  uint64_t& drop(DropReason reason) { return drops[static_cast<size_t>(reason)]; }
  uint64_t drop(DropReason reason) const { return drops[static_cast<size_t>(reason)]; }
};

}  // namespace nicsim::fw
