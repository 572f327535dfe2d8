// SPDX-License-Identifier: Apache-2.0
// The event queue and its in-place actions: time order with ties by owner and the owner's own
// schedule count (in schedule order within one owner), hand-overs between owners, small
// and large captures (run once, destroyed once), move-only captures, an action that
// schedules thousands of events while it runs; background events, which run in order while
// foreground work remains and never alone; the schedule log benchmarks replay; and a
// seeded storm of events over many owners and few distinct times, run in exactly key order.
#include "kernel/event_queue.h"

#include <gtest/gtest.h>

#include "base/rng.h"
#include "tests/support/test_seed.h"

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nicsim::hw::func {
namespace {

TEST(EventQueueTest, RunsInTimeOrderWithTiesInScheduleOrder) {
  kernel::EventQueue q;
  std::string order;
  q.At(30, [&] { order += 'c'; });
  q.At(10, [&] { order += 'a'; });
  q.At(30, [&] { order += 'd'; });
  q.At(20, [&] { order += 'b'; });
  q.At(10, [&] {
    order += 'A';
    // Scheduled now for now: after everything already due at this time.
    q.After(0, [&] { order += 'X'; });
  });
  q.RunWhile([] { return true; });
  EXPECT_EQ(order, "aAXbcd");
  EXPECT_EQ(q.now_ps(), 30u);
  EXPECT_EQ(q.events_run(), 6u);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueueTest, BackgroundEventsRunInOrderOnlyWhileForegroundWorkRemains) {
  kernel::EventQueue q;
  std::string order;
  // A tick every 10 ps that re-arms itself, as a housekeeping timer does.
  std::function<void()> tick = [&] {
    order += 't';
    q.Background(10, tick);
  };
  q.Background(10, tick);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_time_ps(), UINT64_MAX);
  EXPECT_FALSE(q.RunOne());
  EXPECT_EQ(q.now_ps(), 0u);
  q.At(25, [&] { order += 'a'; });
  q.At(40, [&] { order += 'b'; });  // due with a tick, scheduled before it: the run ends here
  EXPECT_FALSE(q.empty());
  EXPECT_EQ(q.next_time_ps(), 10u);  // a tick is the next event while work remains
  q.RunWhile([] { return true; });
  EXPECT_EQ(order, "ttatb");
  EXPECT_EQ(q.now_ps(), 40u);
  EXPECT_EQ(q.events_run(), 5u);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.background_pending(), 1u);
  // New work later picks the ticks up where they stopped.
  q.After(15, [&] { order += 'c'; });
  q.RunWhile([] { return true; });
  EXPECT_EQ(order, "ttatbttc");  // the ticks due at 40 and 50, then c
  EXPECT_EQ(q.now_ps(), 55u);
}

TEST(EventQueueTest, ASeededStormOfEventsRunsInStrictlyIncreasingTimeThenTieOrder) {
  const uint64_t seed = testing::TestSeed(1);
  SCOPED_TRACE("seed=" + std::to_string(seed) +
               " (replay: NICSIM_TEST_SEED=" + std::to_string(seed) + ")");
  Rng rng(seed, "event-storm");
  kernel::EventQueue q;
  uint64_t scheduled = 0;
  uint64_t ran = 0;
  uint64_t last_time = 0;
  uint64_t last_tie = 0;
  bool in_order = true;
  std::function<void()> event = [&] {
    const uint64_t time = q.now_ps();
    const uint64_t tie = q.running_tie();
    if (ran > 0 && (time < last_time || (time == last_time && tie <= last_tie))) in_order = false;
    last_time = time;
    last_tie = tie;
    ++ran;
    // Some events schedule more, for now or a little later: the heap grows and shrinks.
    if (rng.Chance(0.4)) {
      ++scheduled;
      q.After(rng.Below(40), [&] { event(); });
    }
  };
  // Few distinct times and many owners: most order is decided by the tie.
  for (int i = 0; i < 20000; ++i) {
    kernel::EventQueue::OwnerScope as(q, static_cast<kernel::EventQueue::Owner>(rng.Below(64)));
    ++scheduled;
    q.At(rng.Below(500), [&] { event(); });
  }
  q.RunWhile([] { return true; });
  EXPECT_TRUE(in_order);
  EXPECT_EQ(ran, scheduled);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueueTest, TiesRunByOwnerThenTheOwnersOwnScheduleCount) {
  kernel::EventQueue q;
  std::string order;
  {
    kernel::EventQueue::OwnerScope as2(q, 2);
    q.At(10, [&] { order += "2a "; });
  }
  {
    kernel::EventQueue::OwnerScope as1(q, 1);
    q.At(10, [&] { order += "1a "; });
  }
  {
    kernel::EventQueue::OwnerScope as2(q, 2);
    q.At(10, [&] { order += "2b "; });
  }
  q.At(10, [&] { order += "global "; });  // outside any scope: the global owner, last
  {
    kernel::EventQueue::OwnerScope as1(q, 1);
    q.At(5, [&] { order += "1-early "; });
  }
  q.RunWhile([] { return true; });
  EXPECT_EQ(order, "1-early 1a 2a 2b global ");
  EXPECT_EQ(q.scheduled_by(1), 2u);
  EXPECT_EQ(q.scheduled_by(2), 2u);
  EXPECT_EQ(q.scheduled_by(kernel::EventQueue::kGlobalOwner), 1u);
  EXPECT_EQ(q.owner(), kernel::EventQueue::kGlobalOwner);
}

