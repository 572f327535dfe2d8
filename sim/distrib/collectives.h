// SPDX-License-Identifier: Apache-2.0
// The steps a split run needs from its processes' communication layer (MPI in nicsim), as a
// seam: the window loop and the merge of results do not depend on MPI itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nicsim::sim::distrib {

/** Collective operations over every process of a split run; each process calls each in turn. */
class Collectives {
 public:
  virtual ~Collectives() = default;
  /** This process's index, 0..size()-1; it runs partition rank(). */
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  /** What the members are, in the plural, for messages: "processes" or "threads". */
  virtual const char* members() const = 0;
  /** Sends `out[p]` to process p; returns what each process sent to this one, by sender. */
  virtual std::vector<std::vector<uint8_t>> Exchange(
      const std::vector<std::vector<uint8_t>>& out) = 0;
  /** The least of `v` over every process. */
  virtual uint64_t Min(uint64_t v) = 0;
  /** The sum of `v` over every process. */
  virtual uint64_t Sum(uint64_t v) = 0;
  /** Every process's `text` on rank 0, by rank; empty elsewhere. */
  virtual std::vector<std::string> GatherToRoot(const std::string& text) = 0;

  /** The greatest of `v` over every process. */
  uint64_t Max(uint64_t v) { return UINT64_MAX - Min(UINT64_MAX - v); }
  /** Every process's `text`, by rank, on every process (an Exchange sending it to each). */
  std::vector<std::string> AllGather(const std::string& text) {
    const std::vector<std::vector<uint8_t>> out(size(),
                                                std::vector<uint8_t>(text.begin(), text.end()));
    std::vector<std::string> all;
    for (const std::vector<uint8_t>& in : Exchange(out)) all.emplace_back(in.begin(), in.end());
    return all;
  }
};

}  // namespace nicsim::sim::distrib
