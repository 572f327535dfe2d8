// SPDX-License-Identifier: Apache-2.0
// The shared lanes of a rank's channel (ulp/mpi/capi/shared_lanes.h): a message that fits is
// taken whole from its lane, a longer one goes over the socket behind a kOnSocket post, a lane
// that holds no whole message is refused, and a reader that sleeps is always woken.
#include "ulp/mpi/capi/shared_lanes.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

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

TEST(SharedLanes, AMessageThatFitsIsTakenWholeWithItsWindowChangesFirst) {
  auto lanes = std::make_unique<Lanes>();
  const std::vector<uint8_t> changes = Bytes(40, 3), args = Bytes(1000, 9);
  int woken = 0;
  ASSERT_TRUE(SendOverLane(lanes->calls, -1, Call::kSend, changes, args, 1234, [&] { ++woken; }));
  EXPECT_EQ(woken, 0);  // the reader never said it sleeps
  ASSERT_TRUE(Moved(lanes->calls, 0));
  Header h;
  std::vector<uint8_t> got;
  ASSERT_TRUE(TakeFromLane(lanes->calls, &h, &got));
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

TEST(SharedLanes, AMessageLongerThanItsLaneGoesOverTheSocketBehindAnOnSocketPost) {
  auto lanes = std::make_unique<Lanes>();
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const std::vector<uint8_t> args = Bytes(kLaneBytes, 5);  // with its header: one lane and more
  std::vector<uint8_t> got(sizeof(Header) + args.size());
  std::thread reader([&] { ReadFully(fds[1], got.data(), got.size()); });
  ASSERT_TRUE(SendOverLane(lanes->replies, fds[0], Call::kReply, {}, args, 0, [] {}));
  reader.join();
  EXPECT_EQ(lanes->replies.length, kOnSocket);
  EXPECT_EQ(lanes->replies.posted.load(), 1u);
  Header h;
  std::memcpy(&h, got.data(), sizeof(h));
  EXPECT_EQ(h.call, static_cast<uint32_t>(Call::kReply));
  EXPECT_EQ(h.bytes, args.size());
  EXPECT_TRUE(std::equal(args.begin(), args.end(), got.begin() + sizeof(Header)));
  close(fds[0]);
  close(fds[1]);
}

TEST(SharedLanes, ALaneThatHoldsNoWholeMessageIsRefused) {
  auto lanes = std::make_unique<Lanes>();
  Lane& lane = lanes->calls;
  Header h;
  std::vector<uint8_t> got;
  ASSERT_TRUE(SendOverLane(lane, -1, Call::kWtime, {}, Bytes(16, 1), 0, [] {}));
  ASSERT_TRUE(TakeFromLane(lane, &h, &got));
  lane.length = sizeof(Header) - 1;  // shorter than a header
  EXPECT_FALSE(TakeFromLane(lane, &h, &got));
  lane.length = kLaneBytes + 1;  // longer than the lane
  EXPECT_FALSE(TakeFromLane(lane, &h, &got));
  lane.length = sizeof(Header) + 15;  // other than the header says
  EXPECT_FALSE(TakeFromLane(lane, &h, &got));
  lane.length = kOnSocket;
  EXPECT_FALSE(TakeFromLane(lane, &h, &got));
}

TEST(SharedLanes, AReaderThatSaysItSleepsIsWokenAndOneThatSawTheMessageDoesNotSleep) {
  auto lanes = std::make_unique<Lanes>();
  Lane& lane = lanes->replies;
  int woken = 0;
  ASSERT_TRUE(Asleep(lane, 0));
  ASSERT_TRUE(SendOverLane(lane, -1, Call::kReply, {}, Bytes(4, 0), 0, [&] { ++woken; }));
  EXPECT_EQ(woken, 1);
  Awake(lane);
  // A message posted before the reader looks: it does not sleep, and says so.
  ASSERT_TRUE(SendOverLane(lane, -1, Call::kReply, {}, Bytes(4, 0), 0, [&] { ++woken; }));
  EXPECT_FALSE(Asleep(lane, 1));
  EXPECT_EQ(lane.asleep.load(), 0u);
  EXPECT_EQ(woken, 1);
}

// Two threads in strict alternation, as a rank and nicsim: each message's bytes checked, and
// every wake-up delivered (a lost one hangs the test, which ctest's timeout fails).
TEST(SharedLanes, TenThousandCallsAndRepliesAlternateWithEveryByteChecked) {
  auto lanes = std::make_unique<Lanes>();
  constexpr int kCalls = 10'000;
  const auto wait = [](Lane& lane, uint32_t& seen, bool spin) {
    Spinner spinner(spin);
    if (!spinner.Until([&] { return Moved(lane, seen); })) {
      while (!Moved(lane, seen)) {
        if (!Asleep(lane, seen)) break;
        SleepOn(lane, seen);
        Awake(lane);
      }
    }
    seen = lane.posted.load();
  };
  int bad = 0;
  std::thread server([&] {
    uint32_t seen = 0;
    Header h;
    std::vector<uint8_t> args;
    for (int i = 0; i < kCalls; ++i) {
      wait(lanes->calls, seen, /*spin=*/(i & 1) != 0);
      if (!TakeFromLane(lanes->calls, &h, &args) || args != Bytes(1 + i % 300, uint8_t(i))) ++bad;
      SendOverLane(lanes->replies, -1, Call::kReply, {}, Bytes(1 + i % 200, uint8_t(i + 1)), 0,
                   [&] { WakeOn(lanes->replies); });
    }
  });
  uint32_t seen = 0;
  Header h;
  std::vector<uint8_t> reply;
  for (int i = 0; i < kCalls; ++i) {
    SendOverLane(lanes->calls, -1, Call::kSend, {}, Bytes(1 + i % 300, uint8_t(i)), 0,
                 [&] { WakeOn(lanes->calls); });
    wait(lanes->replies, seen, /*spin=*/(i % 3) == 0);
    if (!TakeFromLane(lanes->replies, &h, &reply) || reply != Bytes(1 + i % 200, uint8_t(i + 1))) {
      ++bad;
    }
  }
  server.join();
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace nicsim::mpi::wire
