// SPDX-License-Identifier: Apache-2.0
// Postbox messaging on the in-process platform: lazy segments, exact bytes across every piece
// boundary, quota waits, reclamation of every block, several senders, and random traffic.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "ulp/segments/memory_segments.h"
#include "ulp/postbox/receiver.h"
#include "ulp/postbox/segment_layout.h"
#include "ulp/postbox/sender.h"

namespace nicsim::ulp::postbox {
namespace {

/** Bytes that differ by message and position, so a misplaced byte shows. */
std::vector<uint8_t> Pattern(size_t size, uint32_t salt) {
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i)
    v[i] = static_cast<uint8_t>((i * 131 + salt * 7 + (i >> 8)) & 0xff);
  return v;
}

Params SmallParams() {
  Params p;
  p.piece_bytes = 64;
  p.pool_blocks = 16;
  p.slots_per_receiver = 8;
  p.inline_bytes = 16;
  p.receiver_quota_blocks = 8;
  p.max_message_bytes = 1 << 20;
  return p;
}

/** All engines of a test on one MemorySegments, indexed by topology index. */
struct World {
  segments::MemorySegments platform;
  Topology topology;
  Params params;
  std::vector<std::unique_ptr<Sender>> senders;
  std::vector<std::unique_ptr<Receiver>> receivers;

  World(std::vector<uint32_t> per_node, Params p) : params(p) {
    topology.processes_per_node = std::move(per_node);
    for (uint32_t n = 0; n < topology.nodes(); ++n) {
      for (uint32_t r = 0; r < topology.ProcessesOn(n); ++r) {
        auto s = Sender::Create(&platform, topology, {n, r}, params);
        auto v = Receiver::Create(&platform, topology, {n, r}, params);
        EXPECT_TRUE(s.ok()) << s.status().message();
        EXPECT_TRUE(v.ok()) << v.status().message();
        senders.push_back(std::move(*s));
        receivers.push_back(std::move(*v));
      }
    }
  }
  Sender& sender(ProcessId p) { return *senders[topology.Index(p)]; }
  Receiver& receiver(ProcessId p) { return *receivers[topology.Index(p)]; }

  /** Polls and progresses everyone until every sender is idle (or `rounds` pass). */
  bool Pump(int rounds = 10000) {
    for (int i = 0; i < rounds; ++i) {
      bool idle = true;
      for (auto& r : receivers) {
        auto polled = r->Poll();
        EXPECT_TRUE(polled.ok()) << polled.status().message();
      }
      for (auto& s : senders) {
        auto progressed = s->Progress();
        EXPECT_TRUE(progressed.ok()) << progressed.status().message();
        idle = idle && s->Idle();
      }
      if (idle) return true;
    }
    return false;
  }
};

TEST(PostboxLazyTest, NoSegmentBeforeTheFirstSendAndOneDataSegmentPerNodeAfter) {
  World w({2, 2}, SmallParams());
  const ProcessId a{0, 0}, b{1, 0}, c{1, 1}, d{0, 1};
  for (auto& r : w.receivers) ASSERT_TRUE(r->Poll().ok());
  EXPECT_EQ(w.platform.SegmentCount(), 0u);
  EXPECT_EQ(w.sender(a).stats().data_segments_created, 0u);

  const auto msg = Pattern(5, 1);
  ASSERT_TRUE(w.sender(a).Send(b, msg.data(), msg.size()).ok());
  EXPECT_TRUE(w.platform.Has(DataSegmentName(a, 1)));
  EXPECT_TRUE(w.platform.Has(AckSegmentName(0, 1)));
  EXPECT_EQ(w.platform.SegmentCount(), 2u);  // G(a, node 1) and the ACK segment on node 0
  EXPECT_EQ(w.sender(a).stats().data_segments_created, 1u);
  EXPECT_EQ(w.sender(a).stats().ack_segments_created, 1u);

  // Another receiver on the same node shares the segment: nothing new.
  ASSERT_TRUE(w.sender(a).Send(c, msg.data(), msg.size()).ok());
  EXPECT_EQ(w.platform.SegmentCount(), 2u);
  EXPECT_EQ(w.sender(a).stats().data_segments_created, 1u);

  // A second sender of node 0 makes its own data segment and attaches the shared ACK one.
  ASSERT_TRUE(w.sender(d).Send(b, msg.data(), msg.size()).ok());
  EXPECT_EQ(w.platform.SegmentCount(), 3u);
  EXPECT_EQ(w.sender(d).stats().ack_segments_created, 0u);
  EXPECT_EQ(w.sender(d).stats().ack_segments_attached, 1u);

  ASSERT_TRUE(w.Pump());
  EXPECT_EQ(w.receiver(b).Ready(), 2u);
  EXPECT_EQ(w.receiver(c).Ready(), 1u);
  EXPECT_EQ(w.platform.SegmentCount(), 3u);  // receiving made nothing
}

TEST(PostboxLazyTest, ConnectionsAreSimplexTheReverseDirectionIsItsOwn) {
  World w({1, 1}, SmallParams());
  const ProcessId a{0, 0}, b{1, 0};
  const auto msg = Pattern(100, 2);
  ASSERT_TRUE(w.sender(a).Send(b, msg.data(), msg.size()).ok());
  ASSERT_TRUE(w.Pump());
  ASSERT_EQ(w.receiver(b).Ready(), 1u);
  // b received and acknowledged without any data segment of its own.
  EXPECT_EQ(w.platform.Names(),
            (std::vector<std::string>{AckSegmentName(0, 1), DataSegmentName(a, 1)}));
  EXPECT_EQ(w.sender(b).stats().data_segments_created, 0u);

  ASSERT_TRUE(w.sender(b).Send(a, msg.data(), msg.size()).ok());
  EXPECT_EQ(w.platform.SegmentCount(), 4u);
  EXPECT_TRUE(w.platform.Has(DataSegmentName(b, 0)));
  EXPECT_TRUE(w.platform.Has(AckSegmentName(1, 0)));
  ASSERT_TRUE(w.Pump());
  auto m = w.receiver(a).Take();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->from, b);
  EXPECT_EQ(m->bytes, msg);
}

