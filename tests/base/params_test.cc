// SPDX-License-Identifier: Apache-2.0
// ParamDecls: defaults come from the struct, values land in its members, nested components'
// declarations read into their member, and a reader's errors name the parameter.
#include "base/params.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace nicsim {
namespace {

enum class Mode { kA, kB };

struct Inner {
  uint32_t depth = 3;
};

struct Toy {
  uint32_t count = 7;
  uint64_t latency_ps = 300'000;
  double ps_per_byte = 500.0;
  bool on = true;
  std::array<uint32_t, 2> cycles = {1, 2};
  std::vector<int64_t> sizes = {0, 16};
  Mode mode = Mode::kB;
  std::string name = "x";
  uint64_t buffer = 65536;
  double loss = 0.25;
  /** The parent's default for its component wins over the component's own. */
  Inner inner = Inner{9};
};

const ParamDecls<Inner>& InnerParams() {
  static const auto* decls =
      &(new ParamDecls<Inner>())->Int("inner.depth", &Inner::depth, 0, 100, "Depth");
  return *decls;
}

const ParamDecls<Toy>& ToyParams() {
  static const auto* decls =
      &(new ParamDecls<Toy>())
           ->Int("toy.count", &Toy::count, 1, 64, "Count")
           .Duration("toy.latency", &Toy::latency_ps, "Latency")
           .RatePsPerByte("toy.bandwidth", &Toy::ps_per_byte, "Bandwidth")
           .Bool("toy.on", &Toy::on, "On")
           .IntList("toy.cycles", &Toy::cycles, 0, 1000, "Cycles", "toy state")
           .IntList("toy.sizes", &Toy::sizes, 0, 65535, "Sizes")
           .Enum("toy.mode", &Toy::mode, {{Mode::kA, "a"}, {Mode::kB, "b"}}, "Mode")
           .String("toy.name", &Toy::name, "Name")
           .Size("toy.buffer", &Toy::buffer, "Buffer")
           .Probability("toy.loss", &Toy::loss, "Loss")
           .RunDefault("0.5")
           .Include(&Toy::inner, InnerParams());
  return *decls;
}

/** Values by name, as a run's checked values would give them. */
class FakeSource : public ParamSource {
 public:
  std::map<std::string, int64_t, std::less<>> ints;
  std::map<std::string, double, std::less<>> doubles;
  std::map<std::string, std::string, std::less<>> strings;
  std::map<std::string, std::vector<int64_t>, std::less<>> lists;

  int64_t Int(std::string_view n) const override { return ints.find(n)->second; }
  double Probability(std::string_view n) const override { return doubles.find(n)->second; }
  bool Bool(std::string_view n) const override { return ints.find(n)->second != 0; }
  const std::string& String(std::string_view n) const override { return strings.find(n)->second; }
  int64_t DurationPs(std::string_view n) const override { return ints.find(n)->second; }
  double RateBytesPerSec(std::string_view n) const override { return doubles.find(n)->second; }
  uint64_t SizeBytes(std::string_view n) const override {
    return static_cast<uint64_t>(ints.find(n)->second);
  }
  const std::vector<int64_t>& IntList(std::string_view n) const override {
    return lists.find(n)->second;
  }
};

FakeSource Values() {
  FakeSource s;
  s.ints = {{"toy.count", 12},
            {"toy.latency", 4'300'000},
            {"toy.on", 0},
            {"toy.buffer", 2000},
            {"inner.depth", 42}};
  s.doubles = {{"toy.bandwidth", 4e9}, {"toy.loss", 0.125}};
  s.strings = {{"toy.mode", "a"}, {"toy.name", "y"}};
  s.lists = {{"toy.cycles", {5, 6}}, {"toy.sizes", {1, 2, 3}}};
  return s;
}

TEST(ParamDeclsTest, DefaultsAreTheStructsMembersAsAUserWritesThem) {
  std::vector<std::string> names;
  std::vector<std::string> defaults;
  for (const ParamSpec& spec : ToyParams().Specs()) {
    names.push_back(spec.name);
    defaults.push_back(spec.default_value);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"toy.count", "toy.latency", "toy.bandwidth", "toy.on",
                                             "toy.cycles", "toy.sizes", "toy.mode", "toy.name",
                                             "toy.buffer", "toy.loss", "inner.depth"}));
  EXPECT_EQ(defaults, (std::vector<std::string>{"7", "300ns", "2GB/s", "true", "[1, 2]", "[0, 16]",
                                                "b", "x", "64KiB", "0.5", "9"}));
}

TEST(ParamDeclsTest, SpecsCarryTypeRangeAndChoices) {
  const std::vector<ParamSpec> specs = ToyParams().Specs();
  EXPECT_EQ(specs[0].type, ParamType::kInt);
  EXPECT_EQ(specs[0].min, 1);
  EXPECT_EQ(specs[0].max, 64);
  EXPECT_EQ(specs[1].type, ParamType::kDuration);
  EXPECT_EQ(specs[1].max, kMaxDurationPs);
  EXPECT_EQ(specs[6].type, ParamType::kEnum);
  EXPECT_EQ(specs[6].choices, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(specs[8].type, ParamType::kSize);
  EXPECT_EQ(specs[8].min, 0);
}

TEST(ParamDeclsTest, ReadFillsEveryMemberInItsOwnUnit) {
  Toy toy;
  ASSERT_TRUE(ToyParams().Read(Values(), &toy).ok());
  EXPECT_EQ(toy.count, 12u);
  EXPECT_EQ(toy.latency_ps, 4'300'000u);
  EXPECT_DOUBLE_EQ(toy.ps_per_byte, 250.0);
  EXPECT_FALSE(toy.on);
  EXPECT_EQ(toy.cycles, (std::array<uint32_t, 2>{5, 6}));
  EXPECT_EQ(toy.sizes, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(toy.mode, Mode::kA);
  EXPECT_EQ(toy.name, "y");
  EXPECT_EQ(toy.buffer, 2000u);
  EXPECT_DOUBLE_EQ(toy.loss, 0.125);
  EXPECT_EQ(toy.inner.depth, 42u);
}

TEST(ParamDeclsTest, AFixedLengthListOfAnotherLengthIsAnErrorNamingTheParameter) {
  FakeSource s = Values();
  s.lists["toy.cycles"] = {1, 2, 3};
  Toy toy;
  const Status st = ToyParams().Read(s, &toy);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "toy.cycles: needs 2 entries (one per toy state), got 3");
}

TEST(ParamDeclsTest, ReadSkipsWhatTheCallerDoesNotWant) {
  Toy toy;
  ASSERT_TRUE(ToyParams()
                  .Read(Values(), &toy, [](std::string_view name) { return name != "toy.count"; })
                  .ok());
  EXPECT_EQ(toy.count, 7u);
  EXPECT_EQ(toy.name, "y");
}

}  // namespace
}  // namespace nicsim
