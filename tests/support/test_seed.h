// SPDX-License-Identifier: Apache-2.0
// The one seed of a randomized test: NICSIM_TEST_SEED replays a failure exactly.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace nicsim::testing {

/** NICSIM_TEST_SEED if set, else 1. A failing randomized test prints the seed it used. */
inline uint64_t TestSeed() {
  const char* env = std::getenv("NICSIM_TEST_SEED");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 1;
}

}  // namespace nicsim::testing
