// SPDX-License-Identifier: Apache-2.0
// The shared lanes of a rank's channel (ulp/mpi/capi/shared_lanes.h): messages that fit are
// taken whole from their lane, one after another, a longer one goes over the socket behind a
// kOnSocketLength record, a lane that holds no whole message is refused, a quiet post rings nobody,
// and a reader that sleeps is always woken.
#include "ulp/mpi/capi/shared_lanes.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace nicsim::mpi::wire {
namespace {

std::vector<uint8_t> Bytes(size_t n, uint8_t first) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(first + i * 7);
  return v;
}

Header Of(Call call, const std::vector<uint8_t>& changes, const std::vector<uint8_t>& args,
          uint64_t compute_ns = 0) {
  return HeaderOf(call, changes.size(), args.size(), compute_ns);
}

TEST(SharedLanes, AMessageThatFitsIsTakenWholeWithItsWindowChangesFirst) {
  auto lanes = std::make_unique<Lanes>();
  const std::vector<uint8_t> changes = Bytes(40, 3), args = Bytes(1000, 9);
  int woken = 0;
  uint64_t at = 0;
  ASSERT_EQ(SendOverLane(lanes->calls, &at, -1, Of(Call::kSend, changes, args, 1234), changes, args,
                         false, [&] { ++woken; }),
            Sent::kInLane);
  EXPECT_EQ(woken, 0);  // the reader never said it sleeps
  EXPECT_EQ(at, 8u + sizeof(Header) + 8u + 40u + 1000u);
  ASSERT_TRUE(Moved(lanes->calls, 0));
  Header h;
  std::vector<uint8_t> got;
  uint64_t read_at = 0;
  ASSERT_EQ(TakeFromLane(lanes->calls, &read_at, &h, &got), Taken::kMessage);
  EXPECT_EQ(read_at, at);
  EXPECT_EQ(h.call, static_cast<uint32_t>(Call::kSend));
  EXPECT_EQ(h.flags, kWindowChanges);
  EXPECT_EQ(h.compute_ns, 1234u);
  EXPECT_EQ(h.bytes, 8u + 40u + 1000u);
  std::vector<uint8_t> want(8, 0);
  want[0] = 40;
  want.insert(want.end(), changes.begin(), changes.end());
  want.insert(want.end(), args.begin(), args.end());
  EXPECT_EQ(got, want);
}

TEST(SharedLanes, QuietPostsQueueBehindEachOtherAndRingNobodyUntilALoudOne) {
  auto lanes = std::make_unique<Lanes>();
  Lane& lane = lanes->calls;
  int woken = 0;
  uint64_t at = 0;
  ASSERT_TRUE(Asleep(lane, 0));
  for (uint8_t i = 0; i < 3; ++i) {
    const std::vector<uint8_t> args = Bytes(10 + i, i);
    ASSERT_EQ(SendOverLane(lane, &at, -1, Of(Call::kSend, {}, args), {}, args, /*quiet=*/true,
                           [&] { ++woken; }),
              Sent::kInLane);
  }
  EXPECT_EQ(woken, 0);
  const std::vector<uint8_t> last = Bytes(5, 200);
  SendOverLane(lane, &at, -1, Of(Call::kWtime, {}, last), {}, last, false, [&] { ++woken; });
  EXPECT_EQ(woken, 1);
  EXPECT_EQ(lane.posted.load(), 4u);
  uint64_t read_at = 0;
  Header h;
  std::vector<uint8_t> got;
  for (uint8_t i = 0; i < 3; ++i) {
    ASSERT_EQ(TakeFromLane(lane, &read_at, &h, &got), Taken::kMessage);
    EXPECT_EQ(h.call, static_cast<uint32_t>(Call::kSend));
    EXPECT_EQ(got, Bytes(10 + i, i));
  }
  ASSERT_EQ(TakeFromLane(lane, &read_at, &h, &got), Taken::kMessage);
  EXPECT_EQ(h.call, static_cast<uint32_t>(Call::kWtime));
  EXPECT_EQ(got, last);
  EXPECT_EQ(read_at, at);
}

TEST(SharedLanes, AMessageLongerThanItsRoomGoesOverTheSocketBehindAnOnSocketRecord) {
  auto lanes = std::make_unique<Lanes>();
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  // One that fits, then one that would have fitted an empty lane but not the room left.
  const std::vector<uint8_t> first = Bytes(kLaneBytes / 2, 1), second = Bytes(kLaneBytes / 2, 5);
  std::vector<uint8_t> got(sizeof(Header) + second.size());
  std::thread reader([&] { ReadFully(fds[1], got.data(), got.size()); });
  uint64_t at = 0;
  ASSERT_EQ(
      SendOverLane(lanes->calls, &at, fds[0], Of(Call::kSend, {}, first), {}, first, true, [] {}),
      Sent::kInLane);
  int woken = 0;
  ASSERT_EQ(SendOverLane(lanes->calls, &at, fds[0], Of(Call::kSend, {}, second), {}, second,
                         /*quiet=*/true, [&] { ++woken; }),
            Sent::kOnSocket);
  reader.join();
  EXPECT_EQ(lanes->calls.posted.load(), 2u);
  uint64_t read_at = 0;
  Header h;
  std::vector<uint8_t> taken;
  ASSERT_EQ(TakeFromLane(lanes->calls, &read_at, &h, &taken), Taken::kMessage);
  EXPECT_EQ(taken, first);
  EXPECT_EQ(TakeFromLane(lanes->calls, &read_at, &h, &taken), Taken::kOnSocket);
  EXPECT_EQ(read_at, at);
  std::memcpy(&h, got.data(), sizeof(h));
  EXPECT_EQ(h.bytes, second.size());
  EXPECT_TRUE(std::equal(second.begin(), second.end(), got.begin() + sizeof(Header)));
  close(fds[0]);
  close(fds[1]);
}

