// SPDX-License-Identifier: Apache-2.0
// Which optional backends this build has, for tests that need one: they skip with the
// reason instead of failing in a build configured without it (e.g. the minimal preset).
#pragma once

#include <gtest/gtest.h>

#ifndef NICSIM_SYSTEMC_BUILT
#define NICSIM_SYSTEMC_BUILT 1
#endif

/** Skips the test when the SystemC backend (nicsim's default) is not built. */
#define NICSIM_SKIP_WITHOUT_SYSTEMC()                                                  \
  if (!NICSIM_SYSTEMC_BUILT) {                                                         \
    GTEST_SKIP() << "needs the SystemC backend (the default backend), not built here"; \
  }
