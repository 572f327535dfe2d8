// SPDX-License-Identifier: Apache-2.0
// The one seed of a randomized test: NICSIM_TEST_SEED replays a failure exactly.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace nicsim::testing {

/**
 * NICSIM_TEST_SEED if set, else `fallback`. A failing randomized test prints the seed it used.
 */
inline uint64_t TestSeed(uint64_t fallback = 1) {
  const char* env = std::getenv("NICSIM_TEST_SEED");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : fallback;
}

}  // namespace nicsim::testing
