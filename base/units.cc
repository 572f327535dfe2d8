// SPDX-License-Identifier: Apache-2.0
// Unit parsing and formatting: exact decimal arithmetic so "4.3us" is exactly 4300000ps and
// every formatted value parses back to the same number.
#include "base/units.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "base/text.h"

namespace nicsim {
namespace {

/** Cap on a parsed exponent's magnitude: far beyond any representable value, never overflows. */
constexpr int64_t kMaxExponent = 100000;

/** A non-negative decimal number: value = digits * 10^exp10, digits without leading zeros. */
struct Decimal {
  std::string digits;  // empty means zero
  int64_t exp10 = 0;
};

/** A number and its unit suffix, as split from the input text. */
struct NumberAndUnit {
  Decimal number;
  std::string_view unit;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/**
 * Splits "<decimal>[e[+-]<digits>] <unit>" into an exact Decimal and the unit text.
 * Returns the reason on failure (the caller adds which kind of value it was).
 */
std::optional<std::string> SplitNumber(std::string_view text, NumberAndUnit* out) {
  text = Trim(text);
  if (text.empty()) return std::string("empty value");
  if (text.front() == '-') return std::string("must not be negative");
  size_t pos = 0;
  std::string int_digits;
  std::string frac_digits;
  while (pos < text.size() && IsDigit(text[pos])) int_digits.push_back(text[pos++]);
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && IsDigit(text[pos])) frac_digits.push_back(text[pos++]);
  }
  if (int_digits.empty() && frac_digits.empty()) return std::string("expected a number");
  int64_t exponent = 0;
  // An exponent needs at least one digit after 'e' and the optional sign; otherwise the 'e'
  // belongs to the unit (and is reported as an unknown unit).
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    size_t p = pos + 1;
    bool negative = false;
    if (p < text.size() && (text[p] == '+' || text[p] == '-')) negative = text[p++] == '-';
    if (p < text.size() && IsDigit(text[p])) {
      while (p < text.size() && IsDigit(text[p])) {
        if (exponent < kMaxExponent) exponent = exponent * 10 + (text[p] - '0');
        ++p;
      }
      if (negative) exponent = -exponent;
      pos = p;
    }
  }
  Decimal number;
  number.digits = int_digits + frac_digits;
  number.exp10 = exponent - static_cast<int64_t>(frac_digits.size());
  size_t first = number.digits.find_first_not_of('0');
  if (first == std::string::npos) {
    number.digits.clear();
    number.exp10 = 0;
  } else {
    number.digits.erase(0, first);
    while (number.digits.back() == '0') {  // normalise: no trailing zeros
      number.digits.pop_back();
      ++number.exp10;
    }
  }
  out->number = std::move(number);
  out->unit = Trim(text.substr(pos));
  return std::nullopt;
}

/** Why an exact integer conversion failed. */
enum class IntError { kNone, kNotWhole, kOverflow };

/** Computes number * 10^exp10 * multiplier exactly, or reports why it cannot. */
IntError ToUint64(const Decimal& number, int64_t exp10, uint64_t multiplier, uint64_t* out) {
  *out = 0;
  if (number.digits.empty()) return IntError::kNone;
  int64_t e = number.exp10 + exp10;
  if (e + static_cast<int64_t>(number.digits.size()) > 21) return IntError::kOverflow;
  uint64_t value = 0;
  for (char c : number.digits) {
    if (__builtin_mul_overflow(value, uint64_t{10}, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(c - '0'), &value)) {
      // More than 20 significant digits but a small whole part: the fraction cannot cancel.
      return e < 0 && e + static_cast<int64_t>(number.digits.size()) <= 20 ? IntError::kNotWhole
                                                                           : IntError::kOverflow;
    }
  }
  for (int64_t i = 0; i < e; ++i) {
    if (__builtin_mul_overflow(value, uint64_t{10}, &value)) return IntError::kOverflow;
  }
  // Multiply before dividing so binary units take fractions: "1.5KiB" is 15 * 1024 / 10.
  if (__builtin_mul_overflow(value, multiplier, &value)) return IntError::kOverflow;
  if (e < 0) {
    // value < 2^64 < 10^20, so dividing by 10^20 or more cannot leave a non-zero whole number.
    if (e < -19) return IntError::kNotWhole;
    uint64_t divisor = 1;
    for (int64_t i = 0; i < -e; ++i) divisor *= 10;
    if (value % divisor != 0) return IntError::kNotWhole;
    value /= divisor;
  }
  *out = value;
  return IntError::kNone;
}

