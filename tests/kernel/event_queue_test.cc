// SPDX-License-Identifier: Apache-2.0
// The event queue and its in-place actions: time order with ties in schedule order, small
// and large captures (run once, destroyed once), move-only captures, and an action that
// schedules thousands of events while it runs; the schedule log benchmarks replay.
#include "kernel/event_queue.h"

#include <gtest/gtest.h>

#include <array>
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
