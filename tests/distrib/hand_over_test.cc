// SPDX-License-Identifier: Apache-2.0
// The byte encoding of cross-partition hand-overs: every field survives, and a damaged buffer
// is an error with its offset.
#include "sim/fabric/hand_over.h"

#include <gtest/gtest.h>

namespace nicsim::sim::distrib {
namespace {

HandOver Sample(uint8_t fill, size_t len) {
  HandOver h;
  h.time_ps = 0x0123456789ABCDEFull;
  h.tie = (uint64_t{7} << 44) | 12345;
  h.runs_as = 70000;
  h.plane = 3;
  h.corrupted = true;
  h.reorder = true;
  h.reorder_delay_ps = 2'000'000;
  h.src_adapter = 65000;
  h.dest_adapter = 9;
  h.crc_deferred = true;
  h.bytes.assign(len, fill);
  return h;
}

TEST(HandOverTest, RoundTripsEveryFieldOfSeveralFrames) {
  std::vector<uint8_t> buf;
  const HandOver a = Sample(0xAA, 100);
  HandOver b = Sample(0x55, 0);
  b.duplicate = true;
  b.corrupted = false;
  EncodeHandOver(a, &buf);
  EncodeHandOver(b, &buf);
  Result<std::vector<HandOver>> back = DecodeHandOvers(buf.data(), buf.size());
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0], a);
  EXPECT_EQ((*back)[1], b);
}

TEST(HandOverTest, TruncatedBufferIsAnErrorNotACrash) {
  std::vector<uint8_t> buf;
  EncodeHandOver(Sample(1, 10), &buf);
  EncodeHandOver(Sample(2, 10), &buf);
  Result<std::vector<HandOver>> cut = DecodeHandOvers(buf.data(), buf.size() - 3);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("truncated"), std::string::npos);
  Result<std::vector<HandOver>> header = DecodeHandOvers(buf.data(), 5);
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.status().message().find("at byte 0"), std::string::npos);
}

TEST(HandOverTest, UnknownFlagsAreAnError) {
  std::vector<uint8_t> buf;
  EncodeHandOver(Sample(1, 0), &buf);
  buf.back() |= 0x80;  // no frame bytes: the flags are the last byte
  EXPECT_FALSE(DecodeHandOvers(buf.data(), buf.size()).ok());
}

}  // namespace
}  // namespace nicsim::sim::distrib