TEST(PostboxPiecesTest, EverySizeAroundEachPieceBoundaryArrivesExactly) {
  const Params p = SmallParams();
  World w({1, 1}, p);
  const ProcessId a{0, 0}, b{1, 0};
  std::vector<size_t> sizes = {0, 1, p.inline_bytes - 1, p.inline_bytes, p.inline_bytes + 1};
  for (size_t k = 1; k <= 2 * p.receiver_quota_blocks + 1; ++k) {
    sizes.push_back(k * p.piece_bytes - 1);
    sizes.push_back(k * p.piece_bytes);
    sizes.push_back(k * p.piece_bytes + 1);
  }
  uint32_t salt = 0;
  for (size_t size : sizes) {
    SCOPED_TRACE("size " + std::to_string(size));
    const auto msg = Pattern(size, ++salt);
    const uint64_t pieces_before = w.sender(a).stats().pieces_posted;
    auto h = w.sender(a).Send(b, msg.data(), msg.size());
    ASSERT_TRUE(h.ok()) << h.status().message();
    ASSERT_TRUE(w.Pump());
    EXPECT_EQ(w.sender(a).State(*h), SendState::kPosted);
    auto m = w.receiver(b).Take();
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->bytes, msg);
    EXPECT_EQ(m->sender_handle, *h);
    const uint64_t want_pieces =
        size <= p.inline_bytes ? 0 : (size + p.piece_bytes - 1) / p.piece_bytes;
    EXPECT_EQ(w.sender(a).stats().pieces_posted - pieces_before, want_pieces);
    EXPECT_FALSE(w.receiver(b).Take().has_value());
  }
  EXPECT_EQ(w.sender(a).FreeBlocks(1), p.pool_blocks);
}

