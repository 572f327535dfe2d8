// SPDX-License-Identifier: Apache-2.0
// For tests that run nicsim split over processes under Open MPI's mpirun: the skip when this
// build or machine cannot, and the environment mpirun needs when the tests run as root.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

/** Skips unless this build can split runs (NICSIM_SPLIT_BUILT) and Open MPI's mpirun was
 *  found (NICSIM_OPEN_MPI_RUN); lets mpirun run as root. */
#define REQUIRE_SPLIT_RUNS()                                                   \
  do {                                                                         \
    if (!NICSIM_SPLIT_BUILT || std::string(NICSIM_OPEN_MPI_RUN).empty()) {     \
      GTEST_SKIP() << "nicsim built without MPI, or no mpirun: no split runs"; \
    }                                                                          \
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);                                  \
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);                          \
  } while (0)
