// SPDX-License-Identifier: Apache-2.0
// The values the mpi_collectives workload feeds its collectives, and the serial results it
// checks them against, made a row at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nicsim::sim {

/**
 * Collective inputs: value j of rank r is (r * 7919 + j * 31 + 1) mod 100003, small enough that
 * a sum over 4096 ranks stays within int32. Along j the values step by a constant mod 100003,
 * so whole rows are made and checked with one division, not one per value (at 1,024 ranks and
 * up to 64 KiB per rank, a remainder and a std::function call per value cost 7% of the run's
 * instructions).
 */
inline constexpr uint32_t kValueModulus = 100003;
inline constexpr uint32_t kValueRankStep = 7919;
inline constexpr uint32_t kValueIndexStep = 31;

/** Value j of rank `rank`'s input. */
inline int32_t CollectiveValue(int rank, size_t j) {
  return static_cast<int32_t>(
      (static_cast<uint64_t>(rank) * kValueRankStep + j * kValueIndexStep + 1) % kValueModulus);
}

/** CollectiveValue(rank, 0), (rank, 1), ... one at a time. */
class CollectiveRow {
 public:
  explicit CollectiveRow(int rank) : value_(static_cast<uint32_t>(CollectiveValue(rank, 0))) {}
  int32_t Next() {
    const auto v = static_cast<int32_t>(value_);
    value_ += kValueIndexStep;
    if (value_ >= kValueModulus) value_ -= kValueModulus;
    return v;
  }

 private:
  uint32_t value_;
};

/** Writes CollectiveValue(rank, 0..count-1) to `out`. */
void FillCollectiveRow(int rank, int32_t* out, size_t count);

/** How many of `got[0..count-1]` differ from CollectiveValue(rank, 0..count-1). */
size_t CollectiveRowMismatches(int rank, const int32_t* got, size_t count);

/** Value j of the sum over ranks 0..n-1 of CollectiveValue, wrapping as MPI's int32 sum does. */
std::vector<int32_t> CollectiveSums(int n, size_t count);

}  // namespace nicsim::sim