TEST(PostboxInPlaceTest, SendInPlaceReadsTheCallersBufferUntilPostedAndArrivesExactly) {
  Params p = SmallParams();
  p.receiver_quota_blocks = 2;  // a message of 6 pieces must wait for acknowledgements
  World w({1, 1}, p);
  const ProcessId a{0, 0}, b{1, 0};
  const std::vector<size_t> sizes = {0, 5, p.inline_bytes + 1, 6 * p.piece_bytes + 3};
  uint32_t salt = 0;
  for (size_t size : sizes) {
    SCOPED_TRACE("size " + std::to_string(size));
    const auto msg = Pattern(size, ++salt);
    std::vector<uint8_t> buffer = msg;  // the caller's buffer, kept until kPosted
    auto h = w.sender(a).SendInPlace(b, buffer.data(), buffer.size());
    ASSERT_TRUE(h.ok()) << h.status().message();
    if (size > 2 * p.piece_bytes) {
      // Not all of it fits under the quota: the engine still needs the caller's bytes.
      EXPECT_EQ(w.sender(a).State(*h), SendState::kPending);
    }
    ASSERT_TRUE(w.Pump());
    EXPECT_EQ(w.sender(a).State(*h), SendState::kPosted);
    // Posted: the buffer is the caller's again, and scribbling on it changes nothing sent.
    std::fill(buffer.begin(), buffer.end(), 0xee);
    auto m = w.receiver(b).Take();
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->bytes, msg);
    EXPECT_EQ(m->sender_handle, *h);
  }
  // The copying Send keeps working alongside, in order with the in-place sends.
  const auto first = Pattern(3 * p.piece_bytes, 90), second = Pattern(3 * p.piece_bytes, 91);
  ASSERT_TRUE(w.sender(a).SendInPlace(b, first.data(), first.size()).ok());
  ASSERT_TRUE(w.sender(a).Send(b, second.data(), second.size()).ok());
  ASSERT_TRUE(w.Pump());
  auto m1 = w.receiver(b).Take();
  auto m2 = w.receiver(b).Take();
  ASSERT_TRUE(m1.has_value() && m2.has_value());
  EXPECT_EQ(m1->bytes, first);
  EXPECT_EQ(m2->bytes, second);
  EXPECT_EQ(w.sender(a).FreeBlocks(1), p.pool_blocks);
  // Same argument checks as Send.
  EXPECT_FALSE(w.sender(a).SendInPlace(b, nullptr, 4).ok());
  EXPECT_FALSE(w.sender(a).SendInPlace({5, 0}, first.data(), 1).ok());
}

TEST(PostboxAttachTest, AnAttachIntervalSpacesOutLooksForNewSendersButDrainsEveryPoll) {
  const Params p = SmallParams();
  World w({1, 1}, p);
  const ProcessId a{0, 0}, b{1, 0};
  Receiver& r = w.receiver(b);
  r.SetAttachInterval(3);
  const auto msg = Pattern(10, 1);
  ASSERT_TRUE(w.sender(a).Send(b, msg.data(), msg.size()).ok());
  // Polls 1 and 2 do not look for the new segment; poll 3 does and drains it.
  for (int poll = 1; poll <= 2; ++poll) {
    auto got = r.Poll();
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, 0u) << "poll " << poll;
  }
  auto got = r.Poll();
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 1u);
  EXPECT_EQ(r.stats().segments_attached, 1u);
  // Once attached, a sender is drained on every poll whatever the interval.
  ASSERT_TRUE(w.sender(a).Send(b, msg.data(), msg.size()).ok());
  got = r.Poll();
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 1u);
}

TEST(PostboxQuotaTest, ASenderOverQuotaWaitsAndThenCompletesNeverDrops) {
  Params p = SmallParams();
  p.receiver_quota_blocks = 2;
  World w({1, 1}, p);
  const ProcessId a{0, 0}, b{1, 0};
  const auto big = Pattern(10 * p.piece_bytes + 3, 9);  // 11 pieces
  const auto small = Pattern(3, 10);
  auto h1 = w.sender(a).Send(b, big.data(), big.size());
  auto h2 = w.sender(a).Send(b, small.data(), small.size());
  ASSERT_TRUE(h1.ok() && h2.ok());
  // Two pieces went out, then the quota stopped the message; the small one waits behind it.
  EXPECT_EQ(w.sender(a).stats().pieces_posted, 2u);
  EXPECT_EQ(w.sender(a).BlocksHeldBy(b), 2u);
  EXPECT_EQ(w.sender(a).FreeBlocks(1), p.pool_blocks - 2);
  EXPECT_EQ(w.sender(a).stats().quota_waits, 1u);
  EXPECT_EQ(w.sender(a).State(*h1), SendState::kPending);
  EXPECT_EQ(w.sender(a).State(*h2), SendState::kPending);
  // Without the receiver nothing moves, however often the sender progresses.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(*w.sender(a).Progress(), 0u);
  EXPECT_EQ(w.sender(a).stats().quota_waits, 1u);  // one wait, not one per call

  ASSERT_TRUE(w.Pump());
  EXPECT_EQ(w.sender(a).State(*h1), SendState::kPosted);
  EXPECT_EQ(w.sender(a).State(*h2), SendState::kPosted);
  EXPECT_GE(w.sender(a).stats().quota_waits, 2u);
  auto m1 = w.receiver(b).Take();
  auto m2 = w.receiver(b).Take();
  ASSERT_TRUE(m1 && m2);
  EXPECT_EQ(m1->bytes, big);
  EXPECT_EQ(m2->bytes, small);
  EXPECT_EQ(w.sender(a).stats().messages_posted, 2u);
  EXPECT_EQ(w.receiver(b).stats().messages_delivered, 2u);
}

