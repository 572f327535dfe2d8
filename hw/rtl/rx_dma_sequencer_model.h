// SPDX-License-Identifier: Apache-2.0
// Cycle-level C++ reference model of hw/rtl/rx_dma_sequencer.sv: body cache lines first, the first
// line (frame header) last and only once the body is coherent.
#pragma once

#include <cstdint>
#include <string>

namespace nicsim::hw::rtl {

/** Bytes of the receive frame header that precedes the payload in the first line. */
inline constexpr uint32_t kRxFrameHeaderBytes = 16;

/** Everything the sequencer samples at a clock edge. */
struct SequencerInputs {
  bool start_valid = false;
  /** Host address of the frame (cache-line aligned). */
  uint64_t start_base = 0;
  /** Payload bytes (16 bits in the RTL). */
  uint32_t start_len = 0;
  /** Cache line size: 128, anything else means 64 (8 bits in the RTL). */
  uint32_t start_line_bytes = 128;
  /** The write sink accepts the presented write this cycle. */
  bool wr_ready = true;
  /** One earlier write has reached the point of coherence. */
  bool wr_ack = false;
};

/** Every sequencer output after a clock edge (all of them are registered state). */
struct SequencerOutputs {
  /** Idle: a start is accepted at the next edge. */
  bool start_ready = true;
  /** A cache-line write (address, bytes) is presented; it is taken when wr_ready is high. */
  bool wr_valid = false;
  uint64_t wr_addr = 0;
  uint32_t wr_bytes = 0;
  /** The presented write is the frame's first line (header + payload start). */
  bool wr_is_first_line = false;
  /** No body write is awaiting its ack. */
  bool body_coherent = true;
  /** The first line has been acknowledged: the frame is complete (one cycle). */
  bool done = false;
  /** The last edge saw an ack with no write outstanding. */
  bool ack_error = false;

  /** Every field equal (the per-cycle RTL-versus-model comparison). */
  bool operator==(const SequencerOutputs& o) const;
  /** Some field differs. */
  bool operator!=(const SequencerOutputs& o) const { return !(*this == o); }
  /** One line, every field, for failure messages. */
  std::string ToString() const;
};

/** The sequencer's states, as encoded in the RTL. */
enum class SequencerState : uint8_t { kIdle = 0, kBody = 1, kFirst = 2, kLast = 3 };

/** The state's name ("body"). */
const char* ToString(SequencerState state);

/**
 * The receive DMA sequencer's reference model. Clock() is one rising edge with rst_n high; Reset()
 * is the state after a synchronous reset. The cycle rules are listed in rx_dma_sequencer.sv.
 */
class RxDmaSequencerModel {
 public:
  /** An idle sequencer. */
  RxDmaSequencerModel() { Reset(); }

  /** Back to idle with nothing outstanding. */
  void Reset();
  /** One clock edge with `in` applied. */
  void Clock(const SequencerInputs& in);
  /** The outputs as they stand after the last edge. */
  SequencerOutputs Outputs() const;
  /** The state after the last edge. */
  SequencerState state() const { return state_; }
  /** Writes issued and not yet acknowledged. */
  uint32_t outstanding() const { return outstanding_; }

 private:
  uint32_t Line() const { return line_128_ ? 128 : 64; }

  SequencerState state_ = SequencerState::kIdle;
  uint64_t base_ = 0;
  uint32_t total_ = 0;
  uint32_t off_ = 0;
  bool line_128_ = false;
  uint32_t outstanding_ = 0;
  bool ack_error_ = false;
};

}  // namespace nicsim::hw::rtl
