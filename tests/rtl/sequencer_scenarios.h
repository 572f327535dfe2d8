// SPDX-License-Identifier: Apache-2.0
// Receive DMA sequencer scenarios: run one frame against a write sink with a chosen ack and
// backpressure policy, check the write order, and a checker for random traffic.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "base/rng.h"
#include "hw/rtl/rx_dma_sequencer_model.h"

namespace nicsim::hw::rtl::testing {

/** One write the sink accepted. */
struct AcceptedWrite {
  uint64_t addr = 0;
  uint32_t bytes = 0;
  bool first_line = false;
  /** Acks of this frame's writes applied at earlier edges. */
  uint32_t acks_before = 0;
};

/** How the write sink behaves. */
struct SinkPolicy {
  /** Each accepted write is acknowledged this many cycles later (at least 1)... */
  uint32_t ack_delay = 1;
  /** ...but no ack is given before this cycle of the frame (a slow point of coherence). */
  uint32_t acks_held_until = 0;
  /** wr_ready is high one cycle in this many. */
  uint32_t ready_period = 1;
};

/** What a frame produced. */
struct FrameRun {
  std::vector<AcceptedWrite> writes;
  bool done = false;
  uint64_t cycles = 0;
  /** The sequencer flagged an ack with nothing outstanding. */
  bool ack_error = false;
};

/** Line size as the RTL decodes start_line_bytes. */
inline uint32_t DecodedLine(uint32_t line_bytes) { return (line_bytes & 0xFF) == 128 ? 128 : 64; }

/**
 * Checks a frame's writes: ceil((16 + len) / line) of them; body lines base+line, base+2*line, ...
 * in ascending order with min(line, rest) bytes; then the first line (base, min(total, line) bytes,
 * is_first_line) last, issued only after every body write was acknowledged.
 */
inline ::testing::AssertionResult FrameIsWellFormed(const std::vector<AcceptedWrite>& writes,
                                                    uint64_t base, uint32_t len,
                                                    uint32_t line_bytes) {
  const uint32_t line = DecodedLine(line_bytes);
  const uint32_t total = (len & 0xFFFF) + kRxFrameHeaderBytes;
  const uint32_t lines = (total + line - 1) / line;
  auto fail = [&](const std::string& what, size_t i) {
    auto r = ::testing::AssertionFailure();
    r << what << " (base=0x" << std::hex << base << std::dec << " len=" << len << " line=" << line
      << ", write " << i << " of " << writes.size() << ")";
    return r;
  };
  if (writes.size() != lines) return fail("expected " + std::to_string(lines) + " writes", 0);
  for (uint32_t k = 0; k + 1 < lines; ++k) {
    const AcceptedWrite& w = writes[k];
    const uint32_t off = (k + 1) * line;
    if (w.first_line) return fail("a body write is flagged first line", k);
    if (w.addr != base + off) return fail("body write out of order or misplaced", k);
    if (w.bytes != std::min(line, total - off)) return fail("body write size", k);
  }
  const AcceptedWrite& first = writes.back();
  if (!first.first_line) return fail("the last write is not the first line", lines - 1);
  if (first.addr != base) return fail("first line address", lines - 1);
  if (first.bytes != std::min(total, line)) return fail("first line size", lines - 1);
  if (first.acks_before != lines - 1) {
    return fail("first line issued with " + std::to_string(first.acks_before) + " of " +
                    std::to_string(lines - 1) + " body acks",
                lines - 1);
  }
  return ::testing::AssertionSuccess();
}

/**
 * Starts a frame on an idle `dut`, plays the write sink until `done`, then clocks once more so the
 * sequencer is idle again.
 */
template <typename Dut>
FrameRun RunFrame(Dut& dut, uint64_t base, uint32_t len, uint32_t line_bytes,
                  const SinkPolicy& sink = SinkPolicy{}, uint64_t max_cycles = 200000) {
  FrameRun run;
  EXPECT_TRUE(dut.Outputs().start_ready) << "the sequencer is busy before the frame";
  std::deque<uint64_t> ack_due;
  uint32_t acks = 0;
  for (uint64_t cycle = 0; cycle < max_cycles; ++cycle) {
    const SequencerOutputs o = dut.Outputs();
    run.ack_error |= o.ack_error;
    if (cycle > 0 && o.done) {
      run.done = true;
      run.cycles = cycle;
      break;
    }
    SequencerInputs in;
    in.start_valid = cycle == 0;
    in.start_base = base;
    in.start_len = len;
    in.start_line_bytes = line_bytes;
    in.wr_ready = cycle % std::max(1u, sink.ready_period) == 0;
    in.wr_ack = !ack_due.empty() && ack_due.front() <= cycle && cycle >= sink.acks_held_until;
    if (o.wr_valid && in.wr_ready) {
      run.writes.push_back(AcceptedWrite{o.wr_addr, o.wr_bytes, o.wr_is_first_line, acks});
      ack_due.push_back(cycle + std::max(1u, sink.ack_delay));
    }
    if (in.wr_ack) {
      ack_due.pop_front();
      ++acks;
    }
    dut.Clock(in);
  }
  dut.Clock(SequencerInputs{});
  EXPECT_TRUE(dut.Outputs().start_ready) << "the sequencer did not return to idle";
  return run;
}

/** Runs one frame with `sink` and expects it complete and well formed. */
template <typename Dut>
void CheckFrame(Dut& dut, uint64_t base, uint32_t len, uint32_t line_bytes,
                const SinkPolicy& sink = SinkPolicy{}) {
  SCOPED_TRACE("len=" + std::to_string(len) + " line=" + std::to_string(line_bytes));
  const FrameRun run = RunFrame(dut, base, len, line_bytes, sink);
  EXPECT_TRUE(run.done);
  EXPECT_FALSE(run.ack_error);
  EXPECT_TRUE(FrameIsWellFormed(run.writes, base, len, line_bytes));
}

/** The directed lengths: empty, tiny, around one line at 128 and 64, and a full 2 KiB frame. */
template <typename Dut>
void CheckDirectedLengths(Dut& dut, const SinkPolicy& sink = SinkPolicy{}) {
  dut.Reset();
  const uint64_t base = 0x1000'0000;
  for (uint32_t len : {0u, 1u, 111u, 112u, 113u, 2032u}) CheckFrame(dut, base, len, 128, sink);
  for (uint32_t len : {0u, 1u, 47u, 48u, 49u, 2032u}) CheckFrame(dut, base, len, 64, sink);
}

/** Expected write counts for the directed lengths (16-byte header + payload). */
template <typename Dut>
void CheckSingleLineFramesAreOneWrite(Dut& dut) {
  dut.Reset();
  struct Case {
    uint32_t len, line, writes, first_bytes;
  };
  for (const Case& c :
       {Case{0, 128, 1, 16}, Case{1, 128, 1, 17}, Case{111, 128, 1, 127}, Case{112, 128, 1, 128},
        Case{113, 128, 2, 128}, Case{47, 64, 1, 63}, Case{48, 64, 1, 64}, Case{49, 64, 2, 64},
        Case{2032, 128, 16, 128}, Case{2032, 64, 32, 64}}) {
    SCOPED_TRACE("len=" + std::to_string(c.len) + " line=" + std::to_string(c.line));
    const FrameRun run = RunFrame(dut, 0x4000, c.len, c.line);
    ASSERT_EQ(run.writes.size(), c.writes);
    EXPECT_TRUE(run.writes.back().first_line);
    EXPECT_EQ(run.writes.back().bytes, c.first_bytes);
    if (c.writes == 2) {
      EXPECT_EQ(run.writes[0].bytes,
                1u);  // 113 or 49: one byte spills into line 2
    }
  }
}

/** Body acks held back: the first line waits for the last of them, however late. */
template <typename Dut>
void CheckFirstLineWaitsForEveryBodyAck(Dut& dut) {
  dut.Reset();
  SinkPolicy slow;
  slow.ack_delay = 3;
  slow.acks_held_until = 60;
  const FrameRun run = RunFrame(dut, 0x8000, 2032, 128, slow);
  ASSERT_TRUE(run.done);
  EXPECT_TRUE(FrameIsWellFormed(run.writes, 0x8000, 2032, 128));
  // 15 body lines go out at once; 15 acks from cycle 60 on, then the first line and its ack.
  EXPECT_GE(run.cycles, 60u + 15u);
  // While the body is incoherent the first line is not even presented.
  dut.Clock([] {
    SequencerInputs in;
    in.start_valid = true;
    in.start_len = 200;
    in.start_line_bytes = 128;
    return in;
  }());
  SequencerInputs no_ack;
  no_ack.wr_ready = true;
  dut.Clock(no_ack);  // the one body line goes out
  for (int i = 0; i < 20; ++i) {
    dut.Clock(no_ack);
    EXPECT_FALSE(dut.Outputs().wr_valid) << "cycle " << i;
    EXPECT_TRUE(dut.Outputs().wr_is_first_line);
    EXPECT_FALSE(dut.Outputs().body_coherent);
  }
  SequencerInputs ack = no_ack;
  ack.wr_ack = true;
  dut.Clock(ack);
  EXPECT_TRUE(dut.Outputs().wr_valid && dut.Outputs().wr_is_first_line);
  EXPECT_TRUE(dut.Outputs().body_coherent);
}

/** Backpressure on the write port and slow acks still give the same order. */
template <typename Dut>
void CheckBackpressureKeepsOrder(Dut& dut) {
  SinkPolicy sink;
  sink.ready_period = 3;
  sink.ack_delay = 7;
  CheckDirectedLengths(dut, sink);
}

/** Acks with nothing outstanding are flagged and otherwise ignored. */
template <typename Dut>
void CheckStrayAckIsFlagged(Dut& dut) {
  dut.Reset();
  SequencerInputs ack;
  ack.wr_ack = true;
  dut.Clock(ack);
  EXPECT_TRUE(dut.Outputs().ack_error);
  EXPECT_TRUE(dut.Outputs().start_ready);
  dut.Clock(SequencerInputs{});
  EXPECT_FALSE(dut.Outputs().ack_error);
  CheckFrame(dut, 0x2000, 300, 64);
}

/**
 * Watches random traffic edge by edge: reconstructs each frame from the accepted start and writes
 * and checks it with FrameIsWellFormed when `done` rises.
 */
class FrameChecker {
 public:
  /** Call before each edge with the outputs before it and the inputs applied at it. */
  ::testing::AssertionResult Edge(const SequencerOutputs& o, const SequencerInputs& in) {
    if (o.wr_is_first_line && !o.wr_valid) ++first_line_stalls_;
    if (o.ack_error) ++ack_errors_;
    const bool ack_ok = in.wr_ack && outstanding_ > 0;
    if (o.start_ready && in.start_valid) {
      active_ = true;
      base_ = in.start_base;
      len_ = in.start_len & 0xFFFF;
      line_ = in.start_line_bytes;
      writes_.clear();
      acks_ = 0;
    }
    if (o.wr_valid && in.wr_ready) {
      if (!active_) return ::testing::AssertionFailure() << "a write outside any frame";
      writes_.push_back(AcceptedWrite{o.wr_addr, o.wr_bytes, o.wr_is_first_line, acks_});
      ++outstanding_;
    }
    if (ack_ok) {
      --outstanding_;
      ++acks_;
    }
    if (o.done) {
      if (!active_) return ::testing::AssertionFailure() << "done outside any frame";
      active_ = false;
      ++frames_;
      if (writes_.size() == 1) ++single_line_frames_;
      return FrameIsWellFormed(writes_, base_, len_, line_);
    }
    return ::testing::AssertionSuccess();
  }
  uint64_t frames() const { return frames_; }
  uint64_t single_line_frames() const { return single_line_frames_; }
  uint64_t first_line_stalls() const { return first_line_stalls_; }
  uint64_t ack_errors() const { return ack_errors_; }