TEST(PostboxQuotaTest, AReceiverAtQuotaDoesNotHoldUpOthers) {
  Params p = SmallParams();
  p.receiver_quota_blocks = 2;
  World w({1, 2}, p);
  const ProcessId a{0, 0}, r0{1, 0}, r1{1, 1};
  const auto big = Pattern(6 * p.piece_bytes, 1);
  const auto other = Pattern(2 * p.piece_bytes, 2);
  auto h0 = w.sender(a).Send(r0, big.data(), big.size());
  auto h1 = w.sender(a).Send(r1, other.data(), other.size());
  ASSERT_TRUE(h0.ok() && h1.ok());
  EXPECT_EQ(w.sender(a).State(*h0), SendState::kPending);
  EXPECT_EQ(w.sender(a).State(*h1), SendState::kPosted);  // the pool had room for r1's share
  EXPECT_EQ(w.sender(a).BlocksHeldBy(r0), 2u);
  EXPECT_EQ(w.sender(a).BlocksHeldBy(r1), 2u);
  ASSERT_TRUE(w.Pump());
  EXPECT_EQ(w.receiver(r0).Take()->bytes, big);
  EXPECT_EQ(w.receiver(r1).Take()->bytes, other);
}

TEST(PostboxReclaimTest, EveryBlockReturnsExactlyOnceAndThePoolIsFullAgain) {
  Params p = SmallParams();
  World w({1, 3}, p);
  const ProcessId a{0, 0};
  for (uint32_t r = 0; r < 3; ++r) {
    const auto msg = Pattern(3 * p.piece_bytes, r);
    ASSERT_TRUE(w.sender(a).Send({1, r}, msg.data(), msg.size()).ok());
  }
  EXPECT_EQ(w.sender(a).ReceiverList(1), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(w.sender(a).FreeBlocks(1), p.pool_blocks - 9);
  ASSERT_TRUE(w.Pump());
  const SenderStats& s = w.sender(a).stats();
  EXPECT_EQ(s.blocks_taken, 9u);
  EXPECT_EQ(s.blocks_returned, 9u);
  EXPECT_EQ(s.slots_reclaimed, 9u);
  EXPECT_EQ(s.receivers_delisted, 3u);
  EXPECT_EQ(w.sender(a).FreeBlocks(1), p.pool_blocks);
  EXPECT_TRUE(w.sender(a).ReceiverList(1).empty());
  EXPECT_TRUE(w.sender(a).Idle());
}

TEST(PostboxReclaimTest, AnEmptyPoolIsRefilledFromOtherReceiversOnTheList) {
  Params p = SmallParams();
  p.pool_blocks = 4;
  p.receiver_quota_blocks = 4;
  World w({1, 2}, p);
  const ProcessId a{0, 0}, r0{1, 0}, r1{1, 1};
  const auto four = Pattern(4 * p.piece_bytes, 1);
  ASSERT_TRUE(w.sender(a).Send(r0, four.data(), four.size()).ok());
  EXPECT_EQ(w.sender(a).FreeBlocks(1), 0u);
  EXPECT_EQ(w.sender(a).ReceiverList(1), (std::vector<uint32_t>{0}));
  ASSERT_TRUE(w.receiver(r0).Poll().ok());  // r0 acknowledges; a has not looked yet

  const auto one = Pattern(p.piece_bytes, 2);
  auto h = w.sender(a).Send(r1, one.data(), one.size());
  ASSERT_TRUE(h.ok());
  // The send found the pool empty, walked the list, took r0's four blocks back, posted.
  EXPECT_EQ(w.sender(a).State(*h), SendState::kPosted);
  EXPECT_EQ(w.sender(a).stats().blocks_reclaimed_from_others, 4u);
  EXPECT_EQ(w.sender(a).stats().pool_waits, 0u);
  EXPECT_EQ(w.sender(a).ReceiverList(1), (std::vector<uint32_t>{1}));
  ASSERT_TRUE(w.Pump());
  EXPECT_EQ(w.receiver(r0).Take()->bytes, four);
  EXPECT_EQ(w.receiver(r1).Take()->bytes, one);
  EXPECT_EQ(w.sender(a).FreeBlocks(1), 4u);
}

TEST(PostboxQuotaTest, AShareOfThePoolIsThePoolOverTheProcessesTheSenderMayReach) {
  Params p = SmallParams();
  p.pool_blocks = 8;
  p.slots_per_receiver = 16;
  p.receiver_quota_blocks = 0;  // a share: pool / the processes of the receiving node
  World w({1, 3}, p);
  const ProcessId a{0, 0}, r0{1, 0}, r1{1, 1}, r2{1, 2};
  // Three processes on node 1: a share of 8 / 3 = 2 blocks, even for a receiver alone.
  const auto big = Pattern(5 * p.piece_bytes, 5);
  ASSERT_TRUE(w.sender(a).Send(r0, big.data(), big.size()).ok());
  EXPECT_EQ(w.sender(a).BlocksHeldBy(r0), 2u);
  EXPECT_EQ(w.sender(a).stats().quota_waits, 1u);
  EXPECT_EQ(w.sender(a).FreeBlocks(1), 6u);
  // The others still find their share free while r0 is at its own.
  const auto mid = Pattern(3 * p.piece_bytes, 6);
  ASSERT_TRUE(w.sender(a).Send(r1, mid.data(), mid.size()).ok());
  ASSERT_TRUE(w.sender(a).Send(r2, mid.data(), mid.size()).ok());
  EXPECT_EQ(w.sender(a).BlocksHeldBy(r1), 2u);
  EXPECT_EQ(w.sender(a).BlocksHeldBy(r2), 2u);
  EXPECT_EQ(w.sender(a).stats().quota_waits, 3u);
  EXPECT_EQ(w.sender(a).stats().pool_waits, 0u);
  ASSERT_TRUE(w.Pump());
  EXPECT_EQ(w.receiver(r0).Take()->bytes, big);
  EXPECT_EQ(w.receiver(r1).Take()->bytes, mid);
  EXPECT_EQ(w.receiver(r2).Take()->bytes, mid);
  EXPECT_TRUE(w.sender(a).Idle());
  EXPECT_EQ(w.sender(a).stats().blocks_returned, w.sender(a).stats().blocks_taken);
}

TEST(PostboxQuotaTest, TheSenderIsNotAmongTheProcessesItMayReachOnItsOwnNode) {
  Params p = SmallParams();
  p.pool_blocks = 8;
  p.slots_per_receiver = 16;
  p.receiver_quota_blocks = 0;
  // Three processes on one node: a sender may reach two, a share of 4 each.
  World same({3}, p);
  const auto big = Pattern(6 * p.piece_bytes, 7);
  ASSERT_TRUE(same.sender(ProcessId{0, 0}).Send(ProcessId{0, 1}, big.data(), big.size()).ok());
  EXPECT_EQ(same.sender(ProcessId{0, 0}).BlocksHeldBy(ProcessId{0, 1}), 4u);
  ASSERT_TRUE(same.Pump());
  EXPECT_EQ(same.receiver(ProcessId{0, 1}).Take()->bytes, big);
  // One process on the other node: the only one it may reach, so the whole pool.
  World pair({1, 1}, p);
  const auto whole = Pattern(10 * p.piece_bytes, 8);
  ASSERT_TRUE(pair.sender(ProcessId{0, 0}).Send(ProcessId{1, 0}, whole.data(), whole.size()).ok());
  EXPECT_EQ(pair.sender(ProcessId{0, 0}).BlocksHeldBy(ProcessId{1, 0}), 8u);
  EXPECT_EQ(pair.sender(ProcessId{0, 0}).FreeBlocks(1), 0u);
  ASSERT_TRUE(pair.Pump());
  EXPECT_EQ(pair.receiver(ProcessId{1, 0}).Take()->bytes, whole);
}

TEST(PostboxReclaimTest, AnEmptyPoolWithNothingAcknowledgedWaits) {
  Params p = SmallParams();
  p.pool_blocks = 2;
  p.receiver_quota_blocks = 2;
  World w({1, 2}, p);
  const ProcessId a{0, 0}, r0{1, 0}, r1{1, 1};
  const auto two = Pattern(2 * p.piece_bytes, 1);
  ASSERT_TRUE(w.sender(a).Send(r0, two.data(), two.size()).ok());
  auto h = w.sender(a).Send(r1, two.data(), two.size());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(w.sender(a).State(*h), SendState::kPending);
  EXPECT_EQ(w.sender(a).stats().pool_waits, 1u);
  ASSERT_TRUE(w.Pump());
  EXPECT_EQ(w.receiver(r1).Take()->bytes, two);
  EXPECT_EQ(w.sender(a).FreeBlocks(1), 2u);
}

TEST(PostboxSlotsTest, AFullPostboxWaitsForAcknowledgements) {
  Params p = SmallParams();
  p.slots_per_receiver = 2;
  World w({1, 1}, p);
  const ProcessId a{0, 0}, b{1, 0};
  std::vector<SendHandle> handles;
  for (uint32_t i = 0; i < 5; ++i) {
    const auto msg = Pattern(4, i);
    handles.push_back(*w.sender(a).Send(b, msg.data(), msg.size()));
  }
  EXPECT_EQ(w.sender(a).State(handles[1]), SendState::kPosted);
  EXPECT_EQ(w.sender(a).State(handles[2]), SendState::kPending);
  EXPECT_EQ(w.sender(a).stats().slot_waits, 1u);
  ASSERT_TRUE(w.Pump());
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(w.receiver(b).Take()->bytes, Pattern(4, i));
}

TEST(PostboxManyTest, TwoSendersToOneReceiverKeepEachSendersOrder) {
  const Params p = SmallParams();
  World w({2, 1}, p);
  const ProcessId s0{0, 0}, s1{0, 1}, r{1, 0};
  for (uint32_t i = 0; i < 20; ++i) {
    const auto m0 = Pattern(i * 37 % 300, 1000 + i);
    const auto m1 = Pattern(i * 53 % 300, 2000 + i);
    ASSERT_TRUE(w.sender(s0).Send(r, m0.data(), m0.size()).ok());
    ASSERT_TRUE(w.sender(s1).Send(r, m1.data(), m1.size()).ok());
    if (i % 3 == 0) {
      ASSERT_TRUE(w.receiver(r).Poll().ok());
    }
  }
  ASSERT_TRUE(w.Pump());
  std::map<uint32_t, uint32_t> next;  // sender rank -> next i
  while (auto m = w.receiver(r).Take()) {
    ASSERT_EQ(m->from.node, 0u);
    const uint32_t i = next[m->from.rank]++;
    const uint32_t salt = (m->from.rank == 0 ? 1000 : 2000) + i;
    const size_t size = m->from.rank == 0 ? i * 37 % 300 : i * 53 % 300;
    EXPECT_EQ(m->bytes, Pattern(size, salt)) << "from rank " << m->from.rank << " #" << i;
  }
  EXPECT_EQ(next[0], 20u);
  EXPECT_EQ(next[1], 20u);
  EXPECT_EQ(w.receiver(r).stats().segments_attached, 2u);
  EXPECT_EQ(w.receiver(r).stats().ack_segments_attached, 1u);
  EXPECT_EQ(w.sender(s0).FreeBlocks(1), p.pool_blocks);
  EXPECT_EQ(w.sender(s1).FreeBlocks(1), p.pool_blocks);
}

TEST(PostboxRandomTest, SeededTrafficAmongFourProcessesLosesAndDuplicatesNothing) {
  for (uint32_t seed : {1u, 2u, 3u, 42u, 20261126u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Params p = SmallParams();
    p.pool_blocks = 12;
    p.receiver_quota_blocks = 5;
    p.slots_per_receiver = 4;
    World w({2, 2}, p);
    std::mt19937 rng(seed);
    const std::vector<ProcessId> procs = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    // Expected messages per (from, to), in order: the size and salt of each.
    std::map<std::pair<uint32_t, uint32_t>, std::deque<std::pair<size_t, uint32_t>>> expect;
    uint32_t salt = 0;
    size_t sent = 0, received = 0;
    auto check = [&](uint32_t to) {
      while (auto m = w.receivers[to]->Take()) {
        auto& q = expect[{w.topology.Index(m->from), to}];
        ASSERT_FALSE(q.empty()) << "unexpected (duplicate?) message from " << m->from.ToString();
        EXPECT_EQ(m->bytes, Pattern(q.front().first, q.front().second));
        q.pop_front();
        ++received;
      }
    };
    for (int step = 0; step < 3000; ++step) {
      const uint32_t who = rng() % 4;
      switch (rng() % 4) {
        case 0:
        case 1: {
          const uint32_t to = rng() % 4;
          const size_t size = rng() % (6 * p.piece_bytes + 2);
          const auto msg = Pattern(size, ++salt);
          ASSERT_TRUE(w.senders[who]->Send(procs[to], msg.data(), msg.size()).ok());
          expect[{who, to}].push_back({size, salt});
          ++sent;
          break;
        }
        case 2:
          ASSERT_TRUE(w.senders[who]->Progress().ok());
          break;
        default:
          ASSERT_TRUE(w.receivers[who]->Poll().ok());
          check(who);
      }
    }
    ASSERT_TRUE(w.Pump());
    for (uint32_t to = 0; to < 4; ++to) check(to);
    EXPECT_EQ(received, sent);
    for (auto& [pair, q] : expect) EXPECT_TRUE(q.empty()) << pair.first << "->" << pair.second;
    uint64_t waits = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      const SenderStats& s = w.senders[i]->stats();
      waits += s.quota_waits + s.pool_waits + s.slot_waits;
      EXPECT_EQ(s.blocks_taken, s.blocks_returned);
      for (uint32_t n = 0; n < 2; ++n) EXPECT_EQ(w.senders[i]->FreeBlocks(n), p.pool_blocks);
    }
    // The sizes are chosen so that senders do run out of slots, quota or blocks and wait.
    EXPECT_GT(waits, 0u);
  }
}

TEST(PostboxErrorsTest, BadArgumentsReturnErrorsWithMessages) {
  World w({1, 2}, SmallParams());
  Sender& s = w.sender({0, 0});
  const uint8_t byte = 7;
  auto no_node = s.Send({5, 0}, &byte, 1);
  ASSERT_FALSE(no_node.ok());
  EXPECT_NE(no_node.status().message().find("no node 5"), std::string::npos);
  auto no_rank = s.Send({1, 2}, &byte, 1);
  ASSERT_FALSE(no_rank.ok());
  EXPECT_NE(no_rank.status().message().find("has only 2"), std::string::npos);
  auto null_data = s.Send({1, 0}, nullptr, 10);
  ASSERT_FALSE(null_data.ok());
  EXPECT_NE(null_data.status().message().find("null"), std::string::npos);
  std::vector<uint8_t> huge(w.params.max_message_bytes + 1);
  auto too_big = s.Send({1, 0}, huge.data(), huge.size());
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("max_message_bytes"), std::string::npos);
  EXPECT_EQ(s.stats().rejected_sends, 4u);
  EXPECT_EQ(w.platform.SegmentCount(), 0u);  // a refused send creates nothing
  EXPECT_EQ(s.State(0), SendState::kUnknown);
  EXPECT_EQ(s.State(99), SendState::kUnknown);
  EXPECT_TRUE(s.Send({1, 0}, nullptr, 0).ok());  // an empty message is fine

  Params bad = SmallParams();
  bad.piece_bytes = 0;
  EXPECT_FALSE(Sender::Create(&w.platform, w.topology, {0, 0}, bad).ok());
  bad = SmallParams();
  bad.receiver_quota_blocks = bad.pool_blocks + 1;
  auto over = Receiver::Create(&w.platform, w.topology, {0, 0}, bad);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("receiver_quota_blocks"), std::string::npos);
  EXPECT_FALSE(Sender::Create(&w.platform, w.topology, {0, 1}, SmallParams()).ok());
  EXPECT_FALSE(Sender::Create(nullptr, w.topology, {0, 0}, SmallParams()).ok());
  EXPECT_FALSE(Receiver::Create(&w.platform, Topology{}, {0, 0}, SmallParams()).ok());
  EXPECT_FALSE(Receiver::Create(&w.platform, Topology{{1, 0}}, {0, 0}, SmallParams()).ok());
}

