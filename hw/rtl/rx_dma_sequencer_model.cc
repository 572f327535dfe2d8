// SPDX-License-Identifier: Apache-2.0
// Receive DMA sequencer reference model: a four-state machine evaluated once per clock edge against
// the registers before the edge, as the RTL's always_ff block does.
#include "hw/rtl/rx_dma_sequencer_model.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace nicsim::hw::rtl {

bool SequencerOutputs::operator==(const SequencerOutputs& o) const {
  return start_ready == o.start_ready && wr_valid == o.wr_valid && wr_addr == o.wr_addr &&
         wr_bytes == o.wr_bytes && wr_is_first_line == o.wr_is_first_line &&
         body_coherent == o.body_coherent && done == o.done && ack_error == o.ack_error;
}

std::string SequencerOutputs::ToString() const {
  char buf[192];
  std::snprintf(buf, sizeof(buf),
                "start_ready=%d wr_valid=%d wr_addr=0x%" PRIx64
                " wr_bytes=%u first=%d coherent=%d done=%d ack_error=%d",
                start_ready, wr_valid, wr_addr, wr_bytes, wr_is_first_line, body_coherent, done,
                ack_error);
  return buf;
}

const char* ToString(SequencerState state) {
  switch (state) {
    case SequencerState::kIdle:
      return "idle";
    case SequencerState::kBody:
      return "body";
    case SequencerState::kFirst:
      return "first";
    case SequencerState::kLast:
      return "last";
  }
  return "?";
}

void RxDmaSequencerModel::Reset() {
  state_ = SequencerState::kIdle;
  base_ = 0;
  total_ = off_ = 0;
  line_128_ = false;
  outstanding_ = 0;
  ack_error_ = false;
}

SequencerOutputs RxDmaSequencerModel::Outputs() const {
  SequencerOutputs out;
  out.start_ready = state_ == SequencerState::kIdle;
  out.body_coherent = outstanding_ == 0;
  out.done = state_ == SequencerState::kLast && outstanding_ == 0;
  out.ack_error = ack_error_;
  out.wr_addr = base_;
  if (state_ == SequencerState::kBody) {
    out.wr_valid = true;
    out.wr_addr = base_ + off_;
    out.wr_bytes = std::min(total_ - off_, Line());
  } else if (state_ == SequencerState::kFirst) {
    // The first line carries the valid flag: it waits until every body write is acked.
    out.wr_valid = out.body_coherent;
    out.wr_bytes = std::min(total_, Line());
    out.wr_is_first_line = true;
  }
  return out;
}

void RxDmaSequencerModel::Clock(const SequencerInputs& in) {
  const SequencerOutputs out = Outputs();
  const bool issue = out.wr_valid && in.wr_ready;
  const bool ack_ok = in.wr_ack && outstanding_ != 0;
  ack_error_ = in.wr_ack && !ack_ok;
  const uint32_t outstanding_next = outstanding_ + (issue ? 1 : 0) - (ack_ok ? 1 : 0);
  switch (state_) {
    case SequencerState::kIdle:
      if (in.start_valid) {
        base_ = in.start_base;
        total_ = (in.start_len & 0xFFFF) + kRxFrameHeaderBytes;
        line_128_ = (in.start_line_bytes & 0xFF) == 128;
        off_ = Line();
        // A frame of at most one line is a single write: the first line.
        state_ = total_ <= Line() ? SequencerState::kFirst : SequencerState::kBody;
      }
      break;
    case SequencerState::kBody:
      if (issue) {
        off_ += Line();
        if (off_ >= total_) state_ = SequencerState::kFirst;
      }
      break;
    case SequencerState::kFirst:
      if (issue) state_ = SequencerState::kLast;
      break;
    case SequencerState::kLast:
      if (out.done) state_ = SequencerState::kIdle;
      break;
  }
  outstanding_ = outstanding_next;
}

}  // namespace nicsim::hw::rtl
