// SPDX-License-Identifier: Apache-2.0
// Text helpers shared by the configuration parsers (parameter values, units, fault rules).
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace nicsim {

/** `text` without leading and trailing characters from `blanks` (spaces and tabs by default). */
inline std::string_view Trim(std::string_view text, std::string_view blanks = " \t") {
  const size_t first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

/** The pieces of `text` between `separator`s, each trimmed; "" gives one empty piece. */
inline std::vector<std::string_view> SplitTrimmed(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (;;) {
    const size_t at = text.find(separator);
    pieces.push_back(Trim(text.substr(0, at)));
    if (at == std::string_view::npos) return pieces;
    text.remove_prefix(at + 1);
  }
}

/**
 * `text` as it may be quoted in a message: control bytes (below 0x20, and 0x7f) are written
 * as \xNN, so an embedded NUL or newline shows instead of cutting or splitting the message.
 * Other bytes (UTF-8 included) and the backslash are kept as they are.
 */
inline std::string Printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

/** A whole string (after Trim) as a decimal int64; nothing if it is not exactly one. */
inline std::optional<int64_t> ParseInt64(std::string_view text) {
  text = Trim(text);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/** A whole string (no blanks) as a decimal double; nothing if it is not exactly one. */
inline std::optional<double> ParseDouble(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace nicsim
