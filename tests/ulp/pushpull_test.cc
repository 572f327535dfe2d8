// SPDX-License-Identifier: Apache-2.0
// Push-pull messaging on the in-process platform: every BTP boundary in every mode with early
// and late receivers and exact counters, the pushed buffer's size, order, tags, the staging
// fallback, truncation, parameter errors and seeded random traffic between four ranks.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ulp/pushpull/channel_layout.h"
#include "ulp/pushpull/memory_platform.h"
#include "ulp/pushpull/receiver.h"
#include "ulp/pushpull/sender.h"

namespace nicsim::ulp::pushpull {
namespace {

/** Bytes that differ by message and position, so a misplaced byte shows. */
std::vector<uint8_t> Pattern(size_t size, uint32_t salt) {
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i) {
    v[i] = static_cast<uint8_t>((i * 131 + salt * 7 + (i >> 8) + (i >> 16)) & 0xff);
  }
  return v;
}

constexpr uint32_t kBtp1 = 48;
constexpr uint32_t kBtp2 = 200;
constexpr uint32_t kChunk = 96;
constexpr uint64_t kRound = 8192;

Params TestParams(Mode mode) {
  Params p;
  p.mode = mode;
  p.btp1_bytes = kBtp1;
  p.btp2_bytes = kBtp2;
  p.push_all_chunk_bytes = kChunk;
  p.pushed_slots = 2;
  p.pull_round_bytes = kRound;
  p.max_message_bytes = 1 << 22;
  return p;
}

/** All engines of a test on one MemoryPlatform; receivers first so the channels exist. */
struct World {
  MemoryPlatform platform;
  std::vector<std::unique_ptr<Sender>> senders;
  std::vector<std::unique_ptr<Receiver>> receivers;

  World(uint32_t ranks, const Params& p, bool force_fallback = false) : platform(force_fallback) {
    for (uint32_t r = 0; r < ranks; ++r) {
      auto v = Receiver::Create(&platform, ranks, r, p);
      EXPECT_TRUE(v.ok()) << v.status().message();
      receivers.push_back(std::move(*v));
    }
    for (uint32_t r = 0; r < ranks; ++r) {
      auto s = Sender::Create(&platform, ranks, r, p);
      EXPECT_TRUE(s.ok()) << s.status().message();
      senders.push_back(std::move(*s));
    }
  }

  /** One round of everyone's progress; false on a protocol error. */
  bool Turn() {
    bool ok = true;
    for (auto& r : receivers) {
      auto polled = r->Poll();
      EXPECT_TRUE(polled.ok()) << polled.status().message();
      ok = ok && polled.ok();
    }
    for (auto& s : senders) {
      auto progressed = s->Progress();
      EXPECT_TRUE(progressed.ok()) << progressed.status().message();
      ok = ok && progressed.ok();
    }
    return ok;
  }

