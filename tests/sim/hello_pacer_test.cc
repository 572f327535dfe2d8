// SPDX-License-Identifier: Apache-2.0
// The periodic HELLOs of `nicsim port`: every millisecond while there is something to tell,
// a keepalive otherwise, and fewer and fewer while the peer answers none.
#include "realport/port/hello_pacer.h"

#include <gtest/gtest.h>

#include <vector>

namespace nicsim::sim {
namespace {

using std::chrono::milliseconds;

/** The times (ms from the start) at which `pacer` gives a HELLO over `span` ms, polled each
 *  millisecond; `heard(t)` is the count of HELLOs the peer has sent by t. */
template <typename Heard>
std::vector<int> GivenAt(HelloPacer& pacer, bool reporting, int span, Heard heard) {
  const PortClock::time_point start{};
  std::vector<int> at;
  for (int t = 0; t <= span; ++t) {
    if (pacer.Due(start + milliseconds(t), reporting, heard(t))) at.push_back(t);
  }
  return at;
}

TEST(HelloPacerTest, AnUnansweredHelloDoublesThePeriodUpToItsCap) {
  HelloPacer pacer;
  EXPECT_EQ(GivenAt(pacer, /*reporting=*/true, 5000, [](int) { return 0; }),
            (std::vector<int>{0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 3647}));
}

TEST(HelloPacerTest, APeerThatAnswersGetsOneEveryMillisecondWhileThereIsSomethingToTell) {
  HelloPacer pacer;
  // The peer answers every HELLO (its count grows each millisecond).
  EXPECT_EQ(GivenAt(pacer, true, 5, [](int t) { return t; }), (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(HelloPacerTest, WithNothingToTellAKeepaliveGoesEveryFiftyMilliseconds) {
  HelloPacer pacer;
  EXPECT_EQ(GivenAt(pacer, /*reporting=*/false, 160, [](int t) { return t; }),
            (std::vector<int>{0, 50, 100, 150}));
}

TEST(HelloPacerTest, AnAnswerAfterASilenceBringsTheShortPeriodBack) {
  HelloPacer pacer;
  // Silent for 100 ms (HELLOs at 0, 1, 3, 7, 15, 31, 63), then the peer answers from 64 on.
  EXPECT_EQ(GivenAt(pacer, true, 130, [](int t) { return t < 64 ? 0 : t; }),
            (std::vector<int>{0, 1, 3, 7, 15, 31, 63, 127, 128, 129, 130}));
}

}  // namespace
}  // namespace nicsim::sim
