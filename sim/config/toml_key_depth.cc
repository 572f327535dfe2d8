// SPDX-License-Identifier: Apache-2.0
// Counts the dots of each key outside strings and comments: a key's parts are separated by
// dots, and anything else between '=', ',', a bracket or a brace and the next one holds at most
// one (a float).
#include "sim/config/toml_key_depth.h"

#include <fmt/format.h>

namespace nicsim::sim {

std::optional<std::string> FindTooDeepKey(std::string_view text) {
  enum class In { kNothing, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };
  In in = In::kNothing;
  size_t line = 1, column = 1, dots = 0, start_line = 1, start_column = 1;
  // Where the token after the last separator began (a key's first part).
  bool fresh = true;
  const auto at = [&](size_t i, std::string_view s) { return text.substr(i, s.size()) == s; };
  // Moves to state `to` past a quote, three characters long for a multi-line string's.
  const auto past_quote = [&](size_t& i, bool triple, In to) {
    if (triple) {
      i += 2;
      column += 2;
    }
    in = to;
  };
  for (size_t i = 0; i < text.size(); ++i, ++column) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      column = 0;  // the next character is column 1
      if (in == In::kComment || in == In::kBasic || in == In::kLiteral) in = In::kNothing;
      if (in == In::kNothing) {
        dots = 0;
        fresh = true;
      }
      continue;
    }
    switch (in) {
      case In::kNothing:
        if (fresh && c != ' ' && c != '\t' && c != '#') {
          start_line = line;
          start_column = column;
          fresh = false;
        }
        if (c == '#') {
          in = In::kComment;
        } else if (at(i, "\"\"\"") || at(i, "'''")) {
          past_quote(i, true, c == '"' ? In::kMultiBasic : In::kMultiLiteral);
        } else if (c == '"') {
          in = In::kBasic;
        } else if (c == '\'') {
          in = In::kLiteral;
        } else if (c == '.') {
          if (++dots >= kMaxTomlKeyParts) {
            return fmt::format("{}:{}: a key of more than {} dotted parts", start_line,
                               start_column, kMaxTomlKeyParts);
          }
        } else if (c == '=' || c == ',' || c == '[' || c == '{' || c == '}') {
          dots = 0;
          fresh = true;
        }
        break;
      case In::kComment:
        break;
      case In::kBasic:
      case In::kMultiBasic:
        if (c == '\\') {
          // An escaped character, or a line ending (a multi-line string's continuation).
          if (i + 1 < text.size() && text[i + 1] == '\n') {
            ++line;
            column = 0;
          } else {
            ++column;
          }
          ++i;
        } else if (in == In::kBasic ? c == '"' : at(i, "\"\"\"")) {
          past_quote(i, in == In::kMultiBasic, In::kNothing);
        }
        break;
      case In::kLiteral:
      case In::kMultiLiteral:
        if (in == In::kLiteral ? c == '\'' : at(i, "'''")) {
          past_quote(i, in == In::kMultiLiteral, In::kNothing);
        }
        break;
    }
  }
  return std::nullopt;
}

}  // namespace nicsim::sim