TEST(EventQueueTest, AnEventRunsAsItsOwnerAndWhatItSchedulesBelongsToIt) {
  kernel::EventQueue q;
  std::vector<kernel::EventQueue::Owner> seen;
  {
    kernel::EventQueue::OwnerScope as3(q, 3);
    q.At(1, [&] {
      seen.push_back(q.owner());
      q.After(1, [&] { seen.push_back(q.owner()); });
    });
  }
  q.RunWhile([] { return true; });
  EXPECT_EQ(seen, (std::vector<kernel::EventQueue::Owner>{3, 3}));
  EXPECT_EQ(q.scheduled_by(3), 2u);
}

TEST(EventQueueTest, AHandOverIsKeyedByTheSenderAndRunsAsTheTarget) {
  kernel::EventQueue q;
  std::string order;
  std::vector<kernel::EventQueue::Owner> runs_as;
  {
    kernel::EventQueue::OwnerScope as5(q, 5);
    // Node 5's own event at 20, scheduled first ...
    q.At(20, [&] { order += "5-own "; });
  }
  {
    kernel::EventQueue::OwnerScope as1(q, 1);
    // ... and a frame from node 1 handed to node 5 for the same time: keyed by node 1, it
    // runs first, as node 5, and what it schedules is node 5's.
    q.AtFor(5, 20, [&] {
      order += "from-1 ";
      runs_as.push_back(q.owner());
      q.After(0, [&] {
        order += "follow-up ";
        runs_as.push_back(q.owner());
      });
    });
  }
  q.RunWhile([] { return true; });
  EXPECT_EQ(order, "from-1 5-own follow-up ");
  EXPECT_EQ(runs_as, (std::vector<kernel::EventQueue::Owner>{5, 5}));
  EXPECT_EQ(q.scheduled_by(1), 1u);  // the hand-over counts for its sender
  EXPECT_EQ(q.scheduled_by(5), 2u);  // its own event and the follow-up
}

/**
 * A toy cluster for the split test: node n sends `rounds` messages, one every 10 ps, to node
 * `to[n]`; a message lands 10 ps after it is sent (the lookahead), and its receiver logs it.
 * Nodes 0 and 1 both send to node 2, at the same times.
 */
struct ToyCluster {
  static constexpr uint64_t kLatencyPs = 10;
  static constexpr uint32_t kNodes = 3;
  static constexpr uint32_t kTo[kNodes] = {2, 2, 0};
  /** Which queue each node lives in. */
  std::vector<kernel::EventQueue*> queue_of;
  /** A hand-over to a node of another queue: the message and its key. */
  struct InFlight {
    uint64_t time_ps;
    uint64_t tie;
    uint32_t from;
    uint32_t to;
    int round;
  };
  std::vector<InFlight> mailbox;
  std::vector<std::vector<std::string>> log = std::vector<std::vector<std::string>>(kNodes);

  void Land(kernel::EventQueue& q, uint32_t from, uint32_t to, int round) {
    log[to].push_back(std::to_string(q.now_ps()) + ":" + std::to_string(from) + "#" +
                      std::to_string(round));
  }
  void Send(kernel::EventQueue& q, uint32_t from, int round) {
    const uint32_t to = kTo[from];
    const uint64_t at = q.now_ps() + kLatencyPs;
    if (queue_of[to] == &q) {
      q.AtFor(to, at, [this, &q, from, to, round] { Land(q, from, to, round); });
    } else {
      mailbox.push_back({at, q.TakeTie(), from, to, round});
    }
    if (round > 0) q.After(kLatencyPs, [this, &q, from, round] { Send(q, from, round - 1); });
  }
  void Start(uint32_t node, int rounds) {
    kernel::EventQueue& q = *queue_of[node];
    kernel::EventQueue::OwnerScope as(q, node);
    q.At(0, [this, &q, node, rounds] { Send(q, node, rounds); });
  }
  /** Delivers the mailbox into the receivers' queues, keyed as they were sent. */
  void Exchange() {
    for (const InFlight& m : mailbox) {
      kernel::EventQueue& q = *queue_of[m.to];
      q.AtKeyed(m.time_ps, m.tie, m.to, [this, &q, from = m.from, to = m.to, round = m.round] {
        Land(q, from, to, round);
      });
    }
    mailbox.clear();
  }
};

