// SPDX-License-Identifier: Apache-2.0
// Stands in for the DPDK real-port tests when the DPDK backend is not built: skips with the
// reason.
#include <gtest/gtest.h>

TEST(DpdkPortTest, SkippedWithoutDpdk) {
  GTEST_SKIP() << "DPDK backend not built (WITH_DPDK=OFF or libdpdk-dev missing)";
}
