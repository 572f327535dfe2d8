// SPDX-License-Identifier: Apache-2.0
// A fuzz target that does nothing, built like the others: bench/fuzz_throughput measures each
// target's execs per second against it (libFuzzer's own cost per input, in the same run).
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static_cast<void>(data);
  static_cast<void>(size);
  return 0;
}