TEST(EventQueueTest, ANodeSplitOverTwoQueuesRunsItsEventsInTheSameOrder) {
  // One queue for the whole toy cluster ...
  kernel::EventQueue whole;
  ToyCluster one;
  one.queue_of = {&whole, &whole, &whole};
  for (uint32_t node : {0u, 1u, 2u}) one.Start(node, 5);
  whole.RunWhile([] { return true; });

  // ... and the same cluster split: node 0 alone, nodes 1 and 2 together, run in windows of
  // the lookahead with the hand-overs exchanged between windows. Node 0's messages reach node
  // 2 only at each exchange, after node 1's (scheduled in node 2's own queue): in schedule
  // order node 1's would run first; by key, node 0's run first, as in one queue.
  kernel::EventQueue a;
  kernel::EventQueue b;
  ToyCluster split;
  split.queue_of = {&a, &b, &b};
  for (uint32_t node : {0u, 1u, 2u}) split.Start(node, 5);
  for (uint64_t end = ToyCluster::kLatencyPs; !a.empty() || !b.empty() || !split.mailbox.empty();
       end += ToyCluster::kLatencyPs) {
    split.Exchange();
    for (kernel::EventQueue* q : {&a, &b}) {
      while (!q->empty() && q->next_time_ps() < end) q->RunOne();
    }
  }
  ASSERT_EQ(one.log[2].size(), 12u);
  EXPECT_EQ(one.log[2][0], "10:0#5");
  EXPECT_EQ(one.log[2][1], "10:1#5");
  for (uint32_t node = 0; node < ToyCluster::kNodes; ++node) {
    EXPECT_EQ(split.log[node], one.log[node]) << "node " << node;
  }
}

TEST(EventQueueTest, KeepOnlyDropsOtherOwnersEventsButTheyStillTakeTheirTies) {
  // A split run's process: nodes 0 and 2 here, node 1 elsewhere.
  const std::vector<uint8_t> local = {1, 0, 1};
  kernel::EventQueue q;
  q.KeepOnly(&local);
  std::vector<uint32_t> ran;
  for (kernel::EventQueue::Owner node : {0u, 1u, 2u}) {
    kernel::EventQueue::OwnerScope as_node(q, node);
    q.After(10, [&, node] { ran.push_back(node); });
  }
  // A hand-over to node 1 is dropped too; the global owner's work is kept.
  {
    kernel::EventQueue::OwnerScope as_node(q, 0);
    q.AtFor(1, 20, [&] { ran.push_back(100); });
  }
  q.At(30, [&] { ran.push_back(kernel::EventQueue::kGlobalOwner); });
  q.RunWhile([] { return true; });
  EXPECT_EQ(ran, (std::vector<uint32_t>{0, 2, kernel::EventQueue::kGlobalOwner}));
  EXPECT_EQ(q.events_run(), 3u);
  // Node 1 counted its dropped schedule and node 0 its dropped hand-over, as in one process.
  EXPECT_EQ(q.scheduled_by(1), 1u);
  EXPECT_EQ(q.scheduled_by(0), 2u);
}

TEST(EventQueueTest, RunningTieIsTheKeyOfTheRunningEvent) {
  kernel::EventQueue q;
  uint64_t seen = 0;
  {
    kernel::EventQueue::OwnerScope as_node(q, 3);
    q.After(5, [] {});
    q.After(5, [&] { seen = q.running_tie(); });
  }
  q.RunWhile([] { return true; });
  EXPECT_EQ(seen, (uint64_t{3} << kernel::EventQueue::kSeqBits) | 1);
}

TEST(EventQueueTest, APastTimeRunsNowNotBefore) {
  kernel::EventQueue q;
  uint64_t seen = 0;
  q.At(100, [&] { q.At(5, [&] { seen = q.now_ps(); }); });
  q.RunWhile([] { return true; });
  EXPECT_EQ(seen, 100u);
}

