// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/matcher.h"

#include <gtest/gtest.h>

#include <memory>

namespace nicsim::mpi {
namespace {

/** A receive in context 5 of a communicator of world ranks {2, 4, 6}. */
Request Receive(int source, int tag) {
  auto r = std::make_shared<RequestState>();
  r->context = 5;
  r->source = source;
  r->tag = tag;
  r->group = Group::Of({2, 4, 6});
  return r;
}

UnexpectedMessage Message(int source_world, int tag, MessageKind kind = MessageKind::kEager,
                          uint64_t rdv_id = 0) {
  return UnexpectedMessage{5, source_world, tag, kind, {}, rdv_id, 0};
}

TEST(Matcher, MatchesContextSourceAndTagWithWildcards) {
  const Request exact = Receive(1, 7);  // communicator rank 1 is world rank 4
  EXPECT_TRUE(Matcher::Matches(*exact, 5, 4, 7));
  EXPECT_FALSE(Matcher::Matches(*exact, 6, 4, 7));  // another communicator
  EXPECT_FALSE(Matcher::Matches(*exact, 5, 2, 7));  // another source
  EXPECT_FALSE(Matcher::Matches(*exact, 5, 4, 8));  // another tag
  const Request any = Receive(kAnySource, kAnyTag);
  EXPECT_TRUE(Matcher::Matches(*any, 5, 6, 123));
  EXPECT_FALSE(Matcher::Matches(*any, 5, 3, 123));  // world rank 3 is not in the group
}

TEST(Matcher, APostedReceiveIsTakenOnceOldestFirst) {
  Matcher m;
  const Request first = Receive(kAnySource, 7);
  const Request second = Receive(1, 7);
  m.Post(first);
  m.Post(second);
  EXPECT_EQ(m.TakePosted(5, 4, 7), first);
  EXPECT_EQ(m.TakePosted(5, 4, 7), second);
  EXPECT_EQ(m.TakePosted(5, 4, 7), nullptr);
}

TEST(Matcher, UnpostTakesOnlyAReceiveStillPosted) {
  Matcher m;
  const Request r = Receive(0, 1);
  m.Post(r);
  EXPECT_TRUE(m.Unpost(r));
  EXPECT_FALSE(m.Unpost(r));
  m.Post(r);
  m.ForgetPosted();
  EXPECT_EQ(m.TakePosted(5, 2, 1), nullptr);
}

TEST(Matcher, UnexpectedMessagesAreReceivedInArrivalOrder) {
  Matcher m;
  EXPECT_EQ(m.KeepUnexpected(Message(4, 9)), 1u);
  EXPECT_EQ(m.KeepUnexpected(Message(6, 7)), 2u);
  EXPECT_EQ(m.KeepUnexpected(Message(4, 7)), 3u);
  const Request from_4 = Receive(1, 7);
  const UnexpectedMessage* peeked = m.PeekUnexpected(*from_4);
  ASSERT_NE(peeked, nullptr);
  EXPECT_EQ(peeked->source, 4);
  EXPECT_EQ(peeked->tag, 7);
  EXPECT_EQ(m.unexpected_queued(), 3u);  // a peek leaves it
  const Request any = Receive(kAnySource, kAnyTag);
  std::optional<UnexpectedMessage> u = m.TakeUnexpected(*any);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->tag, 9);
  u = m.TakeUnexpected(*from_4);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->source, 4);
  EXPECT_EQ(u->tag, 7);
  EXPECT_EQ(m.unexpected_queued(), 1u);
  EXPECT_FALSE(m.TakeUnexpected(*from_4).has_value());
}

TEST(Matcher, FindRendezvousFindsOnlyThatSendersRequest) {
  Matcher m;
  m.KeepUnexpected(Message(4, 1, MessageKind::kEager, 11));
  m.KeepUnexpected(Message(4, 1, MessageKind::kRts, 12));
  m.KeepUnexpected(Message(6, 1, MessageKind::kRts, 11));
  EXPECT_EQ(m.FindRendezvous(4, 11), nullptr);  // an eager message has no rendezvous
  UnexpectedMessage* rts = m.FindRendezvous(4, 12);
  ASSERT_NE(rts, nullptr);
  EXPECT_EQ(rts->kind, MessageKind::kRts);
  ASSERT_NE(m.FindRendezvous(6, 11), nullptr);
  EXPECT_EQ(m.FindRendezvous(6, 11)->source, 6);
  EXPECT_EQ(m.FindRendezvous(2, 12), nullptr);
}

}  // namespace
}  // namespace nicsim::mpi
