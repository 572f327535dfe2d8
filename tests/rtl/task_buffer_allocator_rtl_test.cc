// SPDX-License-Identifier: Apache-2.0
// The Verilated task and buffer allocator (SystemC build) in lock step with its model: the directed
// scenarios, 100,000 seeded random requests, and VCD tracing.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "hw/rtl/task_buffer_allocator_driver.h"
#include "hw/rtl/task_buffer_allocator_model.h"
#include "tests/rtl/allocator_scenarios.h"
#include "tests/rtl/rtl_test_support.h"

namespace nicsim::hw::rtl::testing {
namespace {

using AllocatorRtlEnvironment = RtlEnvironment<TaskBufferAllocatorDriver>;

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new AllocatorRtlEnvironment);

std::string Describe(const AllocatorInputs& in) {
  std::ostringstream s;
  s << "valid=" << in.req_valid << " op=" << ToString(in.req_op)
    << " kind=" << static_cast<int>(in.req_kind) << " task=" << in.req_task
    << " window=" << in.req_window << " cb=" << in.req_cb << " dtb=" << in.req_dtb
    << " rx_limit=" << in.rx_limit << " tx_limit=" << in.tx_limit;
  return s.str();
}

class TaskBufferAllocatorRtlTest : public ::testing::Test {
 protected:
  TaskBufferAllocatorModel model_;
  Lockstep<TaskBufferAllocatorDriver, TaskBufferAllocatorModel> dut_{AllocatorRtlEnvironment::Dut(),
                                                                     model_};
};

TEST_F(TaskBufferAllocatorRtlTest, ResetStateIsEmpty) { CheckResetState(dut_); }
TEST_F(TaskBufferAllocatorRtlTest, AllocatesLowestFreeTaskWithinLimits) {
  CheckAllocatesLowestFreeTaskWithinLimits(dut_);
}
TEST_F(TaskBufferAllocatorRtlTest, DispatchQueueIsFifo) { CheckDispatchQueueIsFifo(dut_); }
TEST_F(TaskBufferAllocatorRtlTest, TasksOfOneWindowShareACb) {
  CheckTasksOfOneWindowShareACb(dut_);
}
TEST_F(TaskBufferAllocatorRtlTest, CbsRunOutAndBindCountsSaturate) {
  CheckCbsRunOutAndBindCountsSaturate(dut_);
}
TEST_F(TaskBufferAllocatorRtlTest, DtbFreeListIsLifo) { CheckDtbFreeListIsLifo(dut_); }
TEST_F(TaskBufferAllocatorRtlTest, IllegalOpsChangeNothing) { CheckIllegalOpsChangeNothing(dut_); }

TEST_F(TaskBufferAllocatorRtlTest, MatchesModelOnRandomOps) {
  const uint64_t seed = TestSeed();
  SCOPED_TRACE(ReplayHint(seed));
  dut_.Reset();
  AllocatorStimulus stimulus(seed);
  // Outcomes seen per opcode: [op][0] ok, [1] none, [2] error.
  std::array<std::array<uint64_t, 3>, 16> seen{};
  uint64_t fetched = 0, flushed = 0, pool_full = 0, cbs_out = 0, dtbs_out = 0, queue_deep = 0;
  constexpr int kOps = 100000;
  for (int i = 0; i < kOps; ++i) {
    const AllocatorInputs in = stimulus.Next();
    dut_.Clock(in);
    ASSERT_FALSE(dut_.diverged()) << "request " << i << ": " << Describe(in) << " "
                                  << ReplayHint(seed);
    const AllocatorOutputs o = dut_.Outputs();
    if (o.rsp_valid) ++seen[static_cast<size_t>(o.rsp_op)][o.rsp_ok ? 0 : o.rsp_error ? 2 : 1];
    fetched += o.rsp_fetched;
    flushed += o.rsp_flushed;
    pool_full += o.rx_active + o.tx_active == 16;
    cbs_out += o.free_cbs == 0;
    dtbs_out += o.free_dtbs == 0;
    queue_deep += o.queue_depth >= 8;
  }
  // The traffic reached every outcome that matters, so agreement means something.
  auto outcome = [&](AllocatorOp op, int k) { return seen[static_cast<size_t>(op)][k]; };
  for (AllocatorOp op : {AllocatorOp::kAllocTask, AllocatorOp::kBindCb, AllocatorOp::kAllocDtb}) {
    EXPECT_GT(outcome(op, 0), 100u) << ToString(op) << " ok";
    EXPECT_GT(outcome(op, 1), 100u) << ToString(op) << " none";
  }
  for (AllocatorOp op : {AllocatorOp::kFreeTask, AllocatorOp::kWake, AllocatorOp::kPopDispatch,
                         AllocatorOp::kUnbindCb, AllocatorOp::kFreeDtb}) {
    EXPECT_GT(outcome(op, 0), 100u) << ToString(op) << " ok";
    EXPECT_GT(outcome(op, 2), 100u) << ToString(op) << " error";
  }
  EXPECT_GT(fetched, 100u);
  EXPECT_GT(flushed, 100u);
  EXPECT_GT(pool_full, 100u);
  EXPECT_GT(cbs_out, 100u);
  EXPECT_GT(dtbs_out, 100u);
  EXPECT_GT(queue_deep, 100u);
  std::printf(
      "allocator coverage: bind errors %llu, fetched %llu, flushed "
      "%llu, pool full %llu, "
      "cbs out %llu, dtbs out %llu, queue>=8 %llu\n",
      static_cast<unsigned long long>(outcome(AllocatorOp::kBindCb, 2)),
      static_cast<unsigned long long>(fetched), static_cast<unsigned long long>(flushed),
      static_cast<unsigned long long>(pool_full), static_cast<unsigned long long>(cbs_out),
      static_cast<unsigned long long>(dtbs_out), static_cast<unsigned long long>(queue_deep));
}

TEST_F(TaskBufferAllocatorRtlTest, WritesVcdWhenAsked) {
  TaskBufferAllocatorDriver& rtl = AllocatorRtlEnvironment::Dut();
  if (rtl.vcd_path().empty()) {
    GTEST_SKIP() << "NICSIM_RTL_VCD is not set (ctest's rtl_allocator_vcd sets it)";
  }
  CheckDtbFreeListIsLifo(dut_);
  rtl.FlushTrace();
  std::ifstream file(rtl.vcd_path());
  ASSERT_TRUE(file.good()) << rtl.vcd_path();
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_NE(text.str().find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.str().find("rsp_id"), std::string::npos);
}

}  // namespace
}  // namespace nicsim::hw::rtl::testing
