// SPDX-License-Identifier: Apache-2.0
// --trace-window, --trace-adapters and --sample: what each value selects, exactly, and the
// messages of bad values, each naming its flag.
#include "sim/observe/trace_selection.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nicsim::sim {
namespace {

/** The adapter ids below `limit` that `s` keeps. */
std::vector<uint32_t> Kept(const TraceSelection& s, uint32_t limit = 100) {
  std::vector<uint32_t> ids;
  for (uint32_t id = 0; id < limit; ++id) {
    if (s.KeepsAdapter(static_cast<uint16_t>(id))) ids.push_back(id);
  }
  return ids;
}

TraceSelection Parse(const std::string& window, const std::string& adapters,
                     const std::string& sample) {
  Result<TraceSelection> s = TraceSelection::Parse(window, adapters, sample);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : TraceSelection{};
}

std::string Error(const std::string& window, const std::string& adapters,
                  const std::string& sample) {
  Result<TraceSelection> s = TraceSelection::Parse(window, adapters, sample);
  EXPECT_FALSE(s.ok());
  return s.ok() ? "" : s.status().message();
}

TEST(TraceSelectionTest, NoFlagsKeepEverything) {
  const TraceSelection s = Parse("", "", "");
  EXPECT_TRUE(s.whole_run());
  EXPECT_TRUE(s.KeepsTime(0));
  EXPECT_TRUE(s.KeepsTime(UINT64_MAX - 1));
  EXPECT_EQ(Kept(s).size(), 100u);
  EXPECT_TRUE(s.KeepsAdapter(65535));
  EXPECT_EQ(s.max_listed_adapter(), -1);
}

TEST(TraceSelectionTest, WindowIsHalfOpenInPicoseconds) {
  const TraceSelection s = Parse("10us:2.5ms", "", "");
  EXPECT_EQ(s.start_ps(), 10'000'000u);
  EXPECT_EQ(s.end_ps(), 2'500'000'000u);
  EXPECT_FALSE(s.KeepsTime(9'999'999));
  EXPECT_TRUE(s.KeepsTime(10'000'000));
  EXPECT_TRUE(s.KeepsTime(2'499'999'999));
  EXPECT_FALSE(s.KeepsTime(2'500'000'000));
  EXPECT_FALSE(s.whole_run());
  // Either side may be left open.
  EXPECT_EQ(Parse(":1ms", "", "").start_ps(), 0u);
  EXPECT_EQ(Parse(":1ms", "", "").end_ps(), 1'000'000'000u);
  EXPECT_EQ(Parse("1ms:", "", "").end_ps(), TraceSelection::kNoEndPs);
}

TEST(TraceSelectionTest, AdapterListTakesIdsAndRanges) {
  const TraceSelection s = Parse("", "0,3,10-20", "");
  std::vector<uint32_t> expected = {0, 3};
  for (uint32_t id = 10; id <= 20; ++id) expected.push_back(id);
  EXPECT_EQ(Kept(s), expected);
  EXPECT_EQ(s.max_listed_adapter(), 20);
  EXPECT_TRUE(s.whole_run());
}

TEST(TraceSelectionTest, SampleKeepsEveryNthOfTheSelectedAdapters) {
  EXPECT_EQ(Kept(Parse("", "", "25")), (std::vector<uint32_t>{0, 25, 50, 75}));
  EXPECT_EQ(Kept(Parse("", "5-50", "10")), (std::vector<uint32_t>{5, 15, 25, 35, 45}));
  EXPECT_EQ(Kept(Parse("", "1,2,3,7,9", "2")), (std::vector<uint32_t>{1, 3, 9}));
  EXPECT_EQ(Kept(Parse("", "", "1")).size(), 100u);
  // 1,024 adapters, every 100th: 11 of them.
  EXPECT_EQ(Kept(Parse("", "0-1023", "100"), 2000).size(), 11u);
}

TEST(TraceSelectionTest, BadValuesNameTheirFlag) {
  EXPECT_EQ(Error("5us", "", ""), "--trace-window: '5us': expected START:END (like 10us:2ms)");
  EXPECT_EQ(Error("1:2:3", "", ""), "--trace-window: '1:2:3': expected START:END (like 10us:2ms)");
  EXPECT_EQ(Error("5us:2us", "", ""), "--trace-window: '5us:2us': END must be after START");
  EXPECT_EQ(Error("5us:5us", "", ""), "--trace-window: '5us:5us': END must be after START");
  EXPECT_EQ(Error("5parsec:", "", "").rfind("--trace-window: START '5parsec': ", 0), 0u);
  EXPECT_EQ(Error(":-1us", "", "").rfind("--trace-window: END '-1us': ", 0), 0u);
  const std::string adapters_hint =
      "': expected an adapter id or a range FIRST-LAST (ids 0 to 65535), as in 0,3,10-20";
  EXPECT_EQ(Error("", "3-1", ""), "--trace-adapters: '3-1" + adapters_hint);
  EXPECT_EQ(Error("", "1,,2", ""), "--trace-adapters: '" + adapters_hint);
  EXPECT_EQ(Error("", "x", ""), "--trace-adapters: 'x" + adapters_hint);
  EXPECT_EQ(Error("", "65536", ""), "--trace-adapters: '65536" + adapters_hint);
  EXPECT_EQ(Error("", "-3", ""), "--trace-adapters: '-3" + adapters_hint);
  const std::string sample_hint = "': expected a whole number from 1 to 65536 (every Nth adapter)";
  EXPECT_EQ(Error("", "", "0"), "--sample: '0" + sample_hint);
  EXPECT_EQ(Error("", "", "two"), "--sample: 'two" + sample_hint);
  EXPECT_EQ(Error("", "", "-2"), "--sample: '-2" + sample_hint);
}

}  // namespace
}  // namespace nicsim::sim