TEST(SharedLanes, ALaneThatHoldsNoWholeMessageIsRefused) {
  auto lanes = std::make_unique<Lanes>();
  Lane& lane = lanes->calls;
  Header h;
  std::vector<uint8_t> got;
  const auto take_with_length = [&](uint64_t length) {
    std::memcpy(lane.bytes, &length, sizeof(length));
    uint64_t at = 0;
    return TakeFromLane(lane, &at, &h, &got);
  };
  uint64_t at = 0;
  const std::vector<uint8_t> args = Bytes(16, 1);
  SendOverLane(lane, &at, -1, Of(Call::kWtime, {}, args), {}, args, false, [] {});
  EXPECT_EQ(take_with_length(sizeof(Header) + 16), Taken::kMessage);
  EXPECT_EQ(take_with_length(sizeof(Header) - 1), Taken::kMalformed);   // shorter than a header
  EXPECT_EQ(take_with_length(kLaneBytes), Taken::kMalformed);           // beyond the lane
  EXPECT_EQ(take_with_length(sizeof(Header) + 15), Taken::kMalformed);  // not the header's
  uint64_t beyond = kLaneBytes - 4;
  EXPECT_EQ(TakeFromLane(lane, &beyond, &h, &got), Taken::kMalformed);
}

TEST(SharedLanes, AReaderThatSaysItSleepsIsWokenAndOneThatSawTheMessageDoesNotSleep) {
  auto lanes = std::make_unique<Lanes>();
  Lane& lane = lanes->replies;
  int woken = 0;
  const std::vector<uint8_t> args = Bytes(4, 0);
  uint64_t at = 0;
  ASSERT_TRUE(Asleep(lane, 0));
  SendOverLane(lane, &at, -1, Of(Call::kReply, {}, args), {}, args, false, [&] { ++woken; });
  EXPECT_EQ(woken, 1);
  Awake(lane);
  // A message posted before the reader looks: it does not sleep, and says so.
  SendOverLane(lane, &at, -1, Of(Call::kReply, {}, args), {}, args, false, [&] { ++woken; });
  EXPECT_FALSE(Asleep(lane, 1));
  EXPECT_EQ(lane.asleep.load(), 0u);
  EXPECT_EQ(woken, 1);
}

// Two threads as a rank and nicsim: a quiet call and a loud one per turn, each message's bytes
// checked, and every wake-up delivered (a lost one hangs the test, which ctest's timeout fails).
TEST(SharedLanes, TenThousandTurnsOfTwoCallsAndAReplyWithEveryByteChecked) {
  auto lanes = std::make_unique<Lanes>();
  constexpr int kTurns = 10'000;
  const auto wait = [](Lane& lane, uint32_t seen, bool spin) {
    Spinner spinner(spin);
    if (spinner.Until([&] { return Moved(lane, seen); })) return;
    while (!Moved(lane, seen)) {
      if (!Asleep(lane, seen)) break;
      SleepOn(lane, seen);
      Awake(lane);
    }
  };
  int bad = 0;
  std::thread server([&] {
    uint32_t seen = 0;
    uint64_t at = 0;
    Header h;
    std::vector<uint8_t> args;
    for (int i = 0; i < kTurns; ++i) {
      for (int k = 0; k < 2; ++k) {
        wait(lanes->calls, seen, (i & 1) != 0);
        ++seen;
        if (TakeFromLane(lanes->calls, &at, &h, &args) != Taken::kMessage ||
            args != Bytes(1 + (i + k) % 300, static_cast<uint8_t>(i + k))) {
          ++bad;
        }
      }
      at = 0;
      const std::vector<uint8_t> reply = Bytes(1 + i % 200, static_cast<uint8_t>(i + 1));
      uint64_t reply_at = 0;
      SendOverLane(lanes->replies, &reply_at, -1, Of(Call::kReply, {}, reply), {}, reply, false,
                   [&] { WakeOn(lanes->replies); });
    }
  });
  uint32_t seen = 0;
  Header h;
  std::vector<uint8_t> reply;
  for (int i = 0; i < kTurns; ++i) {
    uint64_t at = 0;
    for (int k = 0; k < 2; ++k) {
      const std::vector<uint8_t> args = Bytes(1 + (i + k) % 300, static_cast<uint8_t>(i + k));
      SendOverLane(lanes->calls, &at, -1, Of(Call::kSend, {}, args), {}, args,
                   /*quiet=*/k == 0, [&] { WakeOn(lanes->calls); });
    }
    wait(lanes->replies, seen, (i % 3) == 0);
    ++seen;
    uint64_t reply_at = 0;
    if (TakeFromLane(lanes->replies, &reply_at, &h, &reply) != Taken::kMessage ||
        reply != Bytes(1 + i % 200, static_cast<uint8_t>(i + 1))) {
      ++bad;
    }
  }
  server.join();
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace nicsim::mpi::wire