  /** Turns until every sender is idle and no receive is outstanding (or `rounds` pass). */
  bool Pump(int rounds = 100000) {
    for (int i = 0; i < rounds; ++i) {
      if (!Turn()) return false;
      bool idle = true;
      for (auto& s : senders) idle = idle && s->Idle();
      // An idle sender has posted its last push and served its last round; one more poll
      // lets the receivers take those in.
      if (idle) return Turn();
    }
    return false;
  }
};

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

struct Case {
  Mode mode;
  uint64_t size;
  bool early;
};

std::string Name(const Case& c) {
  return std::string(ToString(c.mode)) + " size " + std::to_string(c.size) +
         (c.early ? " early" : " late");
}

/** One message 0 -> 1 of `c.size` bytes: exact bytes and every counter the case implies. */
void RunCase(const Case& c) {
  SCOPED_TRACE(Name(c));
  const Params p = TestParams(c.mode);
  World w(2, p);
  const std::vector<uint8_t> msg = Pattern(c.size, static_cast<uint32_t>(c.size));
  std::vector<uint8_t> dest(c.size + 7, 0xee);
  Sender& s = *w.senders[0];
  Receiver& r = *w.receivers[1];
  ReceiveHandle rh = 0;
  if (c.early) {
    auto h = r.PostReceive(0, 5, dest.data(), c.size);
    ASSERT_TRUE(h.ok());
    rh = *h;
  }
  auto sh = s.Send(1, 5, msg.data(), msg.size());
  ASSERT_TRUE(sh.ok()) << sh.status().message();
  if (!c.early) {
    // Let every push that can arrive arrive (and be set aside) before the receive is posted.
    for (int i = 0; i < 10000 && s.stats().bytes_pushed < p.PushedBytesOf(c.size); ++i) {
      ASSERT_TRUE(w.Turn());
    }
    ASSERT_TRUE(w.Turn());
    auto h = r.PostReceive(0, 5, dest.data(), c.size);
    ASSERT_TRUE(h.ok());
    rh = *h;
  }
  ASSERT_TRUE(w.Pump());
  auto done = r.Take(rh);
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(s.Done(*sh));
  EXPECT_EQ(done->bytes, c.size);
  EXPECT_EQ(done->source, 0u);
  EXPECT_EQ(done->tag, 5u);
  EXPECT_FALSE(done->truncated);
  EXPECT_TRUE(std::equal(msg.begin(), msg.end(), dest.begin()));
  for (size_t i = c.size; i < dest.size(); ++i) ASSERT_EQ(dest[i], 0xee) << "wrote past the end";

  const uint64_t pushed = p.PushedBytesOf(c.size);
  const uint64_t pulled = c.size - pushed;
  const SenderStats& ss = s.stats();
  const ReceiverStats& rs = r.stats();
  // Push phase.
  EXPECT_EQ(ss.bytes_pushed, pushed);
  EXPECT_EQ(ss.first_pushes, 1u);
  const bool has_second = c.mode == Mode::kPushPull && c.size > kBtp1;
  EXPECT_EQ(ss.second_pushes, has_second ? 1u : 0u);
  EXPECT_EQ(ss.push_all_chunks,
            c.mode == Mode::kPushAll && c.size > kChunk ? CeilDiv(c.size, kChunk) - 1 : 0u);
  EXPECT_EQ(rs.pushes_consumed, ss.first_pushes + ss.second_pushes + ss.push_all_chunks);
  EXPECT_EQ(ss.header_only_pushes, c.size == 0 || c.mode == Mode::kPushZero ? 1u : 0u);
  // Pull phase: one ack, rounds of at most pull_round_bytes, all by the zero buffer.
  const uint64_t rounds = CeilDiv(pulled, kRound);
  EXPECT_EQ(ss.bytes_pulled, pulled);
  EXPECT_EQ(rs.bytes_pulled, pulled);
  EXPECT_EQ(rs.acks_sent, pulled > 0 ? 1u : 0u);
  EXPECT_EQ(ss.acks_received, rs.acks_sent);
  EXPECT_EQ(rs.pull_requests, rounds);
  EXPECT_EQ(ss.pull_rounds_served, rounds);
  EXPECT_EQ(ss.zero_copy_rounds, rounds);
  EXPECT_EQ(ss.zero_copy_fallbacks, 0u);
  EXPECT_EQ(rs.bytes_unstaged, 0u);
  // Masking: the source is translated after the first push, before the ack is served.
  EXPECT_EQ(ss.source_translations, pulled > 0 ? 1u : 0u);
  EXPECT_EQ(ss.translations_masked, ss.source_translations);
  EXPECT_EQ(rs.dest_translations, 1u);
  EXPECT_EQ(rs.dest_translations_masked, c.early ? 1u : 0u);
  // Early receivers take pushes straight into the buffer; late ones set them aside first.
  EXPECT_EQ(rs.early_matches, c.early ? 1u : 0u);
  EXPECT_EQ(rs.late_matches, c.early ? 0u : 1u);
  EXPECT_EQ(rs.pushed_bytes_direct, c.early ? pushed : 0u);
  EXPECT_EQ(rs.pushed_bytes_buffered, c.early ? 0u : pushed);
  // Push-and-ack overlap: with an early receiver the ack leaves before the second push is
  // taken out, and the sender finds that push already posted when the ack comes.
  const bool overlap = has_second && pulled > 0;
  EXPECT_EQ(ss.acks_overlapped_by_second_push, overlap ? 1u : 0u);
  EXPECT_EQ(rs.pushes_after_ack, overlap && c.early ? 1u : 0u);
  EXPECT_EQ(ss.messages_completed, 1u);
  EXPECT_EQ(rs.receives_completed, 1u);
  EXPECT_EQ(rs.bytes_delivered, c.size);
}

std::vector<uint64_t> BoundarySizes() {
  return {0,
          1,
          kBtp1 - 1,
          kBtp1,
          kBtp1 + 1,
          kChunk,
          kChunk + 1,
          kBtp1 + kBtp2 - 1,
          kBtp1 + kBtp2,
          kBtp1 + kBtp2 + 1,
          kRound,
          kBtp1 + kBtp2 + kRound,
          kBtp1 + kBtp2 + kRound + 1,
          5 * kRound + 4097};
}

TEST(PushPullTest, PushPullModeAtEveryBtpBoundary) {
  for (bool early : {true, false}) {
    for (uint64_t size : BoundarySizes()) RunCase({Mode::kPushPull, size, early});
  }
}

TEST(PushPullTest, PushAllModeAtEveryBoundary) {
  for (bool early : {true, false}) {
    for (uint64_t size : BoundarySizes()) RunCase({Mode::kPushAll, size, early});
  }
}

TEST(PushPullTest, PushZeroModeAtEveryBoundary) {
  for (bool early : {true, false}) {
    for (uint64_t size : BoundarySizes()) RunCase({Mode::kPushZero, size, early});
  }
}

TEST(PushPullTest, PushedBufferSlotIsTheLargerOfBtp1AndBtp2) {
  Params p = TestParams(Mode::kPushPull);
  EXPECT_EQ(p.SlotBytes(), kBtp2);
  p.btp1_bytes = 500;
  EXPECT_EQ(p.SlotBytes(), 500u);
  const ChannelLayout l = ComputeChannelLayout(p);
  EXPECT_EQ(l.slot_stride, LineUp(sizeof(PushSlot) + 500));
  EXPECT_EQ(ComputeChannelLayout(TestParams(Mode::kPushZero)).slot_stride,
            LineUp(sizeof(PushSlot)));
}

TEST(PushPullTest, OneSlotRingStillCarriesBothPushesOfAMessage) {
  // A pushed buffer of exactly max(BTP1, BTP2): the second push waits for the receiver to
  // take the first out, which is also when the ack leaves.
  Params p = TestParams(Mode::kPushPull);
  p.pushed_slots = 1;
  World w(2, p);
  const auto msg = Pattern(kBtp1 + kBtp2 + 1000, 3);
  std::vector<uint8_t> dest(msg.size());
  auto rh = w.receivers[1]->PostReceive(0, 0, dest.data(), dest.size());
  ASSERT_TRUE(rh.ok());
  auto sh = w.senders[0]->Send(1, 0, msg.data(), msg.size());
  ASSERT_TRUE(sh.ok());
  EXPECT_EQ(w.senders[0]->stats().push_waits, 1u);
  ASSERT_TRUE(w.Pump());
  ASSERT_TRUE(w.receivers[1]->Take(*rh).has_value());
  EXPECT_EQ(dest, msg);
  EXPECT_EQ(w.senders[0]->stats().second_pushes, 1u);
  EXPECT_EQ(w.senders[0]->stats().bytes_pulled, 1000u);
  EXPECT_EQ(w.receivers[1]->stats().pushes_after_ack, 1u);
}

TEST(PushPullTest, MessagesOfOnePairMatchInSendOrder) {
  for (Mode mode : {Mode::kPushPull, Mode::kPushAll, Mode::kPushZero}) {
    for (bool early : {true, false}) {
      SCOPED_TRACE(std::string(ToString(mode)) + (early ? " early" : " late"));
      World w(2, TestParams(mode));
      std::mt19937 rng(7);
      constexpr int kMessages = 40;
      std::vector<std::vector<uint8_t>> msgs, dests;
      for (int k = 0; k < kMessages; ++k) {
        msgs.push_back(Pattern(rng() % (3 * kRound), static_cast<uint32_t>(k)));
        dests.emplace_back(3 * kRound);
      }
      std::vector<ReceiveHandle> rh;
      auto post = [&] {
        for (int k = 0; k < kMessages; ++k) {
          auto h = w.receivers[1]->PostReceive(0, 9, dests[k].data(), dests[k].size());
          ASSERT_TRUE(h.ok());
          rh.push_back(*h);
        }
      };
      if (early) post();
      for (int k = 0; k < kMessages; ++k) {
        ASSERT_TRUE(w.senders[0]->Send(1, 9, msgs[k].data(), msgs[k].size()).ok());
      }
      if (!early) {
        for (int i = 0; i < 50; ++i) ASSERT_TRUE(w.Turn());
        post();
      }
      ASSERT_TRUE(w.Pump());
      for (int k = 0; k < kMessages; ++k) {
        auto c = w.receivers[1]->Take(rh[k]);
        ASSERT_TRUE(c.has_value()) << k;
        ASSERT_EQ(c->bytes, msgs[k].size()) << k;
        EXPECT_TRUE(std::equal(msgs[k].begin(), msgs[k].end(), dests[k].begin())) << k;
      }
    }
  }
}

TEST(PushPullTest, ReceivesMatchByTagNotByArrival) {
  World w(3, TestParams(Mode::kPushPull));
  const auto a = Pattern(5000, 1), b = Pattern(30, 2), c = Pattern(9000, 3);
  std::vector<uint8_t> da(5000), db(30), dc(9000);
  // Rank 2's message with tag 1 and rank 0's tag 2 go first; the receive for rank 0 tag 1
  // must not take either.
  ASSERT_TRUE(w.senders[0]->Send(1, 2, b.data(), b.size()).ok());
  ASSERT_TRUE(w.senders[2]->Send(1, 1, c.data(), c.size()).ok());
  ASSERT_TRUE(w.senders[0]->Send(1, 1, a.data(), a.size()).ok());
  auto ha = w.receivers[1]->PostReceive(0, 1, da.data(), da.size());
  auto hc = w.receivers[1]->PostReceive(2, 1, dc.data(), dc.size());
  auto hb = w.receivers[1]->PostReceive(0, 2, db.data(), db.size());
  ASSERT_TRUE(ha.ok() && hb.ok() && hc.ok());
  ASSERT_TRUE(w.Pump());
  auto ca = w.receivers[1]->Take(*ha), cb = w.receivers[1]->Take(*hb),
       cc = w.receivers[1]->Take(*hc);
  ASSERT_TRUE(ca && cb && cc);
  EXPECT_EQ(da, a);
  EXPECT_EQ(db, b);
  EXPECT_EQ(dc, c);
  EXPECT_EQ(cc->source, 2u);
  EXPECT_EQ(cb->tag, 2u);
}

TEST(PushPullTest, ForcedFallbackStagesEveryPullRound) {
  for (Mode mode : {Mode::kPushPull, Mode::kPushZero}) {
    SCOPED_TRACE(ToString(mode));
    const Params p = TestParams(mode);
    World w(2, p, /*force_fallback=*/true);
    const uint64_t size = 3 * kRound + 777;
    const auto msg = Pattern(size, 11);
    std::vector<uint8_t> dest(size);
    auto rh = w.receivers[1]->PostReceive(0, 0, dest.data(), dest.size());
    ASSERT_TRUE(w.senders[0]->Send(1, 0, msg.data(), msg.size()).ok());
    ASSERT_TRUE(w.Pump());
    ASSERT_TRUE(w.receivers[1]->Take(*rh).has_value());
    EXPECT_EQ(dest, msg);
    const uint64_t pulled = size - p.PushedBytesOf(size);
    const SenderStats& ss = w.senders[0]->stats();
    EXPECT_EQ(ss.zero_copy_rounds, 0u);
    EXPECT_EQ(ss.zero_copy_fallbacks, CeilDiv(pulled, kRound));
    EXPECT_EQ(ss.bytes_staged, pulled);
    EXPECT_EQ(w.receivers[1]->stats().bytes_unstaged, pulled);
    EXPECT_EQ(w.platform.copies(), 0u);
  }
}

TEST(PushPullTest, ShortBufferTruncatesAndStillFinishesTheSend) {
  for (uint64_t cap : {uint64_t{10}, uint64_t{kBtp1 + kBtp2}, uint64_t{kBtp1 + kBtp2 + 100}}) {
    SCOPED_TRACE(cap);
    World w(2, TestParams(Mode::kPushPull));
    const auto msg = Pattern(20000, 4);
    std::vector<uint8_t> dest(cap + 16, 0x5a);
    auto rh = w.receivers[1]->PostReceive(0, 0, dest.data(), cap);
    auto sh = w.senders[0]->Send(1, 0, msg.data(), msg.size());
    ASSERT_TRUE(w.Pump());
    auto c = w.receivers[1]->Take(*rh);
    ASSERT_TRUE(c.has_value());
    EXPECT_TRUE(c->truncated);
    EXPECT_EQ(c->bytes, cap);
    EXPECT_EQ(c->message_bytes, msg.size());
    EXPECT_TRUE(std::equal(msg.begin(), msg.begin() + cap, dest.begin()));
    for (size_t i = cap; i < dest.size(); ++i) ASSERT_EQ(dest[i], 0x5a);
    EXPECT_TRUE(w.senders[0]->Done(*sh));
    EXPECT_EQ(w.senders[0]->stats().bytes_pulled, cap > kBtp1 + kBtp2 ? 100u : 0u);
  }
}

TEST(PushPullTest, ParamsValidateNamesTheBadField) {
  auto error = [](Params p) { return p.Validate().message(); };
  Params p;
  EXPECT_TRUE(p.Validate().ok());
  p = Params();
  p.mode = static_cast<Mode>(7);
  EXPECT_NE(error(p).find("mode"), std::string::npos);
  p = Params();
  p.btp1_bytes = 2u << 20;
  EXPECT_NE(error(p).find("btp1_bytes"), std::string::npos);
  p = Params();
  p.btp2_bytes = 2u << 20;
  EXPECT_NE(error(p).find("btp2_bytes"), std::string::npos);
  p = Params();
  p.btp1_bytes = 0;
  p.btp2_bytes = 0;
  EXPECT_NE(error(p).find("btp2_bytes"), std::string::npos);
  p.mode = Mode::kPushZero;  // no bytes to push is what push-zero means
  EXPECT_TRUE(p.Validate().ok());
  p = Params();
  p.push_all_chunk_bytes = 0;
  EXPECT_NE(error(p).find("push_all_chunk_bytes"), std::string::npos);
  p = Params();
  p.pushed_slots = 0;
  EXPECT_NE(error(p).find("pushed_slots"), std::string::npos);
  p = Params();
  p.pull_round_bytes = 100;
  EXPECT_NE(error(p).find("pull_round_bytes"), std::string::npos);
  p.pull_round_bytes = kMaxPullRoundBytes + 1;
  EXPECT_NE(error(p).find("pull_round_bytes"), std::string::npos);
  p = Params();
  p.max_message_bytes = 0;
  EXPECT_NE(error(p).find("max_message_bytes"), std::string::npos);
  // The engines refuse them at construction with the same message.
  MemoryPlatform platform;
  p = Params();
  p.pushed_slots = 0;
  auto s = Sender::Create(&platform, 2, 0, p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("pushed_slots"), std::string::npos);
  auto r = Receiver::Create(&platform, 2, 0, p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("pushed_slots"), std::string::npos);
}

TEST(PushPullTest, BadSendsAndReceivesAreRefused) {
  Params p = TestParams(Mode::kPushPull);
  World w(2, p);
  uint8_t byte = 0;
  EXPECT_FALSE(w.senders[0]->Send(0, 0, &byte, 1).ok());  // to itself
  EXPECT_FALSE(w.senders[0]->Send(2, 0, &byte, 1).ok());  // no such rank
  EXPECT_FALSE(w.senders[0]->Send(1, 0, nullptr, 1).ok());
  std::vector<uint8_t> big(p.max_message_bytes + 1);
  EXPECT_FALSE(w.senders[0]->Send(1, 0, big.data(), big.size()).ok());
  EXPECT_FALSE(w.receivers[0]->PostReceive(0, 0, &byte, 1).ok());
  EXPECT_FALSE(w.receivers[0]->PostReceive(1, 0, nullptr, 1).ok());
  EXPECT_EQ(w.senders[0]->stats().messages_accepted, 0u);
}

TEST(PushPullTest, SenderWaitsForAReceiverThatHasNotMadeItsChannels) {
  MemoryPlatform platform;
  const Params p = TestParams(Mode::kPushPull);
  auto s = Sender::Create(&platform, 2, 0, p);
  ASSERT_TRUE(s.ok());
  const auto msg = Pattern(3000, 1);
  auto sh = (*s)->Send(1, 0, msg.data(), msg.size());
  ASSERT_TRUE(sh.ok());
  EXPECT_EQ((*s)->stats().first_pushes, 0u);
  auto r = Receiver::Create(&platform, 2, 1, p);
  ASSERT_TRUE(r.ok());
  std::vector<uint8_t> dest(msg.size());
  auto rh = (*r)->PostReceive(0, 0, dest.data(), dest.size());
  for (int i = 0; i < 100 && !(*s)->Idle(); ++i) {
    ASSERT_TRUE((*s)->Progress().ok());
    ASSERT_TRUE((*r)->Poll().ok());
  }
  ASSERT_TRUE((*r)->Take(*rh).has_value());
  EXPECT_EQ(dest, msg);
}

TEST(PushPullTest, SeededRandomTrafficBetweenFourRanks) {
  const uint32_t seed = 20261126;
  for (Mode mode : {Mode::kPushPull, Mode::kPushAll, Mode::kPushZero}) {
    for (bool fallback : {false, true}) {
      SCOPED_TRACE(std::string(ToString(mode)) + (fallback ? " staged" : "") + " seed " +
                   std::to_string(seed));
      constexpr uint32_t kRanks = 4;
      World w(kRanks, TestParams(mode), fallback);
      std::mt19937 rng(seed);
      struct Expect {
        uint32_t to;
        ReceiveHandle h;
        std::vector<uint8_t> msg;
        std::vector<uint8_t> dest;
      };
      std::vector<std::unique_ptr<Expect>> all;
      for (int k = 0; k < 200; ++k) {
        const uint32_t from = rng() % kRanks;
        const uint32_t to = (from + 1 + rng() % (kRanks - 1)) % kRanks;
        const uint32_t tag = rng() % 3;
        const size_t size = rng() % 4 == 0 ? rng() % (6 * kRound) : rng() % 600;
        auto e = std::make_unique<Expect>();
        e->to = to;
        e->msg = Pattern(size, static_cast<uint32_t>(k));
        e->dest.resize(size);
        auto h = w.receivers[to]->PostReceive(from, tag, e->dest.data(), size);
        ASSERT_TRUE(h.ok());
        e->h = *h;
        ASSERT_TRUE(w.senders[from]->Send(to, tag, e->msg.data(), size).ok());
        if (rng() % 3 == 0) {
          ASSERT_TRUE(w.Turn());
        }
        all.push_back(std::move(e));
      }
      ASSERT_TRUE(w.Pump());
      for (auto& e : all) {
        auto c = w.receivers[e->to]->Take(e->h);
        ASSERT_TRUE(c.has_value());
        ASSERT_EQ(e->dest, e->msg);
      }
      uint64_t pulled_s = 0, pulled_r = 0, staged = 0;
      for (uint32_t r = 0; r < kRanks; ++r) {
        pulled_s += w.senders[r]->stats().bytes_pulled;
        pulled_r += w.receivers[r]->stats().bytes_pulled;
        staged += w.senders[r]->stats().bytes_staged;
      }
      EXPECT_EQ(pulled_s, pulled_r);
      EXPECT_EQ(staged, fallback ? pulled_s : 0u);
    }
  }
}

}  // namespace
}  // namespace nicsim::ulp::pushpull
