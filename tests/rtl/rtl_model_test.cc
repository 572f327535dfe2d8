// SPDX-License-Identifier: Apache-2.0
// The RTL reference models on their own (no Verilator needed): the directed allocator and sequencer
// scenarios, and the frame checker over the model under random traffic.
#include <gtest/gtest.h>

#include "hw/rtl/rx_dma_sequencer_model.h"
#include "hw/rtl/task_buffer_allocator_model.h"
#include "tests/rtl/allocator_scenarios.h"
#include "tests/rtl/rtl_test_support.h"
#include "tests/rtl/sequencer_scenarios.h"

namespace nicsim::hw::rtl::testing {
namespace {

TEST(TaskBufferAllocatorModelTest, ResetStateIsEmpty) {
  TaskBufferAllocatorModel m;
  CheckResetState(m);
}
TEST(TaskBufferAllocatorModelTest, AllocatesLowestFreeTaskWithinLimits) {
  TaskBufferAllocatorModel m;
  CheckAllocatesLowestFreeTaskWithinLimits(m);
}
TEST(TaskBufferAllocatorModelTest, DispatchQueueIsFifo) {
  TaskBufferAllocatorModel m;
  CheckDispatchQueueIsFifo(m);
}
TEST(TaskBufferAllocatorModelTest, TasksOfOneWindowShareACb) {
  TaskBufferAllocatorModel m;
  CheckTasksOfOneWindowShareACb(m);
}
TEST(TaskBufferAllocatorModelTest, CbsRunOutAndBindCountsSaturate) {
  TaskBufferAllocatorModel m;
  CheckCbsRunOutAndBindCountsSaturate(m);
}
TEST(TaskBufferAllocatorModelTest, DtbFreeListIsLifo) {
  TaskBufferAllocatorModel m;
  CheckDtbFreeListIsLifo(m);
}
TEST(TaskBufferAllocatorModelTest, IllegalOpsChangeNothing) {
  TaskBufferAllocatorModel m;
  CheckIllegalOpsChangeNothing(m);
}
TEST(TaskBufferAllocatorModelTest, InputsAreTruncatedToPortWidths) {
  TaskBufferAllocatorModel m;
  EXPECT_OK_ID(Do(m, AllocTask(TaskKind::kRx)), 0);
  EXPECT_OK_ID(Do(m, Wake(16)), 0);  // a 4-bit task port sees 16 as 0
  EXPECT_OK_ID(Do(m, Bind(0x10005, TaskKind::kRx)), 0);
  EXPECT_OK_ID(Do(m, Bind(5, TaskKind::kTx)), 0);  // the same 16-bit window
}

TEST(RxDmaSequencerModelTest, DirectedLengthsGiveBodyFirstThenFirstLine) {
  RxDmaSequencerModel m;
  CheckDirectedLengths(m);
}
TEST(RxDmaSequencerModelTest, FramesOfOneLineOrLessAreOneWrite) {
  RxDmaSequencerModel m;
  CheckSingleLineFramesAreOneWrite(m);
}
TEST(RxDmaSequencerModelTest, FirstLineWaitsForEveryBodyAck) {
  RxDmaSequencerModel m;
  CheckFirstLineWaitsForEveryBodyAck(m);
}
TEST(RxDmaSequencerModelTest, BackpressureKeepsOrder) {
  RxDmaSequencerModel m;
  CheckBackpressureKeepsOrder(m);
}
TEST(RxDmaSequencerModelTest, StrayAckIsFlagged) {
  RxDmaSequencerModel m;
  CheckStrayAckIsFlagged(m);
}
TEST(RxDmaSequencerModelTest, RandomTrafficKeepsFrameOrder) {
  const uint64_t seed = TestSeed();
  SCOPED_TRACE(ReplayHint(seed));
  RxDmaSequencerModel m;
  SequencerStimulus stimulus(seed);
  FrameChecker checker;
  for (int i = 0; i < 100000; ++i) {
    const SequencerInputs in = stimulus.Next(m.outstanding());
    ASSERT_TRUE(checker.Edge(m.Outputs(), in)) << "cycle " << i;
    m.Clock(in);
  }
  EXPECT_GT(checker.frames(), 1000u);
}

}  // namespace
}  // namespace nicsim::hw::rtl::testing
