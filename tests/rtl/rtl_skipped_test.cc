// SPDX-License-Identifier: Apache-2.0
// Stands in for the RTL tests when the Verilator or SystemC backend is not built, so the tests
// still exist and say why they did not run.
#include <gtest/gtest.h>

#ifndef NICSIM_RTL_SKIP_REASON
#define NICSIM_RTL_SKIP_REASON "the RTL backend is not built"
#endif

namespace {

TEST(TaskBufferAllocatorRtlTest, MatchesModelOnRandomOps) {
  GTEST_SKIP() << NICSIM_RTL_SKIP_REASON;
}
TEST(RxDmaSequencerRtlTest, MatchesModelOnRandomTraffic) { GTEST_SKIP() << NICSIM_RTL_SKIP_REASON; }
TEST(RtlLintTest, SystemVerilogIsLintClean) { GTEST_SKIP() << NICSIM_RTL_SKIP_REASON; }

}  // namespace
