// SPDX-License-Identifier: Apache-2.0
// Tests for sim/config/units: every unit form, exact decimal conversion, bad units, overflow,
// and that formatted values parse back to the same number.
#include "base/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace nicsim {
namespace {

int64_t DurationOk(const char* text) {
  Result<int64_t> result = ParseDuration(text);
  EXPECT_TRUE(result.ok()) << text << ": " << result.status().message();
  return result.ok() ? result.value() : -1;
}

std::string DurationError(const char* text) {
  Result<int64_t> result = ParseDuration(text);
  EXPECT_FALSE(result.ok()) << text;
  return result.ok() ? "" : result.status().message();
}

double RateOk(const char* text) {
  Result<double> result = ParseRate(text);
  EXPECT_TRUE(result.ok()) << text << ": " << result.status().message();
  return result.ok() ? result.value() : -1;
}

std::string RateError(const char* text) {
  Result<double> result = ParseRate(text);
  EXPECT_FALSE(result.ok()) << text;
  return result.ok() ? "" : result.status().message();
}

uint64_t SizeOk(const char* text) {
  Result<uint64_t> result = ParseSize(text);
  EXPECT_TRUE(result.ok()) << text << ": " << result.status().message();
  return result.ok() ? result.value() : 0;
}

std::string SizeError(const char* text) {
  Result<uint64_t> result = ParseSize(text);
  EXPECT_FALSE(result.ok()) << text;
  return result.ok() ? "" : result.status().message();
}

TEST(UnitsTest, ParsesEveryDurationUnit) {
  EXPECT_EQ(DurationOk("750ps"), 750);
  EXPECT_EQ(DurationOk("500ns"), 500'000);
  EXPECT_EQ(DurationOk("4.3us"), 4'300'000);
  EXPECT_EQ(DurationOk("1ms"), 1'000'000'000);
  EXPECT_EQ(DurationOk("2s"), 2'000'000'000'000);
  EXPECT_EQ(DurationOk("0ns"), 0);
  EXPECT_EQ(DurationOk("1.5ns"), 1500);
  EXPECT_EQ(DurationOk(".5us"), 500'000);
  EXPECT_EQ(DurationOk("2.ns"), 2000);
  EXPECT_EQ(DurationOk("0.000001s"), 1'000'000);
  EXPECT_EQ(DurationOk("1e3ns"), 1'000'000);
  EXPECT_EQ(DurationOk("2.5e-3ms"), 2'500'000);
  EXPECT_EQ(DurationOk(" 300 ns "), 300'000);
  EXPECT_EQ(DurationOk("9223372036854775807ps"), std::numeric_limits<int64_t>::max());
}

TEST(UnitsTest, RejectsBadDurations) {
  EXPECT_EQ(DurationError("500"),
            "bad duration '500': missing unit (expected ps, ns, us, ms or s)");
  EXPECT_EQ(DurationError("5xs"),
            "bad duration '5xs': unknown unit 'xs' (expected ps, ns, us, ms or s)");
  EXPECT_EQ(DurationError("5NS"),
            "bad duration '5NS': unknown unit 'NS' (expected ps, ns, us, ms or s)");
  EXPECT_EQ(DurationError("ns"), "bad duration 'ns': expected a number");
  EXPECT_EQ(DurationError(""), "bad duration '': empty value");
  EXPECT_EQ(DurationError("-5ns"), "bad duration '-5ns': must not be negative");
  EXPECT_EQ(DurationError("0.5ps"), "bad duration '0.5ps': not a whole number of picoseconds");
  EXPECT_EQ(DurationError("1.2.3ns"),
            "bad duration '1.2.3ns': unknown unit '.3ns' (expected ps, ns, us, ms or s)");
}

TEST(UnitsTest, RejectsDurationOverflow) {
  EXPECT_EQ(DurationError("9223372036854775808ps"),
            "bad duration '9223372036854775808ps': too large");
  EXPECT_EQ(DurationError("10000000s"), "bad duration '10000000s': too large");
  EXPECT_EQ(DurationError("1e99999999999999s"), "bad duration '1e99999999999999s': too large");
  EXPECT_EQ(DurationError("1e-99999999999999s"),
            "bad duration '1e-99999999999999s': not a whole number of picoseconds");
  EXPECT_EQ(DurationOk("0e99999999999999s"), 0);
}

TEST(UnitsTest, ParsesEveryRateUnit) {
  EXPECT_EQ(RateOk("2GB/s"), 2e9);
  EXPECT_EQ(RateOk("100MB/s"), 100e6);
  EXPECT_EQ(RateOk("12.5Gb/s"), 12.5e9 / 8);
  EXPECT_EQ(RateOk("1GiB/s"), 1073741824.0);
  EXPECT_EQ(RateOk("3KB/s"), 3000.0);
  EXPECT_EQ(RateOk("3kB/s"), 3000.0);
  EXPECT_EQ(RateOk("2KiB/s"), 2048.0);
  EXPECT_EQ(RateOk("5MiB/s"), 5.0 * 1048576);
  EXPECT_EQ(RateOk("1TB/s"), 1e12);
  EXPECT_EQ(RateOk("1TiB/s"), 1099511627776.0);
  EXPECT_EQ(RateOk("800b/s"), 100.0);
  EXPECT_EQ(RateOk("8Mb/s"), 1e6);
  EXPECT_EQ(RateOk("17B/s"), 17.0);
  EXPECT_EQ(RateOk("4.3GB/s"), 4.3e9);
  EXPECT_EQ(RateOk("0B/s"), 0.0);
}

TEST(UnitsTest, RejectsBadRates) {
  const char* expected =
      "(expected B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s or TiB/s (b for bits))";
  EXPECT_EQ(RateError("2000"), std::string("bad rate '2000': missing unit ") + expected);
  EXPECT_EQ(RateError("2GB"), std::string("bad rate '2GB': unknown unit 'GB' ") + expected);
  EXPECT_EQ(RateError("2XB/s"), std::string("bad rate '2XB/s': unknown unit 'XB/s' ") + expected);
  EXPECT_EQ(RateError("2Gbps"), std::string("bad rate '2Gbps': unknown unit 'Gbps' ") + expected);
  EXPECT_EQ(RateError("2iB/s"), std::string("bad rate '2iB/s': unknown unit 'iB/s' ") + expected);
  EXPECT_EQ(RateError("-1GB/s"), "bad rate '-1GB/s': must not be negative");
  EXPECT_EQ(RateError("1e400GB/s"), "bad rate '1e400GB/s': out of range");
}

TEST(UnitsTest, ParsesEverySizeUnit) {
  EXPECT_EQ(SizeOk("128"), 128u);
  EXPECT_EQ(SizeOk("128B"), 128u);
  EXPECT_EQ(SizeOk("2KB"), 2000u);
  EXPECT_EQ(SizeOk("2kB"), 2000u);
  EXPECT_EQ(SizeOk("64KiB"), 65536u);
  EXPECT_EQ(SizeOk("1MiB"), 1048576u);
  EXPECT_EQ(SizeOk("1.5KiB"), 1536u);
  EXPECT_EQ(SizeOk("0.0009765625KiB"), 1u);
  EXPECT_EQ(SizeOk("0.5MiB"), 524288u);
  EXPECT_EQ(SizeOk("3MB"), 3000000u);
  EXPECT_EQ(SizeOk("2GiB"), uint64_t{2} << 30);
  EXPECT_EQ(SizeOk("1TB"), 1000000000000u);
  EXPECT_EQ(SizeOk("1TiB"), uint64_t{1} << 40);
  EXPECT_EQ(SizeOk("18446744073709551615"), std::numeric_limits<uint64_t>::max());
}

TEST(UnitsTest, RejectsBadSizes) {
  const char* expected = "(expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)";
  EXPECT_EQ(SizeError("64Kb"), std::string("bad size '64Kb': unknown unit 'Kb' ") + expected);
  EXPECT_EQ(SizeError("64K"), std::string("bad size '64K': unknown unit 'K' ") + expected);
  EXPECT_EQ(SizeError("1.5B"), "bad size '1.5B': not a whole number of bytes");
  EXPECT_EQ(SizeError("0.3KiB"), "bad size '0.3KiB': not a whole number of bytes");
  EXPECT_EQ(SizeError("1.00000000000000000000001KB"),
            "bad size '1.00000000000000000000001KB': not a whole number of bytes");
  EXPECT_EQ(SizeError("-1"), "bad size '-1': must not be negative");
  EXPECT_EQ(SizeError("KiB"), "bad size 'KiB': expected a number");
  EXPECT_EQ(SizeError("18446744073709551616"), "bad size '18446744073709551616': too large");
  EXPECT_EQ(SizeError("16777216TiB"), "bad size '16777216TiB': too large");
}

TEST(UnitsTest, FormatsDurationsInTheLargestExactUnit) {
  EXPECT_EQ(FormatDuration(0), "0ns");
  EXPECT_EQ(FormatDuration(750), "750ps");
  EXPECT_EQ(FormatDuration(300'000), "300ns");
  EXPECT_EQ(FormatDuration(1500), "1.5ns");
  EXPECT_EQ(FormatDuration(2'000'000), "2us");
  EXPECT_EQ(FormatDuration(4'300'000), "4.3us");
  EXPECT_EQ(FormatDuration(1'000'000'000), "1ms");
  EXPECT_EQ(FormatDuration(2'000'000'000'000), "2s");
  EXPECT_EQ(FormatDuration(1'000'001), "1.000001us");
  EXPECT_EQ(FormatDuration(-5000), "-5ns");
  EXPECT_EQ(FormatDuration(std::numeric_limits<int64_t>::max()), "9223372.036854775807s");
}

TEST(UnitsTest, FormatsRatesWithTheShortestExactUnit) {
  EXPECT_EQ(FormatRate(2e9), "2GB/s");
  EXPECT_EQ(FormatRate(4e9), "4GB/s");
  EXPECT_EQ(FormatRate(1073741824.0), "1GiB/s");
  EXPECT_EQ(FormatRate(12.5e9 / 8), "1.5625GB/s");
  EXPECT_EQ(FormatRate(100e6), "100MB/s");
  EXPECT_EQ(FormatRate(17.0), "17B/s");
  EXPECT_EQ(FormatRate(0.0), "0B/s");
  EXPECT_EQ(FormatRate(2048.0), "2KiB/s");
}

TEST(UnitsTest, FormatsSizesWithTheShortestExactUnit) {
  EXPECT_EQ(FormatSize(0), "0B");
  EXPECT_EQ(FormatSize(100), "100B");
  EXPECT_EQ(FormatSize(65536), "64KiB");
  EXPECT_EQ(FormatSize(2000), "2KB");
  EXPECT_EQ(FormatSize(1048576), "1MiB");
  EXPECT_EQ(FormatSize(1536), "1536B");
}

TEST(UnitsTest, FormattedValuesParseBackExactly) {
  for (int64_t ps : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1234567}, int64_t{300'000},
                     int64_t{86'400'000'000'000'000}, std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(DurationOk(FormatDuration(ps).c_str()), ps) << FormatDuration(ps);
  }
  for (double rate : {1.0, 0.1, 2e9, 1.5625e9, 1073741824.0, 3.14159e12, 123456789.123, 1e300}) {
    EXPECT_EQ(RateOk(FormatRate(rate).c_str()), rate) << FormatRate(rate);
  }
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{1024}, uint64_t{1000},
                         uint64_t{123456789}, std::numeric_limits<uint64_t>::max()}) {
    EXPECT_EQ(SizeOk(FormatSize(bytes).c_str()), bytes) << FormatSize(bytes);
  }
}

}  // namespace
}  // namespace nicsim