TEST(PostboxErrorsTest, ACorruptSlotIsAnErrorForThatSenderOnly) {
  const Params p = SmallParams();
  World w({2, 1}, p);
  const ProcessId s0{0, 0}, s1{0, 1}, r{1, 0};
  const auto msg = Pattern(2 * p.piece_bytes, 3);
  ASSERT_TRUE(w.sender(s0).Send(r, msg.data(), msg.size()).ok());
  ASSERT_TRUE(w.sender(s1).Send(r, msg.data(), msg.size()).ok());
  // Scribble over s0's first slot as a faulty process could: a block beyond the pool.
  auto m = w.platform.Attach(DataSegmentName(s0, 1));
  ASSERT_TRUE(m.ok());
  const DataLayout l = ComputeDataLayout(1, p);
  SlotAt(m->base, l, 0, 0, p.slots_per_receiver)->block_index = p.pool_blocks + 3;
  auto polled = w.receiver(r).Poll();
  ASSERT_FALSE(polled.ok());
  EXPECT_NE(polled.status().message().find(s0.ToString()), std::string::npos);
  EXPECT_EQ(w.receiver(r).stats().protocol_errors, 1u);
  // s1's message still arrives; s0 is ignored from now on.
  auto again = w.receiver(r).Poll();
  ASSERT_TRUE(again.ok());
  auto got = w.receiver(r).Take();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->from, s1);
  EXPECT_EQ(got->bytes, msg);
  ASSERT_TRUE(w.platform.Detach(*m).ok());
}

