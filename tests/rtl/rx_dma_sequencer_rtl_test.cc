// SPDX-License-Identifier: Apache-2.0
// The Verilated receive DMA sequencer (SystemC build) in lock step with its model: the directed
// frame lengths, 100,000 cycles of seeded random traffic, and VCD tracing.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "hw/rtl/rx_dma_sequencer_driver.h"
#include "hw/rtl/rx_dma_sequencer_model.h"
#include "tests/rtl/rtl_test_support.h"
#include "tests/rtl/sequencer_scenarios.h"

namespace nicsim::hw::rtl::testing {
namespace {

using SequencerRtlEnvironment = RtlEnvironment<RxDmaSequencerDriver>;

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new SequencerRtlEnvironment);

std::string Describe(const SequencerInputs& in) {
  std::ostringstream s;
  s << "start_valid=" << in.start_valid << " base=0x" << std::hex << in.start_base << std::dec
    << " len=" << in.start_len << " line=" << in.start_line_bytes << " wr_ready=" << in.wr_ready
    << " wr_ack=" << in.wr_ack;
  return s.str();
}

class RxDmaSequencerRtlTest : public ::testing::Test {
 protected:
  RxDmaSequencerModel model_;
  Lockstep<RxDmaSequencerDriver, RxDmaSequencerModel> dut_{SequencerRtlEnvironment::Dut(), model_};
};

TEST_F(RxDmaSequencerRtlTest, DirectedLengthsGiveBodyFirstThenFirstLine) {
  CheckDirectedLengths(dut_);
}
TEST_F(RxDmaSequencerRtlTest, FramesOfOneLineOrLessAreOneWrite) {
  CheckSingleLineFramesAreOneWrite(dut_);
}
TEST_F(RxDmaSequencerRtlTest, FirstLineWaitsForEveryBodyAck) {
  CheckFirstLineWaitsForEveryBodyAck(dut_);
}
TEST_F(RxDmaSequencerRtlTest, BackpressureKeepsOrder) { CheckBackpressureKeepsOrder(dut_); }
TEST_F(RxDmaSequencerRtlTest, StrayAckIsFlagged) { CheckStrayAckIsFlagged(dut_); }

TEST_F(RxDmaSequencerRtlTest, MatchesModelOnRandomTraffic) {
  const uint64_t seed = TestSeed();
  SCOPED_TRACE(ReplayHint(seed));
  dut_.Reset();
  SequencerStimulus stimulus(seed);
  FrameChecker checker;
  constexpr int kCycles = 100000;
  for (int i = 0; i < kCycles; ++i) {
    const SequencerInputs in = stimulus.Next(dut_.model().outstanding());
    ASSERT_TRUE(checker.Edge(dut_.Outputs(), in)) << "cycle " << i << " " << ReplayHint(seed);
    dut_.Clock(in);
    ASSERT_FALSE(dut_.diverged()) << "cycle " << i << ": " << Describe(in) << " "
                                  << ReplayHint(seed);
  }
  EXPECT_GT(checker.frames(), 1000u);
  EXPECT_GT(checker.single_line_frames(), 100u);
  EXPECT_GT(checker.first_line_stalls(), 100u);
  EXPECT_GT(checker.ack_errors(), 100u);
  std::printf(
      "sequencer coverage: frames %llu, single-line %llu, first-line "
      "stalls %llu, "
      "stray acks %llu\n",
      static_cast<unsigned long long>(checker.frames()),
      static_cast<unsigned long long>(checker.single_line_frames()),
      static_cast<unsigned long long>(checker.first_line_stalls()),
      static_cast<unsigned long long>(checker.ack_errors()));
}

TEST_F(RxDmaSequencerRtlTest, WritesVcdWhenAsked) {
  RxDmaSequencerDriver& rtl = SequencerRtlEnvironment::Dut();
  if (rtl.vcd_path().empty()) {
    GTEST_SKIP() << "NICSIM_RTL_VCD is not set (ctest's rtl_rx_sequencer_vcd sets it)";
  }
  dut_.Reset();
  CheckFrame(dut_, 0x1000, 300, 128);
  rtl.FlushTrace();
  std::ifstream file(rtl.vcd_path());
  ASSERT_TRUE(file.good()) << rtl.vcd_path();
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_NE(text.str().find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.str().find("wr_addr"), std::string::npos);
}

}  // namespace
}  // namespace nicsim::hw::rtl::testing