/** Correctly rounded number * 10^exp10 as a double; nullopt when out of range. */
std::optional<double> ToDouble(const Decimal& number, int64_t exp10) {
  if (number.digits.empty()) return 0.0;
  std::string text = number.digits + "e" + std::to_string(number.exp10 + exp10);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

/** A size prefix: "K" is 10^3, "Ki" is 2^10. */
struct Prefix {
  std::string_view text;
  int64_t exp10;
  uint64_t multiplier;
};

constexpr std::array<Prefix, 10> kPrefixes = {{
    {"", 0, 1},
    {"K", 3, 1},
    {"k", 3, 1},
    {"M", 6, 1},
    {"G", 9, 1},
    {"T", 12, 1},
    {"Ki", 0, uint64_t{1} << 10},
    {"Mi", 0, uint64_t{1} << 20},
    {"Gi", 0, uint64_t{1} << 30},
    {"Ti", 0, uint64_t{1} << 40},
}};

/** Looks up the prefix of a size unit ("KiB" with letter 'B' -> Ki); nullopt when unknown. */
std::optional<Prefix> FindPrefix(std::string_view unit, char letter) {
  if (unit.empty() || unit.back() != letter) return std::nullopt;
  unit.remove_suffix(1);
  for (const Prefix& prefix : kPrefixes) {
    if (prefix.text == unit) return prefix;
  }
  return std::nullopt;
}

constexpr char kDurationUnits[] = "ps, ns, us, ms or s";
constexpr char kRateUnits[] =
    "B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s or TiB/s (b for bits)";
constexpr char kSizeUnits[] = "B, KB, MB, GB, TB, KiB, MiB, GiB or TiB";

Status BadValue(std::string_view kind, std::string_view text, std::string_view reason) {
  return Status::Error(fmt::format("bad {} '{}': {}", kind, Printable(text), reason));
}

Status UnitError(std::string_view kind, std::string_view text, std::string_view unit,
                 std::string_view expected) {
  if (unit.empty())
    return BadValue(kind, text, fmt::format("missing unit (expected {})", expected));
  return BadValue(kind, text,
                  fmt::format("unknown unit '{}' (expected {})", Printable(unit), expected));
}

}  // namespace

Result<int64_t> ParseDuration(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, int64_t>, 5> kUnits = {
      {{"ps", 0}, {"ns", 3}, {"us", 6}, {"ms", 9}, {"s", 12}}};
  NumberAndUnit parsed;
  if (auto reason = SplitNumber(text, &parsed)) return BadValue("duration", text, *reason);
  for (const auto& [unit, exp10] : kUnits) {
    if (unit != parsed.unit) continue;
    uint64_t ps = 0;
    switch (ToUint64(parsed.number, exp10, 1, &ps)) {
      case IntError::kNotWhole:
        return BadValue("duration", text, "not a whole number of picoseconds");
      case IntError::kOverflow:
        return BadValue("duration", text, "too large");
      case IntError::kNone:
        break;
    }
    if (ps > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return BadValue("duration", text, "too large");
    }
    return static_cast<int64_t>(ps);
  }
  return UnitError("duration", text, parsed.unit, kDurationUnits);
}

Result<double> ParseRate(std::string_view text) {
  NumberAndUnit parsed;
  if (auto reason = SplitNumber(text, &parsed)) return BadValue("rate", text, *reason);
  std::string_view unit = parsed.unit;
  constexpr std::string_view kPerSecond = "/s";
  if (unit.size() > kPerSecond.size() &&
      unit.substr(unit.size() - kPerSecond.size()) == kPerSecond) {
    std::string_view size_unit = unit.substr(0, unit.size() - kPerSecond.size());
    std::optional<Prefix> prefix = FindPrefix(size_unit, 'B');
    bool bits = false;
    if (!prefix) {
      prefix = FindPrefix(size_unit, 'b');
      bits = true;
    }
    if (prefix) {
      std::optional<double> value = ToDouble(parsed.number, prefix->exp10);
      if (!value) return BadValue("rate", text, "out of range");
      // Binary multipliers and the bits-to-bytes divisor are powers of two: exact in a double.
      double bytes_per_sec = *value * static_cast<double>(prefix->multiplier) / (bits ? 8.0 : 1.0);
      if (!std::isfinite(bytes_per_sec)) return BadValue("rate", text, "out of range");
      return bytes_per_sec;
    }
  }
  return UnitError("rate", text, unit, kRateUnits);
}