TEST(PostboxErrorsTest, ACorruptAckFlagIsAnErrorForThatReceiverOnly) {
  Params p = SmallParams();
  p.slots_per_receiver = 2;
  World w({1, 2}, p);
  const ProcessId s{0, 0}, r0{1, 0}, r1{1, 1};
  for (uint32_t i = 0; i < 4; ++i) {
    const auto msg = Pattern(4, i);
    ASSERT_TRUE(w.sender(s).Send(r0, msg.data(), msg.size()).ok());
    ASSERT_TRUE(w.sender(s).Send(r1, msg.data(), msg.size()).ok());
  }
  // Both postboxes are full (two slots each): the other two messages to each wait.
  EXPECT_EQ(w.sender(s).stats().slot_waits, 2u);
  ASSERT_TRUE(w.receiver(r0).Poll().ok());
  ASSERT_TRUE(w.receiver(r1).Poll().ok());
  // r0 acknowledged its first slot (sequence number 1); a faulty process overwrites the flag.
  auto ack = w.platform.Attach(AckSegmentName(0, 1));
  ASSERT_TRUE(ack.ok());
  auto* flag =
      reinterpret_cast<AckSlot*>(static_cast<uint8_t*>(ack->base) + AckOffset(0, 0, 0, 2, p));
  ASSERT_EQ(flag->acked_seq.load(), 1u);
  flag->acked_seq.store(77);
  Result<size_t> progressed = w.sender(s).Progress();
  ASSERT_FALSE(progressed.ok());
  EXPECT_EQ(progressed.status().message(),
            "postbox: " + r0.ToString() +
                " acknowledged slot 0 with sequence number 77, expected 1 or 0");
  EXPECT_EQ(w.sender(s).stats().ack_protocol_errors, 1u);
  // r0 gets nothing more, and a send to it is refused; r1's messages all arrive.
  const auto more = Pattern(4, 9);
  EXPECT_FALSE(w.sender(s).Send(r0, more.data(), more.size()).ok());
  ASSERT_TRUE(w.Pump());
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(w.receiver(r1).Take()->bytes, Pattern(4, i));
  for (uint32_t i = 0; i < 2; ++i) EXPECT_EQ(w.receiver(r0).Take()->bytes, Pattern(4, i));
  EXPECT_FALSE(w.receiver(r0).Take().has_value());
  EXPECT_EQ(w.sender(s).stats().ack_protocol_errors, 1u);
  ASSERT_TRUE(w.platform.Detach(*ack).ok());
}

TEST(PostboxErrorsTest, AReceiverWithOtherSizesRefusesTheSegment) {
  Params p = SmallParams();
  World w({1, 1}, p);
  p.piece_bytes = 128;
  auto odd = Receiver::Create(&w.platform, w.topology, {1, 0}, p);
  ASSERT_TRUE(odd.ok());
  const uint8_t byte = 1;
  ASSERT_TRUE(w.sender({0, 0}).Send({1, 0}, &byte, 1).ok());
  auto polled = (*odd)->Poll();
  ASSERT_FALSE(polled.ok());
  EXPECT_NE(polled.status().message().find("sizes differ"), std::string::npos);
}

}  // namespace
}  // namespace nicsim::ulp::postbox
