// SPDX-License-Identifier: Apache-2.0
// sc_main for GoogleTest binaries that clock Verilated SystemC models: libsystemc's main() calls
// it, so these binaries do not link gtest_main.
#include <gtest/gtest.h>

#include <systemc>

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
