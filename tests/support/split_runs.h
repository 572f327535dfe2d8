// SPDX-License-Identifier: Apache-2.0
// For tests that run nicsim split over processes under Open MPI's mpirun: the skip when this
// build or machine cannot, the environment mpirun needs when the tests run as root, and, under
// AddressSanitizer, no leak check in the processes the test starts: Open MPI's components
// allocate in threads of their own and are unloaded before the exit's check, so neither
// LeakSanitizer's per-thread switch nor a suppression can name their blocks (the same runs
// in one process, without Open MPI, are leak-checked by the other tests).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "base/sanitizers.h"

/** Skips unless this build can split runs (NICSIM_SPLIT_BUILT) and Open MPI's mpirun was
 *  found (NICSIM_OPEN_MPI_RUN); lets mpirun run as root; no leak check under ASan (above). */
#define REQUIRE_SPLIT_RUNS()                                                                  \
  do {                                                                                        \
    if (!NICSIM_SPLIT_BUILT || std::string(NICSIM_OPEN_MPI_RUN).empty()) {                    \
      GTEST_SKIP() << "nicsim built without MPI, or no mpirun: no split runs";                \
    }                                                                                         \
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);                                                 \
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);                                         \
    if (NICSIM_ADDRESS_SANITIZER) {                                                           \
      const char* asan = std::getenv("ASAN_OPTIONS");                                         \
      setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1); \
    }                                                                                         \
  } while (0)
