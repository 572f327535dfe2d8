// SPDX-License-Identifier: Apache-2.0
// Tests for the workload byte pattern: FillPattern writes exactly the per-word
// formula at every length (block steps, odd word counts, partial tails), and
// CheckPattern rejects any one flipped bit.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/rng.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

/** The pattern's definition, word by word, written independently of the stepped
 * loops. */
std::vector<uint8_t> ReferencePattern(uint32_t len, uint64_t key) {
  uint64_t state = key * 0x2545F4914F6CDD1Dull + len;
  const uint64_t seed = SplitMix64(state);
  std::vector<uint8_t> out(len);
  for (uint32_t i = 0; i < len; ++i) {
    const uint64_t word = (seed + i / 8) * 0x9E3779B97F4A7C15ull;
    out[i] = static_cast<uint8_t>(word >> (8 * (i % 8)));  // little-endian bytes
  }
  return out;
}

TEST(WorkloadPatternTest, FillMatchesThePerWordFormulaAtEveryLength) {
  for (uint32_t len = 0; len <= 80; ++len) {
    for (uint64_t key : {uint64_t{0}, uint64_t{1}, uint64_t{12345}, ~uint64_t{0}}) {
      std::vector<uint8_t> got(len + 1, 0xAA);  // one guard byte past the end
      FillPattern(got.data(), len, key);
      EXPECT_EQ(got.back(), 0xAA) << "wrote past " << len;
      got.pop_back();
      EXPECT_EQ(got, ReferencePattern(len, key)) << "len " << len << " key " << key;
    }
  }
  EXPECT_EQ(
      [] {
        std::vector<uint8_t> v(1024);
        FillPattern(v.data(), 1024, 7);
        return v;
      }(),
      ReferencePattern(1024, 7));
}

TEST(WorkloadPatternTest, CheckAcceptsTheFillAndRejectsEveryFlippedBit) {
  for (uint32_t len : {1u, 7u, 8u, 15u, 16u, 17u, 24u, 33u, 100u}) {
    std::vector<uint8_t> data(len);
    FillPattern(data.data(), len, 42);
    EXPECT_TRUE(CheckPattern(data.data(), len, 42)) << len;
    EXPECT_FALSE(CheckPattern(data.data(), len, 43)) << len;
    for (uint32_t bit = 0; bit < len * 8; ++bit) {
      data[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      EXPECT_FALSE(CheckPattern(data.data(), len, 42)) << "len " << len << " bit " << bit;
      data[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
}

}  // namespace
}  // namespace nicsim::sim
