// SPDX-License-Identifier: Apache-2.0
// NICSIM_CHECK: an invariant that prints what broke and aborts.
// Used for programming errors only; bad input is reported, never checked to death.
#pragma once

#include <cstdio>
#include <cstdlib>

#define NICSIM_CHECK(cond, ...)                                                            \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "%s:%d: NICSIM_CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, "" __VA_ARGS__);                                                \
      std::fprintf(stderr, "\n");                                                          \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)
