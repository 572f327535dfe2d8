// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point of the rank_channel target (built with clang and NICSIM_FUZZ=ON only); the
// body is FuzzRankChannel in the nicsim_fuzz_targets library, which ctest replays too.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return nicsim::fuzz::FuzzRankChannel(data, size);
}
