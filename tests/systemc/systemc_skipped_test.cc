// SPDX-License-Identifier: Apache-2.0
// Stands in for the SystemC backend tests when SystemC is not built: skips with the reason.
#include <gtest/gtest.h>

TEST(SystemcBackendTest, SkippedWithoutSystemc) {
  GTEST_SKIP() << "SystemC backend not built (WITH_SYSTEMC=OFF or libsystemc-dev missing)";
}