 private:
  bool active_ = false;
  uint64_t base_ = 0;
  uint32_t len_ = 0;
  uint32_t line_ = 0;
  std::vector<AcceptedWrite> writes_;
  uint32_t acks_ = 0;
  uint32_t outstanding_ = 0;
  uint64_t frames_ = 0;
  uint64_t single_line_frames_ = 0;
  uint64_t first_line_stalls_ = 0;
  uint64_t ack_errors_ = 0;
};

/**
 * Random sequencer inputs: frames of every size class (mostly up to 2 KiB, a few up to 64 KiB),
 * both line sizes and odd line codes, random bases, backpressure, and acks that arrive at random
 * (rarely when nothing is outstanding).
 */
class SequencerStimulus {
 public:
  explicit SequencerStimulus(uint64_t seed) : rng_(seed, "rtl_rx_sequencer") {}

  SequencerInputs Next(uint32_t outstanding) {
    SequencerInputs in;
    in.start_valid = rng_.Chance(0.3);
    const uint64_t size_class = rng_.Below(100);
    if (size_class < 40) {
      in.start_len = static_cast<uint32_t>(rng_.Below(200));
    } else if (size_class < 95) {
      in.start_len = static_cast<uint32_t>(rng_.Below(2033));
    } else if (size_class < 99) {
      in.start_len = static_cast<uint32_t>(rng_.Between(2033, 8192));
    } else {
      in.start_len = static_cast<uint32_t>(rng_.Below(0x10000));
    }
    in.start_line_bytes = rng_.Chance(0.5) ? 128 : 64;
    if (rng_.Chance(0.03)) in.start_line_bytes = static_cast<uint32_t>(rng_.Below(256));
    in.start_base = rng_.Chance(0.9) ? rng_.Next() & ~uint64_t{127} : rng_.Next();
    in.wr_ready = rng_.Chance(0.8);
    in.wr_ack = rng_.Chance(outstanding > 0 ? 0.4 : 0.02);
    return in;
  }

 private:
  Rng rng_;
};

}  // namespace nicsim::hw::rtl::testing
