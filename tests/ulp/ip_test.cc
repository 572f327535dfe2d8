// SPDX-License-Identifier: Apache-2.0
// The IP interface's pieces: the IPv4 header and its checksum, the address of a window,
// fragmentation at every boundary of the fragment size, and reassembly under loss,
// duplication, reordering, a timeout, corruption and inconsistent fragments. Random cases are
// seeded; a failure names its seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "base/rng.h"
#include "ulp/ip/fragments.h"
#include "ulp/ip/ipv4.h"

namespace nicsim::ulp::ip {
namespace {

constexpr uint64_t kTimeout = 1'000'000'000;  // 1 ms

std::vector<uint8_t> Payload(uint32_t len, uint32_t salt) {
  std::vector<uint8_t> p(len);
  for (uint32_t i = 0; i < len; ++i) p[i] = static_cast<uint8_t>(i * 31 + salt * 7 + (i >> 8));
  return p;
}

Header Base(uint16_t id) {
  Header h;
  h.id = id;
  h.protocol = 17;
  h.src = *AddressOf({1, 0});
  h.dst = *AddressOf({2, 0});
  return h;
}

/** Payload of the whole datagram Feed returned, after checking its header. */
std::vector<uint8_t> Body(const std::vector<uint8_t>& whole) {
  Header h;
  EXPECT_EQ(ReadHeader(whole.data(), whole.size(), &h), HeaderError::kNone);
  EXPECT_FALSE(h.more_fragments);
  EXPECT_EQ(h.offset_bytes, 0u);
  return {whole.begin() + kHeaderBytes, whole.end()};
}

TEST(IpHeaderTest, RoundTripsAndChecksumsLikeRfc1071) {
  Header h = Base(0x1234);
  h.more_fragments = true;
  h.offset_bytes = 8 * 100;
  h.total_length = 40;
  std::vector<uint8_t> p(40, 0);
  WriteHeader(h, p.data());
  EXPECT_EQ(InternetChecksum(p.data(), kHeaderBytes), 0);
  Header r;
  ASSERT_EQ(ReadHeader(p.data(), p.size(), &r), HeaderError::kNone);
  EXPECT_EQ(r.id, 0x1234);
  EXPECT_TRUE(r.more_fragments);
  EXPECT_EQ(r.offset_bytes, 800u);
  EXPECT_EQ(r.src, h.src);
  EXPECT_EQ(r.dst, h.dst);
  // The example of RFC 1071 section 3: the sum of 0001 f203 f4f5 f6f7 is ddf2.
  const uint8_t words[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(InternetChecksum(words, sizeof(words)), static_cast<uint16_t>(~0xddf2));
  p[12] ^= 1;
  EXPECT_EQ(ReadHeader(p.data(), p.size(), &r), HeaderError::kBadChecksum);
  p[12] ^= 1;
  EXPECT_EQ(ReadHeader(p.data(), p.size() - 1, &r), HeaderError::kMalformed);
  p[0] = 0x46;  // options
  EXPECT_EQ(ReadHeader(p.data(), p.size(), &r), HeaderError::kMalformed);
}

TEST(IpHeaderTest, AddressesComeFromTheAdapterAndWindow) {
  EXPECT_EQ(FormatAddress(*AddressOf({0, 0})), "10.0.0.1");
  EXPECT_EQ(FormatAddress(*AddressOf({0x0102, 5})), "10.1.2.6");
  EXPECT_EQ(FormatAddress(*AddressOf({0xFFFF, 253})), "10.255.255.254");
  EXPECT_FALSE(AddressOf({0, 254}).has_value());
  for (hal::Peer p : {hal::Peer{0, 0}, hal::Peer{7, 3}, hal::Peer{0xFFFF, 253}}) {
    EXPECT_EQ(PeerOf(*AddressOf(p)), p);
  }
  EXPECT_FALSE(PeerOf(0x0B000001).has_value());  // 11.0.0.1: not the subnet
  EXPECT_FALSE(PeerOf(0x0A000000).has_value());  // host octet 0
  EXPECT_FALSE(PeerOf(kSubnetBroadcast).has_value());
  EXPECT_TRUE(IsBroadcast(kSubnetBroadcast));
  EXPECT_TRUE(IsBroadcast(kLimitedBroadcast));
  EXPECT_FALSE(IsBroadcast(*AddressOf({0xFFFF, 253})));
}

/** Sizes around every multiple of the fragment payload up to `count` fragments, and the ends. */
std::vector<uint32_t> BoundarySizes(uint32_t frame, uint32_t count) {
  const uint32_t piece = FragmentPayloadBytes(frame);
  std::vector<uint32_t> sizes = {0,
                                 1,
                                 7,
                                 8,
                                 9,
                                 frame - kHeaderBytes - 1,
                                 frame - kHeaderBytes,
                                 frame - kHeaderBytes + 1,
                                 kMaxPayloadBytes - 1,
                                 kMaxPayloadBytes};
  for (uint32_t k = 1; k <= count; ++k) {
    for (int d = -8; d <= 8; ++d) sizes.push_back(static_cast<uint32_t>(int64_t{k} * piece + d));
  }
  return sizes;
}

TEST(IpFragmentTest, EveryBoundarySplitsAndJoinsExactly) {
  // 2048-byte frames (the default window's), an odd frame size, and the smallest usable one.
  for (uint32_t frame : {2048u, 2037u, 28u}) {
    const uint32_t piece = FragmentPayloadBytes(frame);
    EXPECT_EQ(piece % 8, 0u);
    for (uint32_t len : BoundarySizes(frame, 5)) {
      SCOPED_TRACE(testing::Message() << "frame " << frame << " len " << len);
      const std::vector<uint8_t> data = Payload(len, len);
      const auto packets = Fragment(Base(7), data.data(), len, frame);
      const bool fits = len + kHeaderBytes <= frame;
      const size_t want = fits ? 1 : (len + piece - 1) / piece;
      ASSERT_EQ(packets.size(), want);
      IpStats stats;
      Reassembler r(kTimeout, stats);
      std::optional<std::vector<uint8_t>> whole;
      uint32_t expect_offset = 0;
      for (size_t i = 0; i < packets.size(); ++i) {
        const auto& p = packets[i];
        EXPECT_LE(p.size(), frame);
        Header h;
        ASSERT_EQ(ReadHeader(p.data(), p.size(), &h), HeaderError::kNone);
        EXPECT_EQ(h.offset_bytes, expect_offset);
        EXPECT_EQ(h.more_fragments, i + 1 < packets.size());
        EXPECT_EQ(h.id, 7);
        if (i + 1 < packets.size()) {
          EXPECT_EQ(p.size() - kHeaderBytes, piece);
        }
        expect_offset += static_cast<uint32_t>(p.size() - kHeaderBytes);
        EXPECT_FALSE(whole.has_value());
        whole = r.FeedPacket(0, p.data(), static_cast<uint32_t>(p.size()));
      }
      EXPECT_EQ(expect_offset, len);
      ASSERT_TRUE(whole.has_value());
      EXPECT_EQ(Body(*whole), data);
      EXPECT_EQ(stats.reassembled, fits ? 0u : 1u);
      EXPECT_EQ(r.pending(), 0u);
    }
  }
}

/**
 * Many datagrams, their fragments lost, duplicated and shuffled: a datagram comes up exactly
 * once if every one of its fragments arrived at least once, never otherwise, and always with
 * its own bytes.
 */
TEST(IpFragmentTest, LossDuplicationAndReorderingNeverDeliverWrongOrTwice) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    Rng rng(seed, "ip_test");
    const auto frame = static_cast<uint32_t>(rng.Between(28, 2048));
    const uint32_t piece = FragmentPayloadBytes(frame);
    struct Sent {
      std::vector<uint8_t> data;
      bool complete = true;
      int delivered = 0;
    };
    std::vector<Sent> sent(60);
    std::vector<std::vector<uint8_t>> wire;
    for (uint16_t id = 0; id < sent.size(); ++id) {
      const auto len = static_cast<uint32_t>(
          rng.Below(3) == 0 ? rng.Between(0, kMaxPayloadBytes)
                            : rng.Between(0, std::min<uint32_t>(8 * piece + 8, kMaxPayloadBytes)));
      sent[id].data = Payload(len, id);
      for (auto& p : Fragment(Base(id), sent[id].data.data(), len, frame)) {
        const uint64_t fate = rng.Below(20);
        if (fate == 0) {
          sent[id].complete = false;  // lost
          continue;
        }
        if (fate == 1) wire.push_back(p);  // duplicated
        wire.push_back(std::move(p));
      }
    }
    for (size_t i = wire.size(); i > 1; --i) std::swap(wire[i - 1], wire[rng.Below(i)]);
    IpStats stats;
    Reassembler r(kTimeout, stats);
    for (const auto& p : wire) {
      std::optional<std::vector<uint8_t>> whole =
          r.FeedPacket(0, p.data(), static_cast<uint32_t>(p.size()));
      if (!whole) continue;
      Header h;
      ASSERT_EQ(ReadHeader(whole->data(), whole->size(), &h), HeaderError::kNone);
      ASSERT_LT(h.id, sent.size());
      ++sent[h.id].delivered;
      EXPECT_EQ(Body(*whole), sent[h.id].data) << "datagram " << h.id;
    }
    uint64_t incomplete = 0;
    for (uint16_t id = 0; id < sent.size(); ++id) {
      EXPECT_EQ(sent[id].delivered, sent[id].complete ? 1 : 0) << "datagram " << id;
      incomplete += !sent[id].complete;
    }
    EXPECT_EQ(stats.drop_inconsistent + stats.drop_too_big + stats.drop_malformed, 0u);
    // What is left are the incomplete datagrams that got at least one fragment through.
    EXPECT_LE(r.pending(), incomplete);
    r.Expire(kTimeout);
    EXPECT_EQ(r.pending(), 0u);
    EXPECT_LE(stats.drop_timeout, incomplete);
  }
}

TEST(IpReassemblyTest, AnIncompleteDatagramTimesOutAndItsLateFragmentIsDropped) {
  const std::vector<uint8_t> data = Payload(5000, 1);
  const auto packets = Fragment(Base(9), data.data(), 5000, 2048);
  ASSERT_EQ(packets.size(), 3u);
  IpStats stats;
  Reassembler r(kTimeout, stats);
  EXPECT_FALSE(r.FeedPacket(100, packets[0].data(), packets[0].size()));
  EXPECT_FALSE(r.FeedPacket(200, packets[2].data(), packets[2].size()));
  EXPECT_EQ(r.NextDeadline(), 100 + kTimeout);
  r.Expire(100 + kTimeout - 1);
  EXPECT_EQ(r.pending(), 1u);
  r.Expire(100 + kTimeout);
  EXPECT_EQ(r.pending(), 0u);
  EXPECT_EQ(stats.drop_timeout, 1u);
  // The missing piece arrives late: the datagram is not delivered, the fragment counted late.
  EXPECT_FALSE(r.FeedPacket(100 + kTimeout + 1, packets[1].data(), packets[1].size()));
  EXPECT_EQ(stats.drop_late, 1u);
  EXPECT_EQ(r.pending(), 0u);
  // Once the identity is forgotten, a whole new copy is a new datagram.
  std::optional<std::vector<uint8_t>> whole;
  for (const auto& p : packets) whole = r.FeedPacket(10 * kTimeout, p.data(), p.size());
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(Body(*whole), data);
}

TEST(IpReassemblyTest, ADeliveredDatagramIsNotDeliveredAgain) {
  const std::vector<uint8_t> data = Payload(100, 2);
  const auto packets = Fragment(Base(3), data.data(), 100, 2048);
  ASSERT_EQ(packets.size(), 1u);
  IpStats stats;
  Reassembler r(kTimeout, stats);
  EXPECT_TRUE(r.FeedPacket(0, packets[0].data(), packets[0].size()));
  EXPECT_FALSE(r.FeedPacket(kTimeout - 1, packets[0].data(), packets[0].size()));
  EXPECT_EQ(stats.drop_duplicate, 1u);
}

TEST(IpReassemblyTest, CorruptedFragmentsAreDroppedWithTheirReason) {
  const std::vector<uint8_t> data = Payload(6000, 3);
  auto packets = Fragment(Base(4), data.data(), 6000, 2048);
  ASSERT_EQ(packets.size(), 3u);
  IpStats stats;
  Reassembler r(kTimeout, stats);
  // A flipped header bit: the checksum catches it, the reassembly goes on without it.
  std::vector<uint8_t> bad = packets[1];
  bad[7] ^= 0x01;  // the offset
  EXPECT_FALSE(r.FeedPacket(0, bad.data(), bad.size()));
  EXPECT_EQ(stats.drop_bad_checksum, 1u);
  EXPECT_FALSE(r.FeedPacket(0, packets[0].data(), packets[0].size()));
  // A copy of fragment 0 whose data differs (and whose header is fine): the bytes disagree,
  // so the whole datagram is dropped rather than delivered with either copy's bytes.
  std::vector<uint8_t> other = packets[0];
  other[kHeaderBytes + 10] ^= 0xFF;
  EXPECT_FALSE(r.FeedPacket(0, other.data(), other.size()));
  EXPECT_EQ(stats.drop_inconsistent, 1u);
  EXPECT_EQ(r.pending(), 0u);
  EXPECT_FALSE(r.FeedPacket(0, packets[1].data(), packets[1].size()));
  EXPECT_FALSE(r.FeedPacket(0, packets[2].data(), packets[2].size()));
  EXPECT_EQ(stats.drop_late, 2u);
}

TEST(IpReassemblyTest, InconsistentEndsAndOversizeAreDropped) {
  IpStats stats;
  Reassembler r(kTimeout, stats);
  const std::vector<uint8_t> bytes(64, 0xAB);
  auto feed = [&](uint16_t id, uint32_t offset, uint32_t len, bool more) {
    Header h = Base(id);
    h.offset_bytes = offset;
    h.more_fragments = more;
    return r.Feed(0, h, bytes.data(), len);
  };
  // Two last fragments that end at different places.
  EXPECT_FALSE(feed(1, 16, 8, false));
  EXPECT_FALSE(feed(1, 32, 8, false));
  EXPECT_EQ(stats.drop_inconsistent, 1u);
  // A middle fragment past the end a last fragment set.
  EXPECT_TRUE(feed(2, 0, 8, false));  // unfragmented: delivered as is
  EXPECT_FALSE(feed(3, 8, 8, false));
  EXPECT_FALSE(feed(3, 16, 8, true));
  EXPECT_EQ(stats.drop_inconsistent, 2u);
  // Data reaching past 65515 payload bytes.
  EXPECT_FALSE(feed(4, 65512, 8, true));
  EXPECT_EQ(stats.drop_too_big, 1u);
  // A middle fragment whose length is no multiple of 8.
  EXPECT_FALSE(feed(5, 0, 12, true));
  EXPECT_EQ(stats.drop_malformed, 1u);
  EXPECT_EQ(r.pending(), 0u);
}

}  // namespace
}  // namespace nicsim::ulp::ip