Result<uint64_t> ParseSize(std::string_view text) {
  NumberAndUnit parsed;
  if (auto reason = SplitNumber(text, &parsed)) return BadValue("size", text, *reason);
  std::optional<Prefix> prefix;
  if (parsed.unit.empty()) {
    prefix = kPrefixes[0];  // a bare number is bytes
  } else {
    prefix = FindPrefix(parsed.unit, 'B');
  }
  if (!prefix) return UnitError("size", text, parsed.unit, kSizeUnits);
  uint64_t bytes = 0;
  switch (ToUint64(parsed.number, prefix->exp10, prefix->multiplier, &bytes)) {
    case IntError::kNotWhole:
      return BadValue("size", text, "not a whole number of bytes");
    case IntError::kOverflow:
      return BadValue("size", text, "too large");
    case IntError::kNone:
      break;
  }
  return bytes;
}

std::string FormatDuration(int64_t ps) {
  static constexpr std::array<std::pair<std::string_view, int>, 5> kUnits = {
      {{"s", 12}, {"ms", 9}, {"us", 6}, {"ns", 3}, {"ps", 0}}};
  if (ps == 0) return "0ns";
  // Work on the magnitude as unsigned so INT64_MIN is representable.
  uint64_t magnitude = ps < 0 ? uint64_t{0} - static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
  std::string sign = ps < 0 ? "-" : "";
  for (const auto& [unit, exp10] : kUnits) {
    uint64_t scale = 1;
    for (int i = 0; i < exp10; ++i) scale *= 10;
    if (magnitude < scale) continue;
    uint64_t whole = magnitude / scale;
    uint64_t frac = magnitude % scale;
    if (frac == 0) return fmt::format("{}{}{}", sign, whole, unit);
    std::string frac_text = fmt::format("{:0{}}", frac, exp10);
    while (frac_text.back() == '0') frac_text.pop_back();
    return fmt::format("{}{}.{}{}", sign, whole, frac_text, unit);
  }
  return fmt::format("{}{}ps", sign, magnitude);  // unreachable: "ps" has scale 1
}

std::string FormatRate(double bytes_per_sec) {
  static constexpr std::array<std::pair<std::string_view, double>, 9> kUnits = {{
      {"B/s", 1.0},
      {"KB/s", 1e3},
      {"KiB/s", 1024.0},
      {"MB/s", 1e6},
      {"MiB/s", 1048576.0},
      {"GB/s", 1e9},
      {"GiB/s", 1073741824.0},
      {"TB/s", 1e12},
      {"TiB/s", 1099511627776.0},
  }};
  // Plain bytes per second in shortest round-trip form always parses back exactly.
  std::string best = fmt::format("{}B/s", bytes_per_sec);
  if (!std::isfinite(bytes_per_sec) || bytes_per_sec <= 0) return best;
  for (const auto& [unit, scale] : kUnits) {
    if (bytes_per_sec < scale) continue;
    std::string candidate = fmt::format("{}{}", bytes_per_sec / scale, unit);
    Result<double> back = ParseRate(candidate);
    // On equal length the later (larger) unit wins: "1.5625GB/s" over "1562.5MB/s".
    if (back.ok() && back.value() == bytes_per_sec && candidate.size() <= best.size()) {
      best = std::move(candidate);
    }
  }
  return best;
}

std::string FormatSize(uint64_t bytes) {
  static constexpr std::array<std::pair<std::string_view, uint64_t>, 8> kUnits = {{
      {"KB", 1000},
      {"KiB", uint64_t{1} << 10},
      {"MB", 1000000},
      {"MiB", uint64_t{1} << 20},
      {"GB", 1000000000},
      {"GiB", uint64_t{1} << 30},
      {"TB", 1000000000000},
      {"TiB", uint64_t{1} << 40},
  }};
  std::string best = fmt::format("{}B", bytes);
  for (const auto& [unit, scale] : kUnits) {
    if (bytes < scale || bytes % scale != 0) continue;
    std::string candidate = fmt::format("{}{}", bytes / scale, unit);
    if (candidate.size() < best.size()) best = std::move(candidate);
  }
  return best;
}

}  // namespace nicsim