TEST(EventQueueTest, RecordScheduleLogsEachCallWithItsDueTimeUntilStopped) {
  kernel::EventQueue q;
  std::vector<kernel::EventQueue::Scheduled> log;
  q.At(40, [] {});  // before recording: not logged
  q.RecordSchedule(&log);
  q.At(100, [&] {
    q.After(25, [] {});
    q.At(7, [] {});  // in the past: due now, and logged so
    q.RecordSchedule(nullptr);
    q.After(1, [] {});
  });
  q.RunWhile([] { return true; });
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].made_ps, 0u);
  EXPECT_EQ(log[0].due_ps, 100u);
  EXPECT_EQ(log[1].made_ps, 100u);
  EXPECT_EQ(log[1].due_ps, 125u);
  EXPECT_EQ(log[2].made_ps, 100u);
  EXPECT_EQ(log[2].due_ps, 100u);
  EXPECT_EQ(q.events_run(), 5u);
}

TEST(EventQueueTest, SmallAndLargeCapturesRunOnceAndAreDestroyedOnce) {
  kernel::EventQueue q;
  auto token = std::make_shared<int>(7);
  std::array<uint64_t, 32> big{};  // 256 bytes: beyond the inline room, so on the heap
  big[31] = 99;
  uint64_t sum = 0;
  q.At(1, [token, &sum] { sum += static_cast<uint64_t>(*token); });
  q.At(2, [token, big, &sum] { sum += big[31] + static_cast<uint64_t>(*token); });
  EXPECT_EQ(token.use_count(), 3);
  q.RunWhile([] { return true; });
  EXPECT_EQ(sum, 7u + 99u + 7u);
  EXPECT_EQ(token.use_count(), 1);  // both captures gone once their events ran
}

TEST(EventQueueTest, MoveOnlyCapturesAreAccepted) {
  kernel::EventQueue q;
  auto owned = std::make_unique<int>(41);
  int got = 0;
  q.After(3, [p = std::move(owned), &got] { got = *p + 1; });
  q.RunWhile([] { return true; });
  EXPECT_EQ(got, 42);
}

TEST(EventQueueTest, AnActionSchedulingThousandsOfEventsKeepsItsOwnCapture) {
  // Growing the action storage while an action runs must not move the running action.
  kernel::EventQueue q;
  std::vector<int> ran;
  const std::string label = "the running action's own capture";
  std::string seen_after;
  q.At(1, [&, label] {
    for (int i = 0; i < 5000; ++i) q.At(2 + i, [&ran, i] { ran.push_back(i); });
    seen_after = label;
  });
  q.RunWhile([] { return true; });
  EXPECT_EQ(seen_after, label);
  ASSERT_EQ(ran.size(), 5000u);
  for (int i = 0; i < 5000; ++i) EXPECT_EQ(ran[static_cast<size_t>(i)], i);
}

TEST(EventQueueTest, SlotsAreReusedSoAStreamOfEventsDoesNotGrowMemory) {
  kernel::EventQueue q;
  uint64_t count = 0;
  // One event pending at a time, a million times: the same slot serves them all.
  std::function<void()> next = [&] {
    if (++count < 1'000'000) q.After(1, next);
  };
  q.After(1, next);
  q.RunWhile([] { return true; });
  EXPECT_EQ(count, 1'000'000u);
  EXPECT_EQ(q.now_ps(), 1'000'000u);
}

TEST(EventActionTest, MovingTransfersTheCallableAndEmptiesTheSource) {
  auto token = std::make_shared<int>(1);
  kernel::EventAction a([token] {});
  EXPECT_EQ(token.use_count(), 2);
  kernel::EventAction b(std::move(a));
  EXPECT_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): checked on purpose
  EXPECT_TRUE(static_cast<bool>(b));
  EXPECT_EQ(token.use_count(), 2);
  b.Reset();
  EXPECT_EQ(token.use_count(), 1);
}

TEST(EventActionTest, RunOnceRunsThenDestroysInlineAndHeapCaptures) {
  auto token = std::make_shared<int>(5);
  std::array<uint64_t, 32> big{};  // beyond the inline room: held on the heap
  big[0] = 10;
  int sum = 0;
  kernel::EventAction small([token, &sum] { sum += *token; });
  kernel::EventAction large([token, big, &sum] { sum += *token + static_cast<int>(big[0]); });
  EXPECT_EQ(token.use_count(), 3);
  small.RunOnce();
  EXPECT_EQ(sum, 5);
  EXPECT_EQ(token.use_count(), 2);  // the capture went with the run
  EXPECT_FALSE(static_cast<bool>(small));
  large.RunOnce();
  EXPECT_EQ(sum, 5 + 5 + 10);
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_FALSE(static_cast<bool>(large));
}

}  // namespace
}  // namespace nicsim::hw::func
