// SPDX-License-Identifier: Apache-2.0
// One process as the only member of its world: the window loop of a split run, run in one
// process, so a one-process run stops at the window ends a split run stops at.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/distrib/collectives.h"

namespace nicsim::sim::distrib {

/** Collectives over a single process: every operation returns this process's own part. */
class SoloWorld final : public Collectives {
 public:
  uint32_t rank() const override { return 0; }
  uint32_t size() const override { return 1; }
  const char* members() const override { return "processes"; }
  std::vector<std::vector<uint8_t>> Exchange(
      const std::vector<std::vector<uint8_t>>& out) override {
    return out;
  }
  uint64_t Min(uint64_t v) override { return v; }
  uint64_t Sum(uint64_t v) override { return v; }
  std::vector<std::string> GatherToRoot(const std::string& text) override { return {text}; }
};

}  // namespace nicsim::sim::distrib
