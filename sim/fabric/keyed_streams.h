// SPDX-License-Identifier: Apache-2.0
// Random streams of one seed, one per key (a fabric path, an output port), each made on first
// use: what one key draws does not depend on what, or how much, the others drew before it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/rng.h"

namespace nicsim::sim {

/** A family of independent streams: stream k is Rng(seed, prefix + decimal k). */
class KeyedStreams {
 public:
  KeyedStreams(uint64_t seed, std::string prefix) : seed_(seed), prefix_(std::move(prefix)) {}

  /** The stream of `key`, made the first time it is asked for. */
  Rng& For(uint64_t key) {
    auto it = streams_.find(key);
    if (it == streams_.end()) {
      it = streams_.emplace(key, Rng(seed_, prefix_ + std::to_string(key))).first;
    }
    return it->second;
  }

 private:
  uint64_t seed_;
  std::string prefix_;
  std::unordered_map<uint64_t, Rng> streams_;
};

}  // namespace nicsim::sim
