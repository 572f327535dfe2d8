// SPDX-License-Identifier: Apache-2.0
// Human-readable units for configuration values: durations, data rates and sizes.
// Parsers turn "4.3us", "12.5Gb/s", "64KiB" into exact canonical numbers; formatters go back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace nicsim {

/**
 * The longest duration a parameter (or a fault rule's reorder_delay) may hold: one hour,
 * 3.6e15 ps. A run adds durations (latencies, delays, overheads) to its simulated clock, a
 * uint64 count of picoseconds; with every term at most an hour, thousands of them add up
 * without overflowing it (2^64 ps is about 5124 hours).
 */
inline constexpr int64_t kMaxDurationPs = int64_t{3600} * 1'000'000'000'000;

/**
 * Parses a duration such as "750ps", "500ns", "4.3us", "1ms" or "2s" into picoseconds.
 * The number is decimal (optional fraction and exponent, no sign); the unit is required.
 * Errors: missing or unknown unit, negative value, a fraction of a picosecond, overflow.
 */
Result<int64_t> ParseDuration(std::string_view text);

/**
 * Parses a data rate such as "2GB/s", "100MB/s", "12.5Gb/s" or "1GiB/s" into bytes per second.
 * Upper-case B means bytes and lower-case b means bits; K/M/G/T are SI (powers of 1000) and
 * Ki/Mi/Gi/Ti binary (powers of 1024). The unit is required.
 */
Result<double> ParseRate(std::string_view text);

/**
 * Parses a size such as "128", "128B", "2KB", "64KiB" or "1MiB" into bytes.
 * A bare number means bytes; the result must be a whole number of bytes.
 */
Result<uint64_t> ParseSize(std::string_view text);

/** Formats picoseconds exactly in the largest fitting unit: 300000 -> "300ns", 4300000 -> "4.3us".
 */
std::string FormatDuration(int64_t ps);

/** Formats bytes per second with the shortest unit text that parses back exactly: "2GB/s". */
std::string FormatRate(double bytes_per_sec);

/** Formats bytes with the shortest exact unit: 65536 -> "64KiB", 2000 -> "2KB", 100 -> "100B". */
std::string FormatSize(uint64_t bytes);

}  // namespace nicsim
