// SPDX-License-Identifier: Apache-2.0
// CRC-32: the standard check value, chaining across ranges, and agreement with a bitwise
// reference at every length and alignment the fast path handles.
#include "base/crc32.h"

#include <gtest/gtest.h>

#include <vector>

namespace nicsim {
namespace {

uint32_t BitwiseCrc32(const uint8_t* p, size_t len) {
  uint32_t crc = ~0u;
  for (size_t i = 0; i < len; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
  }
  return ~crc;
}

TEST(Crc32Test, MatchesTheStandardCheckValue) {
  EXPECT_EQ(Crc32(0, "123456789", 9), 0xCBF43926u);
  EXPECT_EQ(Crc32(0, "", 0), 0u);
}

TEST(Crc32Test, ChainsAcrossRanges) {
  EXPECT_EQ(Crc32(Crc32(0, "12345", 5), "6789", 4), 0xCBF43926u);
}

TEST(Crc32Test, AgreesWithBitwiseReferenceAtEveryLengthAndOffset) {
  std::vector<uint8_t> data(300);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 37 + 11);
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t len = 0; len + offset <= data.size(); len += 7) {
      ASSERT_EQ(Crc32(0, data.data() + offset, len), BitwiseCrc32(data.data() + offset, len))
          << "offset " << offset << " len " << len;
    }
  }
}

}  // namespace
}  // namespace nicsim
